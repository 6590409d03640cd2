"""THE place a plot's legend is laid out. A short legend sits inside the axes; a long
one beside them, in as many columns as it needs, and the figure grows to hold it (the
axes keep their size); one too long to read is left out, and a note on the axes says
how many series there are and where they are listed. A legend placed "best" keeps the
place its first drawing chose (:func:`keep_places`). Needs no matplotlib import: it
works on the axes it is given."""

from __future__ import annotations

import math
from typing import Any

INSIDE = 8  # entries that fit inside the axes
PER_COLUMN = 20  # entries per column beside the axes
MOST = 60  # more series than this: no legend, a note instead
_CHAR_IN = 0.065  # width of one x-small character (inches)
_ROW_IN = 0.17  # height of one x-small legend row (inches)
BEST = 0  # matplotlib's code of loc="best"
ANCHORED = range(1, 11)  # its codes of the fixed places ("upper right" .. "center")


def entries(ax: Any) -> tuple[list[Any], list[str]]:
    """The legend entries of ``ax``, each label once (with its first handle): a mark
    that several series carry, such as the ring of an oversubscribed point, is named
    once."""
    first: dict[str, Any] = {}
    for handle, label in zip(*ax.get_legend_handles_labels()):
        first.setdefault(label, handle)
    return list(first.values()), list(first)


def place(
    ax: Any, listed_in: str = "the tables", title: str | None = None, **inside: Any
) -> None:
    """The legend of ``ax``, under ``title`` if one is given (``inside``: keyword
    arguments for a short legend)."""
    handles, labels = entries(ax)
    n = len(handles)
    if n == 0:
        return
    if n <= INSIDE:
        ax.legend(handles, labels, fontsize="small", title=title, **inside)
        return
    if n > MOST:
        ax.text(
            1.0,
            1.01,
            f"{n} series, too many to name here: see {listed_in}",
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontsize="x-small",
        )
        return
    ncol = math.ceil(n / PER_COLUMN)
    rows = math.ceil(n / ncol) + (title is not None)
    longest = max(len(str(label)) for label in labels)
    fig = ax.figure
    width, height = fig.get_size_inches()
    fig.set_size_inches(
        width + ncol * (_CHAR_IN * longest + 0.6), max(height, _ROW_IN * rows + 1.4)
    )
    ax.legend(
        handles,
        labels,
        fontsize="x-small",
        title=title,
        title_fontsize="small",
        ncol=ncol,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
    )


def keep_places(fig: Any, renderer: Any) -> int:
    """Pin each legend placed "best" to the fixed place the drawing that ``renderer``
    just made chose; how many were pinned.

    "best" is always one of the ten fixed places (the one over the fewest data),
    searched at every drawing over every point drawn: a figure written as PNG, PDF
    and SVG would search three times, the costliest part of a plot with many points.
    Pinned after the first file, the others are drawn at the same place without the
    search. The place is read from the drawn legend's frame and matched against the
    fixed places; a legend no fixed place matches is left "best"."""
    pinned = 0
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None or leg._loc != BEST:  # matplotlib keeps loc only privately
            continue
        drawn = leg.legendPatch.get_bbox()
        for code in ANCHORED:
            leg.set_loc(code)
            if _same_place(leg.get_window_extent(renderer), drawn):
                pinned += 1
                break
        else:
            leg.set_loc("best")
    return pinned


def _same_place(a: Any, b: Any, tol_px: float = 1e-6) -> bool:
    return abs(a.x0 - b.x0) <= tol_px and abs(a.y0 - b.y0) <= tol_px
