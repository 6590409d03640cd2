"""The trend plot's figure, drawn from plain data (:class:`Trend`): one panel per
backend; x = the runs in order, each labelled; y = a cell's time (logarithmic axis)
with its interval as error bars; a colour per cell, a line style and marker per
machine. What the figure shows (which runs, cells and labels) is worked out from the
history's frame by :func:`ciphersweep.analysis.history.trends.trend`; this module draws
it, in the run's drawing process, which imports no pandas."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ciphersweep.analysis.plots.files import save_figure
from ciphersweep.analysis.plots.legend import place
from ciphersweep.analysis.plots.titles import title

TITLE = "Time over the runs of this campaign"
LINESTYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P")


@dataclass(frozen=True)
class Series:
    """One cell on one machine: its label, the index of its cell (its colour) and of
    its machine (its line style and marker), and per run drawn: x (the run's index),
    the time, and how far the interval reaches below and above it."""

    label: str
    cell: int
    machine: int
    xs: tuple[int, ...]
    ys: tuple[float, ...]
    below: tuple[float, ...]
    above: tuple[float, ...]


@dataclass(frozen=True)
class Panel:
    backend: str
    series: tuple[Series, ...]


@dataclass(frozen=True)
class Trend:
    """What the trend figure shows: the runs' tick labels in order and a panel per
    backend, or instead a note that says why there is no trend to draw."""

    runs: tuple[str, ...] = ()
    panels: tuple[Panel, ...] = ()
    note: str | None = None


def plot(trend: Trend) -> Any:
    """The trend figure (a small one with the note where there is no trend)."""
    # Imported here on purpose: matplotlib takes about a second to import, and the
    # workflow imports the history package (which names this module) at every parse.
    from matplotlib.figure import Figure

    if trend.note is not None or not trend.panels:
        return _note_figure(Figure, trend.note or "no runs in the history store")
    n = len(trend.panels)
    cols = min(n, 2)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(6.0 * cols, 3.8 * rows), dpi=110, layout="constrained")
    for i, panel in enumerate(trend.panels):
        ax = fig.add_subplot(rows, cols, i + 1)
        _panel(ax, panel)
        ax.set_xticks(range(len(trend.runs)), trend.runs, fontsize="small")
        ax.set_xlim(-0.5, max(len(trend.runs) - 0.5, 0.5))
        ax.set_xlabel("run (git revision)")
        ax.set_ylabel("time (s)")
    fig.suptitle(TITLE)
    return fig


def _panel(ax: Any, panel: Panel) -> None:
    from ciphersweep.analysis.plots import style  # matplotlib: see plot()

    for s in panel.series:
        ax.errorbar(
            s.xs,
            s.ys,
            yerr=[s.below, s.above],
            color=f"C{s.cell % 10}",
            linestyle=LINESTYLES[s.machine % len(LINESTYLES)],
            marker=MARKERS[s.machine % len(MARKERS)],
            markersize=4,
            capsize=3,
            label=s.label,
        )
    title(ax, panel.backend)
    style.log_scale(ax)
    ax.grid(True, which="major", alpha=0.3)
    place(ax, "tables/history.csv", loc="best")


def _note_figure(figure: Any, note: str) -> Any:
    """A small figure that only says why there is no trend to draw."""
    fig = figure(figsize=(6.0, 1.6), dpi=110)
    fig.text(0.5, 0.62, TITLE, ha="center", va="center", fontsize="large")
    fig.text(0.5, 0.32, note, ha="center", va="center")
    return fig


def draw_files(job: tuple[Trend, Sequence[Path]]) -> None:
    """The trend figure of ``job``'s trend written to each of its files."""
    trend, paths = job
    save_figure(plot(trend), paths)
