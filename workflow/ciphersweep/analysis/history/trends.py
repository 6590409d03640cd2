"""Trend plots of a campaign's history (PNG for the report, PDF and SVG beside).

One panel per backend; x = the runs in order, each labelled with its number and the
git revision it ran (``+`` when the working tree had local changes; the build
fingerprint below it where the runs' builds differ); y = the cell's
time (the campaign's statistic, logarithmic axis) with its interval as error bars.
Each cell is a series per machine: a colour per cell, a line style and marker per
machine, so runs on different machines are never joined into one line.

This module works out what the figure shows from the history's frame
(:func:`trend`); :mod:`ciphersweep.analysis.plots.trend` draws it, in the run's drawing
process, which imports no pandas.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ciphersweep.analysis.plots import trend as trend_plot
from ciphersweep.analysis.plots.catalog import FORMATS
from ciphersweep.analysis.plots.drawing import Drawing, draw_jobs
from ciphersweep.core.atomic import replacing

from . import TREND
from .regress import estimate, run_order

NAME = TREND
TITLE = trend_plot.TITLE


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


def _panel(
    cells: pd.DataFrame, index: dict[str, int], backend: str
) -> trend_plot.Panel:
    """A backend's panel: a series per cell and machine, of the runs with a time."""
    machines = sorted(str(m) for m in cells["machine"].dropna().unique())
    prefix = f"{backend}-"
    out = []
    for ci, (point, per_point) in enumerate(cells.groupby("point", sort=True)):
        for mi, (machine, series) in enumerate(per_point.groupby("machine")):
            xs, ys, below, above = [], [], [], []
            for cell in series.to_dict("records"):
                e = estimate(cell)
                if e is not None and e.value > 0:
                    xs.append(index[str(cell["run_id"])])
                    ys.append(e.value)
                    below.append(e.value - e.low)
                    above.append(e.high - e.value)
            if not xs:
                continue
            label = str(point).removeprefix(prefix)
            if len(machines) > 1:
                label += f" @ {machine}"
            out.append(
                trend_plot.Series(
                    label, ci, mi, tuple(xs), tuple(ys), tuple(below), tuple(above)
                )
            )
    return trend_plot.Panel(backend, tuple(out))


def trend(frame: pd.DataFrame) -> trend_plot.Trend:
    """What the trend figure of one campaign's history shows (a note where there is
    no trend: no runs, or only one)."""
    backends = sorted(str(b) for b in frame["backend"].dropna().unique())
    order = run_order(frame)
    if not backends or not order:
        return trend_plot.Trend(note="no runs in the history store")
    if len(order) < 2:  # nothing to trend yet: a note, not panels of lone points
        return trend_plot.Trend(
            note="one run in the history store: a trend needs two "
            "(this run's cells: tables/history.csv)"
        )
    index = {rid: i for i, rid in enumerate(order)}
    panels = [_panel(frame[frame["backend"] == b], index, b) for b in backends]
    return trend_plot.Trend(tuple(run_labels(frame)), tuple(panels))


def plot(frame: pd.DataFrame) -> Any:
    """The trend figure of one campaign's history, drawn here (matplotlib)."""
    return trend_plot.plot(trend(frame))


def plot_files(outdir: str | Path) -> list[Path]:
    return [Path(outdir) / f"{NAME}.{ext}" for ext in FORMATS]


def write(
    frame: pd.DataFrame, paths: Sequence[str | Path], drawing: Drawing | None = None
) -> None:
    """The trend plot as every file in ``paths`` (all written, or none), drawn by the
    run's drawing process (``drawing``) or here without one."""
    job = trend(frame)
    with replacing(list(paths)) as tmps:
        draw_jobs(drawing, trend_plot.__name__, "draw_files", [(job, list(tmps))])
