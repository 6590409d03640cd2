"""Writing a drawn figure to its files: THE place a plot (the campaign's plots and the
history's trend plot alike) becomes PNG, PDF and SVG. Needs no plotting library of its
own: it is handed the figure."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ciphersweep.analysis.plots.legend import keep_places


def save_figure(fig: Any, paths: Sequence[str | Path]) -> None:
    """``fig``, drawn once, written to each of ``paths`` (the format from each suffix;
    SVG without a date and with fixed ids, so the same plot gives the same bytes). The constrained layout
    and the places of "best" legends are worked out for the first file and kept for
    the others, which would otherwise work them out again: the costliest parts of
    writing a plot, small (the layout) or of many points (the legends). The layout
    engine is then removed, not set to "none": matplotlib still draws a figure once
    more, without output, before each file when it has one, even a "none"."""
    from matplotlib import rc_context  # the figure's own library, loaded already

    first = fig.canvas.mpl_connect("draw_event", lambda e: keep_places(fig, e.renderer))
    for k, path in enumerate(paths):
        svg = Path(path).suffix == ".svg"
        # the ids of an SVG's clip paths are hashed from this salt, not from the run
        with rc_context({"svg.hashsalt": "ciphersweep"}):
            fig.savefig(path, metadata={"Date": None} if svg else None)
        if k == 0:
            fig.canvas.mpl_disconnect(first)
            fig.set_layout_engine(None)  # no engine (matplotlib's default rc)
