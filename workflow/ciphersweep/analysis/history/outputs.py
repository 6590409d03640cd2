"""What the workflow does with the history: append a finished campaign, write the
``history`` target's tables and trend plot, judge the gate.

* ``history_append``: the campaign's run goes into the store (nothing when the store
  already holds it); a small JSON marker says which run it was and whether this append
  added it, read back from the store.
* ``history``: ``tables/history.csv`` (tidy: one row per cell and run) with
  ``history.md``/``.tex`` (cells x runs, each value with its interval),
  ``tables/regressions.csv``, ``.md`` and ``.tex`` (one row per cell of the latest run, :mod:`.regress`), and
  ``plots/history_trend.{png,pdf,svg}`` (:mod:`.trends`).
* the gate: with ``history.fail_on_regression`` the run fails with one line per
  regressed cell, after every table is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ciphersweep.analysis.plots.drawing import Drawing
from ciphersweep.analysis.render import render_latex, render_markdown
from ciphersweep.analysis.tables.model import Table
from ciphersweep.core import stats, wording
from ciphersweep.core.atomic import replacing, write_text
from ciphersweep.job import provenance

from . import regress, runs, store, trends

HISTORY_COLUMNS = (
    "run",
    "run_id",
    "run_time",
    "appended",
    "git_rev",
    "git_dirty",
    *regress.POINT_COLUMNS,
    "build_digest",
    "image_digest",
    "host",
    "cpu_model",
    "gpu_model",
    "cflags",
    "status",
    "estimate",
    "ci_low",
    "ci_high",
    "ci_level",
    "n",
)


# what the history rules turn into one line ("ciphersweep: ..."): a store or a run
# that cannot be used
PROBLEMS = (store.StoreError, runs.RunError)


def store_path(cfg: Mapping[str, Any]) -> str:
    return str(cfg.get("history", {}).get("path", "results/history.sqlite"))


# ------------------------------------------------------------------ append


def _appended_at(path: str, run_id: str) -> str | None:
    """When the store received the run (None: it does not hold it, or cannot be
    read)."""
    try:
        return store.appended(path, run_id)
    except store.StoreError:
        return None


def append_campaign(
    cfg: Mapping[str, Any],
    resdir: str,
    marker: str,
    build_digests: Mapping[str, str | None],
    project: str | Path,
    log: str | None = None,
) -> bool:
    """The ``history_append`` rule: add this campaign's run to the store (True when
    it was new) and write the marker naming the run. ``build_digests``: build variant
    ("" = the default build) -> fingerprint; ``project``: the checkout whose git
    revision ran (its dirty flag is read here).

    The marker says what the store holds once the append is over, read back from it:
    ``added`` is true when this append's transaction committed the run (also where an
    interrupt came after the commit), false when the store held it already; with the
    time the store received it."""
    hist = cfg.get("history", {})
    run = runs.from_campaign(
        resdir,
        statistic=str(cfg.get("statistic") or "median"),
        machine=hist.get("machine") or None,
        build_digests=build_digests,
        git_dirty=provenance.git_dirty(project),
        campaign=str(cfg["campaign"]),
    )
    path = store_path(cfg)
    info: dict[str, Any] = {
        "store": path,
        "run_id": run.run_id,
        "cells": len(run.cells),
    }
    try:
        store.append(path, run.info, run.cells)
    finally:
        when = _appended_at(path, run.run_id)
        if when is not None:
            info.update(added=when == run.info["appended"], appended=when)
            write_text(marker, json.dumps(info, indent=1) + "\n")
    if "added" not in info:
        raise store.StoreError(
            f"history store {path}: run {run.run_id} not found after its append"
        )
    if log:
        what = "added to" if info["added"] else "already in"
        Path(log).write_text(
            f"run {run.run_id} ({len(run.cells)} cells) {what} {info['store']}\n"
        )
    return bool(info["added"])


# ------------------------------------------------------------------ tables


def _label(cell: Mapping[str, Any], several_machines: bool) -> str:
    return str(cell["point"]) + (f" @ {cell['machine']}" if several_machines else "")


def history_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """history.csv: one row per cell and run, runs numbered in order from 1."""
    number = {rid: i + 1 for i, rid in enumerate(regress.run_order(frame))}
    out = frame.assign(run=frame["run_id"].map(number)) if len(frame) else frame
    out = out.reindex(columns=list(HISTORY_COLUMNS))
    if len(out):
        out = out.sort_values(["run", "point", "machine"], kind="stable")
    return pd.DataFrame(out).reset_index(drop=True)


def history_table(frame: pd.DataFrame) -> Table:
    """Cells x runs, each value with its interval (history.md)."""
    labels = trends.run_labels(frame) if len(frame) else []
    columns = [lab.replace("\n", " ") for lab in labels]
    index = {rid: i for i, rid in enumerate(regress.run_order(frame))}
    several = frame["machine"].nunique() > 1 if len(frame) else False
    t = Table(
        "history",
        "Time (s) of every cell in every run of this campaign",
        [],
        columns,
        {},
        row_header="cell",
        caption="One column per run kept in the history store (in order, with its git "
        f"revision; '+': local changes): {stored_basis(frame)}.",
        show_intervals=True,
    )
    for cell in frame.to_dict("records"):
        row = _label(cell, several)
        if row not in t.rows:
            t.rows.append(row)
        key = (row, columns[index[str(cell["run_id"])]])
        e = regress.estimate(cell)
        if e is None:
            t.cells[key] = "failed" if cell.get("status") != "ok" else "n/a"
        else:
            t.cells[key] = float(e.value)
            t.intervals[key] = (e.low, e.high)
    return t


def _numbers(values: Iterable[Any]) -> list[float]:
    return [f for f in (regress._f(v) for v in values) if f is not None]


def stored_basis(frame: pd.DataFrame | Sequence[Mapping[str, Any]]) -> str:
    """What stored cells rest on, as they were computed: ``the median with its
    75-95 % interval, 3-7 repetitions per cell`` (from their statistic, ci_level and
    n; core.wording's forms)."""
    rows = frame.to_dict("records") if isinstance(frame, pd.DataFrame) else frame
    names = sorted({str(r["statistic"]) for r in rows if r.get("statistic")})
    levels = _numbers(r.get("ci_level") for r in rows)
    reps = [int(n) for n in _numbers(r.get("n") for r in rows)]
    what = " / ".join(names) or "the campaign's statistic"
    level = (
        f"its {wording.level_range((min(levels), max(levels)))} interval"
        if levels
        else "no interval"
    )
    count = (
        wording.span(wording.count(min(reps)), wording.count(max(reps)))
        if reps
        else "an unrecorded number of"
    )
    return f"the {what} with {level}, {count} repetitions per cell"


def regressions_caption(rows: Sequence[Mapping[str, Any]]) -> str:
    """What the regressions table rests on, from its rows: the statistic, the levels
    of the factor intervals and the bands as they were computed, and the count of
    each verdict."""
    judged = [r for r in rows if regress._f(r.get("level")) is not None]
    stats_used = sorted({str(r.get("statistic")) for r in rows if r.get("statistic")})
    counts = ", ".join(
        f"{sum(r.get('verdict') == v for r in rows)} {v}" for v in regress.VERDICTS
    )
    basis = ""
    if judged:
        levels = _numbers(r["level"] for r in judged)
        bands = [
            stats.percent_number(b) for b in _numbers(r.get("band") for r in judged)
        ]
        reps = [
            int(n)
            for n in _numbers(
                v for r in judged for v in (r.get("n"), r.get("baseline_n"))
            )
        ]
        count = (
            wording.span(wording.count(min(reps)), wording.count(max(reps)))
            if reps
            else "an unrecorded number of"
        )
        basis = (
            f" Factor intervals at {wording.level_range((min(levels), max(levels)))} "
            f"(the product of the two cells' levels), over {count} repetitions per "
            f"cell; bands ±{wording.span(min(bands, key=float), max(bands, key=float))} %."
        )
    return (
        f"Each cell of the latest run ({' / '.join(stats_used) or 'its statistic'}) "
        "against the same cell of the most recent earlier run on the same machine with "
        "the same statistic. factor = latest / earlier with the interval [latest low / "
        "earlier high .. latest high / earlier low], judged against the band of no "
        "change [1/(1+d), 1+d], d the largest of history.min_change, the drift of the "
        "cells unchanged in both runs and the cell's own drift: regression when the "
        "interval lies entirely above the band, improvement when entirely below, no "
        "change when entirely inside, inconclusive when it reaches both; a cell whose "
        f"build did not change is never a regression.{basis} Verdicts: {counts}."
    )


def regressions_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    """The latest run against the earlier ones (regressions.md, the report)."""
    several = len({r.get("machine") for r in rows}) > 1
    cols = ["earlier (s)", "latest (s)", "factor", "verdict"]
    t = Table(
        "regressions",
        "Latest run against the earlier runs: regressions through the intervals",
        [],
        cols,
        {},
        row_header="cell",
        caption=regressions_caption(rows),
        show_intervals=True,
    )
    for r in rows:
        label = _label(r, several)
        t.rows.append(label)
        for col, (v, lo, hi) in zip(
            cols[:3],
            (
                ("baseline_estimate", "baseline_ci_low", "baseline_ci_high"),
                ("estimate", "ci_low", "ci_high"),
                ("factor", "factor_low", "factor_high"),
            ),
        ):
            val = regress._f(r.get(v))
            t.cells[(label, col)] = "n/a" if val is None else val
            if val is not None and None not in (r.get(lo), r.get(hi)):
                t.intervals[(label, col)] = (float(r[lo]), float(r[hi]))
        t.cells[(label, "verdict")] = str(r["verdict"])
        if r.get("verdict") == regress.NA and r.get("note"):
            t.notes[(label, "verdict")] = str(r["note"])
    return t


def write_history(
    cfg: Mapping[str, Any],
    output: Any,
    log: str | None = None,
    drawing: Drawing | None = None,
) -> list[dict[str, Any]]:
    """The ``history`` rule: tables (CSV, Markdown, LaTeX) and trend plots of this
    campaign's runs in the store (``output``: history_csv, history_md, history_tex,
    regressions_csv, regressions_md, regressions_tex, plots; the plots drawn by the
    run's ``drawing`` process, :mod:`ciphersweep.analysis.plots.drawing`)."""
    frame = store.read(store_path(cfg), campaign=str(cfg["campaign"]))
    hist = cfg.get("history", {})
    rows = regress.regressions(
        frame,
        compare_machines=bool(hist.get("compare_machines", False)),
        min_change=float(hist.get("min_change", 0.0)),
    )
    outs = [output.history_csv, output.history_md, output.history_tex]
    outs += [output.regressions_csv, output.regressions_md, output.regressions_tex]
    with replacing(outs) as tmp:
        runs_frame = history_frame(frame)  # the Markdown and the report: this frame
        runs_frame.to_csv(tmp[0], index=False, float_format="%.12g")
        tmp[1].write_text(render_markdown(history_table(runs_frame)))
        tmp[2].write_text(render_latex(history_table(runs_frame)))
        pd.DataFrame(rows, columns=list(regress.COLUMNS)).to_csv(
            tmp[3], index=False, float_format="%.12g"
        )
        tmp[4].write_text(render_markdown(regressions_table(rows)))
        tmp[5].write_text(render_latex(regressions_table(rows)))
    trends.write(frame, list(output.plots), drawing)
    if log:
        counts = {v: sum(r["verdict"] == v for r in rows) for v in regress.VERDICTS}
        Path(log).write_text(
            f"{frame['run_id'].nunique()} runs, {len(rows)} cells in the latest: "
            + ", ".join(f"{n} {v}" for v, n in counts.items())
            + "\n"
        )
    return rows


def read_regressions(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a regressions.csv ("n/a" stays a verdict, not a missing value)."""
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    return frame.to_dict("records")


def read_history(path: str | Path) -> pd.DataFrame:
    """A history.csv as the store's frame (what :func:`history_table` takes)."""
    return pd.read_csv(path, dtype={"run_id": str, "git_rev": str})


def regressed(regressions_csv: str) -> list[str]:
    """The gate: one line per regressed cell of regressions.csv (none: it passes)."""
    return regress.regressed_lines(read_regressions(regressions_csv))


def inconclusive(regressions_csv: str) -> list[str]:
    """One line per cell of regressions.csv the data cannot place
    (``history.inconclusive``: warned, or failed by the gate)."""
    return regress.inconclusive_lines(read_regressions(regressions_csv))
