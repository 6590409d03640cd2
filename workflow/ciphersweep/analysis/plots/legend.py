"""THE place a plot's legend is laid out. A short legend sits inside the axes; a long
one beside them, in as many columns as it needs, and the figure grows to hold it (the
axes keep their size); one too long to read is left out, and a note on the axes says
how many series there are and where they are listed. Needs no matplotlib import: it
works on the axes it is given."""

from __future__ import annotations

import math
from typing import Any

INSIDE = 8  # entries that fit inside the axes
PER_COLUMN = 20  # entries per column beside the axes
MOST = 60  # more series than this: no legend, a note instead
_CHAR_IN = 0.065  # width of one x-small character (inches)
_ROW_IN = 0.17  # height of one x-small legend row (inches)


def place(ax: Any, listed_in: str = "the tables", **inside: Any) -> None:
    """The legend of ``ax`` (``inside``: keyword arguments for a short legend)."""
    handles, labels = ax.get_legend_handles_labels()
    n = len(handles)
    if n == 0:
        return
    if n <= INSIDE:
        ax.legend(fontsize="small", **inside)
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
    rows = math.ceil(n / ncol)
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
        ncol=ncol,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
    )
