"""Trend plots of a campaign's history (PNG for the report, PDF and SVG beside).

One panel per backend; x = the runs in order, each labelled with its number and the
git revision it ran (``+`` when the working tree had local changes; the build
fingerprint below it where the runs' builds differ); y = the cell's
time (the campaign's statistic, logarithmic axis) with its interval as error bars.
Each cell is a series per machine: a colour per cell, a line style and marker per
machine, so runs on different machines are never joined into one line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ciphersweep.analysis.plots.catalog import FORMATS
from ciphersweep.analysis.plots.drawing import Drawing, draw_jobs
from ciphersweep.analysis.plots.files import save_figure
from ciphersweep.analysis.plots.legend import place
from ciphersweep.analysis.plots.titles import title
from ciphersweep.core.atomic import replacing

from . import TREND
from .regress import estimate, run_order

NAME = TREND
TITLE = "Time over the runs of this campaign"


def caption(basis: str) -> str:
    """The trend plot's caption; ``basis``: what the stored cells rest on
    (:func:`ciphersweep.analysis.history.outputs.stored_basis`)."""
    return (
        f"Each cell's time ({basis}; seconds, logarithmic axis) in every run kept in "
        "the history store, one panel per backend; x: the runs in order with the git "
        "revision they ran ('+': local changes; the build fingerprint below where the "
        "builds differ); error bars: each cell's interval at the level stored with it. "
        "A colour per cell, a line style and marker per machine: runs on different "
        "machines are separate series, never one line. Before the second run the "
        "figure only says that a trend needs two."
    )


LINESTYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P")


def _builds(frame: pd.DataFrame) -> dict[str, str]:
    """run id -> short build fingerprint(s), where the runs' builds differ."""
    if "build_digest" not in frame:
        return {}
    per_run = {
        str(rid): sorted({str(d).removeprefix("sha256:")[:6] for d in g.dropna()})
        for rid, g in frame.groupby("run_id")["build_digest"]
    }
    if len({tuple(v) for v in per_run.values()}) <= 1:
        return {}
    return {rid: "build " + ",".join(v) if v else "" for rid, v in per_run.items()}


def run_labels(frame: pd.DataFrame) -> list[str]:
    """Tick label of each run in order: its number and short revision (and its
    build fingerprint where the runs' builds differ)."""
    runs = frame.drop_duplicates("run_id").set_index("run_id")
    builds = _builds(frame)
    out = []
    for i, rid in enumerate(run_order(frame)):
        rev = str(runs.loc[rid, "git_rev"] or "")
        rev = rev[:7] if rev not in ("", "None", "nan") else "?"
        dirty = runs.loc[rid, "git_dirty"]
        plus = "+" if dirty is not None and not _nan(dirty) and int(dirty) else ""
        build = f"\n{builds[rid]}" if builds.get(rid) else ""
        out.append(f"{i + 1}\n{rev}{plus}{build}")
    return out


def _nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _panel(ax: Any, cells: pd.DataFrame, index: dict[str, int], backend: str) -> None:
    from ciphersweep.analysis.plots import style  # matplotlib: see plot()

    machines = sorted(str(m) for m in cells["machine"].dropna().unique())
    prefix = f"{backend}-"
    for ci, (point, per_point) in enumerate(cells.groupby("point", sort=True)):
        colour = f"C{ci % 10}"
        for mi, (machine, series) in enumerate(per_point.groupby("machine")):
            xs, ys, lo, hi = [], [], [], []
            for cell in series.to_dict("records"):
                e = estimate(cell)
                if e is not None and e.value > 0:
                    xs.append(index[str(cell["run_id"])])
                    ys.append(e.value)
                    lo.append(e.value - e.low)
                    hi.append(e.high - e.value)
            if not xs:
                continue
            label = str(point).removeprefix(prefix)
            if len(machines) > 1:
                label += f" @ {machine}"
            ax.errorbar(
                xs,
                ys,
                yerr=[lo, hi],
                color=colour,
                linestyle=LINESTYLES[mi % len(LINESTYLES)],
                marker=MARKERS[mi % len(MARKERS)],
                markersize=4,
                capsize=3,
                label=label,
            )
    title(ax, backend)
    style.log_scale(ax)
    ax.grid(True, which="major", alpha=0.3)
    place(ax, "tables/history.csv", loc="best")


def plot(frame: pd.DataFrame) -> Any:
    """The trend figure of one campaign's history (a note where it is empty)."""
    # Imported here on purpose: matplotlib takes about a second to import, and the
    # workflow imports the history package at every parse; it loads only when a
    # trend is drawn.
    from matplotlib.figure import Figure

    backends = sorted(str(b) for b in frame["backend"].dropna().unique())
    order = run_order(frame)
    if not backends or not order:
        return _note_figure(Figure, "no runs in the history store")
    if len(order) < 2:  # nothing to trend yet: a note, not panels of lone points
        return _note_figure(
            Figure,
            "one run in the history store: a trend needs two "
            "(this run's cells: tables/history.csv)",
        )
    n = max(1, len(backends))
    cols = min(n, 2)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(6.0 * cols, 3.8 * rows), dpi=110, layout="constrained")
    index = {rid: i for i, rid in enumerate(order)}
    labels = run_labels(frame)
    for i in range(n):
        ax = fig.add_subplot(rows, cols, i + 1)
        _panel(ax, frame[frame["backend"] == backends[i]], index, backends[i])
        ax.set_xticks(range(len(order)), labels, fontsize="small")
        ax.set_xlim(-0.5, max(len(order) - 0.5, 0.5))
        ax.set_xlabel("run (git revision)")
        ax.set_ylabel("time (s)")
    fig.suptitle(TITLE)
    return fig


def _note_figure(figure: Any, note: str) -> Any:
    """A small figure that only says why there is no trend to draw."""
    fig = figure(figsize=(6.0, 1.6), dpi=110)
    fig.text(0.5, 0.62, TITLE, ha="center", va="center", fontsize="large")
    fig.text(0.5, 0.32, note, ha="center", va="center")
    return fig


def plot_files(outdir: str | Path) -> list[Path]:
    return [Path(outdir) / f"{NAME}.{ext}" for ext in FORMATS]


def write(
    frame: pd.DataFrame, paths: Sequence[str | Path], drawing: Drawing | None = None
) -> None:
    """The trend plot as every file in ``paths`` (all written, or none), drawn by the
    run's drawing process (``drawing``) or here without one."""
    with replacing(list(paths)) as tmps:
        draw_jobs(drawing, __name__, "draw_files", [(frame, list(tmps))])


def draw_files(job: tuple[pd.DataFrame, Sequence[Path]]) -> None:
    """The trend figure of ``job``'s frame written to each of its files."""
    frame, paths = job
    save_figure(plot(frame), paths)
