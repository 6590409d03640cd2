"""Writing a drawn figure to its files: THE place a plot (the campaign's plots and the
history's trend plot alike) becomes PNG, PDF and SVG. Needs no plotting library of its
own: it is handed the figure."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ciphersweep.analysis.plots.legend import keep_places

# the date matplotlib writes into a file, by suffix, left out (PNG has none)
UNDATED = {".pdf": {"CreationDate": None}, ".svg": {"Date": None}}


def save_figure(fig: Any, paths: Sequence[str | Path]) -> None:
    """``fig``, drawn once, written to each of ``paths`` (the format from each suffix;
    PDF and SVG without a date, SVG with fixed ids: the same plot gives the same bytes
    in every format). The
    constrained layout, the places of "best" legends and the ticks are worked out for
    the first file and kept for the others, which would otherwise work them out again:
    the costliest parts of writing a plot, small (the layout), of many points (the
    legends) or of many decades (log ticks). The layout engine is then removed, not set
    to "none": matplotlib still draws a figure once more, without output, before each
    file when it has one, even a "none"."""
    from matplotlib import rc_context  # the figure's own library, loaded already

    first = fig.canvas.mpl_connect("draw_event", lambda e: keep_places(fig, e.renderer))
    for k, path in enumerate(paths):
        # the ids of an SVG's clip paths are hashed from this salt, not from the run
        with rc_context({"svg.hashsalt": "ciphersweep"}):
            fig.savefig(path, metadata=UNDATED.get(Path(path).suffix))
        if k == 0:
            fig.canvas.mpl_disconnect(first)
            fig.set_layout_engine(None)  # no engine (matplotlib's default rc)
            keep_ticks(fig)


def keep_ticks(fig: Any) -> int:
    """Fix every axis's ticks where its last drawing put them, with the labels it gave
    them (and the offset or multiplier it wrote beside them); how many axes.

    At each drawing matplotlib asks an axis's locators where its ticks go and its
    formatters what they say, major and minor: a log axis over a few decades has dozens
    of ticks, each label formatted anew. Once the figure is laid out its limits no
    longer change, so the next files get the same ticks and labels; kept, they are
    drawn without being worked out again. Asked the way matplotlib asks while it draws
    (minor ticks on a major one left out, labels formatted as a list), so that the
    files are the same bytes either way."""
    from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator

    kept = 0
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            levels = (
                (axis.major, axis.get_majorticklocs),
                (axis.minor, axis.get_minorticklocs),
            )
            for ticker, where in levels:
                if isinstance(ticker.locator, NullLocator):
                    continue  # no ticks: nothing to keep
                try:
                    locs = list(where())
                except ValueError:
                    # axes that show none (a log axis with nothing drawn: the note
                    # of an empty plot): matplotlib never asks, neither does this
                    continue
                formatter = FixedFormatter(ticker.formatter.format_ticks(locs))
                formatter.set_offset_string(ticker.formatter.get_offset())
                ticker.locator = FixedLocator(locs)
                ticker.formatter = formatter
            kept += 1
    return kept
