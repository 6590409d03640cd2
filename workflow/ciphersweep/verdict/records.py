"""Gathering the raw records of every point into tidy tables (admitted records only:
see :mod:`ciphersweep.verdict.admission`).

* ``measurements.csv`` / ``.parquet``: one row per timed repetition, every record field.
* ``failures.csv``: one row per failed point, with the reason.
* ``summary.csv``: one row per point: the median time with its distribution-free 95%
  confidence interval (``t_total_ci_low``, ``t_total_ci_high``, ``t_total_ci_level``,
  ``t_total_rel_hw``), the mean with its interval, the spread (min, max, quartiles,
  standard deviation), the repetitions run (``n``; ``stop_reason`` when the kernel
  calibrated them), medians of the other timings, the status and, for failed points,
  the reason. The statistics are those of :mod:`ciphersweep.core.stats`.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ciphersweep.backends import codepath
from ciphersweep.core import stats, units
from ciphersweep.core.atomic import replacing
from ciphersweep.core.record_fields import GPU, TIMINGS
from ciphersweep.plan.fingerprint import Expected
from ciphersweep.plan.sweep import Point
from ciphersweep.verdict import admission

# numeric record fields summarised per point (median; t_total also min/max/quartiles)
# what summary.csv keeps of every measured column other than t_total
ESTIMATES = (
    "median",
    "ci_low",
    "ci_high",
    "ci_level",
    "mean",
    "mean_ci_low",
    "mean_ci_high",
    "mean_ci_level",
)
NUMERIC = (
    *TIMINGS,
    "cpu_util",
    "cpu_peak_pct",
    "cpu_user_s",
    "cpu_sys_s",
    "joules",
    "joules_pkg",
    "joules_core",
    "joules_dram",
    "joules_gpu",
    "joules_h2d",
    "joules_kernel",
    "joules_d2h",
)
# measured once per kernel process (the bench job samples it, every record of the
# process repeats it): summarised over one value per process, not per repetition
PER_PROCESS = ("cpu_peak_pct",)
# per-point descriptive fields taken from the first record
FROM_FIRST_RECORD = (
    "impl",
    "aes_path",
    "host",
    "energy_source",
    "energy_scope",
    "energy_note",
    "oversubscribed",
    "runtime",
    "image_digest",
    "git_rev",
    "slurm_job_id",
    "slurm_nodelist",
    "launch_line",
    "stop_reason",
    "target_ci",
)
# a point as summary.csv and failures.csv name it (their first columns, in order):
# column -> the plan's attribute (:class:`ciphersweep.plan.sweep.Point`)
POINT_FIELDS = {
    "point": "id",
    "backend": "backend",
    "cfg_impl": "impl",
    "mode": "mode",
    "op": "op",
    "cipher": "cipher",
    "input_name": "input_name",
    "size_label": "size_label",
    "bytes": "size_bytes",
    "ranks": "ranks",
    "threads": "threads",
    "gpus": "gpus",
    "block_threads": "block_threads",
    "p": "p",
}
POINT_COLS = tuple(POINT_FIELDS)


def point_row(p: Point) -> dict[str, Any]:
    return {col: getattr(p, attr) for col, attr in POINT_FIELDS.items()}


def collect(
    files: Iterable[str | Path],
    points: Sequence[Point],
    expected: Mapping[str, Expected] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(measurements, failures, summary) data frames from the raw files of ``points``;
    with ``expected`` (point id -> the plan's fingerprint) only records of the planned
    fingerprint are admitted."""
    by_id = {p.id: p for p in points}
    rows: list[dict[str, Any]] = []
    fails: list[dict[str, Any]] = []
    summ: list[dict[str, Any]] = []
    for f in files:
        pid = Path(f).name.removesuffix(".jsonl")
        p = by_id.get(pid)
        if p is None:
            continue
        verdict = admission.judge(f, p, (expected or {}).get(pid))
        base = point_row(p)
        if not verdict.ok:
            failure = (verdict.failure or {}).get("launch_line")
            fails.append({**base, "reason": verdict.reason, "launch_line": failure})
            summ.append({**base, "status": "failed", "reason": verdict.reason, "n": 0})
            continue
        rows += _measurement_rows(verdict.records, pid, base)
        summ.append(_point_summary(p, base, verdict.records))
    failures = pd.DataFrame(fails, columns=list(POINT_COLS) + ["reason", "launch_line"])
    return _ordered_measurements(rows), failures, _ordered_summary(summ)


def _measurement_rows(
    ok: list[dict[str, Any]], pid: str, base: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """One row per admitted repetition: every record field and the plan's labels."""
    rows = []
    for r in ok:
        row = dict(r)
        # one column of text: a nested object is no tidy cell
        row["fingerprint"] = json.dumps(r.get("fingerprint"), sort_keys=True)
        row.update(codepath.texts(r.get("fingerprint")))
        row.setdefault("point", pid)
        row["status"] = "ok"
        for k in ("size_label", "input_name", "cfg_impl", "p"):
            row[k] = base[k]
        rows.append(row)
    return rows


def _point_summary(
    p: Point, base: Mapping[str, Any], ok: list[dict[str, Any]]
) -> dict[str, Any]:
    """The summary row of an admitted point."""
    s: dict[str, Any] = {**base, "status": "ok", "reason": None, "n": len(ok)}
    for k in FROM_FIRST_RECORD:
        s[k] = ok[0].get(k)
    s["impl"] = ok[0].get("impl", p.impl)
    s.update(codepath.texts(ok[0].get("fingerprint")))
    s.update(_numeric_summary(ok))
    mbps = units.rate(p.size_bytes, s.get("t_total_median"))
    if mbps is not None:
        s["mbps_median"] = mbps
    return s


def _numeric_summary(ok: list[dict[str, Any]]) -> dict[str, Any]:
    """t_total: median, its 95% CI, mean and its CI, spread; every other measured
    column: the median and the mean, each with its 95% interval. Plain lists, not a
    data frame per point: a point has a few records, and a frame's set-up would cost
    more than its statistics."""
    s: dict[str, Any] = {}
    per_process = any("process" in r for r in ok)
    for col in NUMERIC:
        kept = [(r, v) for r in ok if (v := stats.number(r.get(col))) is not None]
        if col in PER_PROCESS:
            kept = _one_per_process(kept, per_process)
        if not kept:
            continue
        vals = [v for _, v in kept]
        if col == "t_total":
            procs = [r.get("process") for r, _ in kept] if per_process else None
            s.update(stats.summarize(vals, "t_total", procs))
            continue
        est = stats.summarize(vals, col)
        if est:
            s.update({f"{col}_{k}": est[f"{col}_{k}"] for k in ESTIMATES})
    return s


def _one_per_process(
    kept: list[tuple[dict[str, Any], float]], per_process: bool
) -> list[tuple[dict[str, Any], float]]:
    """The first value of each kernel process (records without ``process``: one)."""
    if not per_process:
        return kept[:1]
    first: dict[Any, tuple[dict[str, Any], float]] = {}
    for r, v in kept:
        g = r.get("process")
        if g is not None:
            first.setdefault(g, (r, v))
    return list(first.values())


_MEASUREMENT_LEAD = (
    "campaign",
    "point",
    "backend",
    "impl",
    "mode",
    "op",
    "size_label",
    "bytes",
    "ranks",
    "threads",
    GPU,
    "rep",
)


def _ordered_measurements(rows: list[dict[str, Any]]) -> pd.DataFrame:
    meas = pd.DataFrame(rows)
    if meas.empty:
        return meas
    lead = [c for c in _MEASUREMENT_LEAD if c in meas]
    return meas[lead + sorted(c for c in meas.columns if c not in lead)]


def _ordered_summary(summ: list[dict[str, Any]]) -> pd.DataFrame:
    summary = pd.DataFrame(summ)
    if summary.empty:
        return summary
    lead = list(POINT_COLS) + ["status", "reason", "n", "impl"]
    return summary[
        [c for c in lead if c in summary]
        + [c for c in summary.columns if c not in lead]
    ]


def summarized_points(path: str | Path) -> set[str]:
    """The points a ``summary.csv`` names (measured or failed); raises OSError when
    there is none. Read with the csv module: the workflow asks at planning, where a
    data frame would cost more than the file."""
    with open(path, newline="", encoding="utf-8") as fh:
        return {row["point"] for row in csv.DictReader(fh) if row.get("point")}


def gather_files(
    files: Sequence[str],
    points: Sequence[Point],
    output: Any,
    log: str | None = None,
    expected: Mapping[str, Expected] | None = None,
) -> None:
    """The ``gather`` rule: write measurements (csv, parquet), failures and summary."""
    meas, failures, summary = collect(files, points, expected)
    with replacing(
        [output.csv, output.parquet, output.failures, output.summary]
    ) as tmp:
        meas.to_csv(tmp[0], index=False)
        _to_parquet(meas, tmp[1])
        failures.to_csv(tmp[2], index=False)
        # medians of two repetitions and the like: 12 significant digits drop the binary
        # noise (119.67448599999999) and keep every digit a clock gives; the exact values
        # are in measurements.csv/.parquet
        summary.to_csv(tmp[3], index=False, float_format="%.12g")
    if log:
        with open(log, "w") as fh:
            print(
                f"{len(meas)} measurements, {len(summary)} points, {len(failures)} failed",
                file=fh,
            )
            for _, f in failures.iterrows():
                print(f"failed: {f['point']}: {f['reason']}", file=fh)


def _to_parquet(frame: pd.DataFrame, path: str) -> None:
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object:
            kinds = {type(v) for v in out[col].dropna()}
            if len(kinds) > 1:  # e.g. str and float in one column: keep it as text
                out[col] = out[col].map(lambda v: None if v is None else str(v))
    out.to_parquet(path, index=False)


def load_summary(path: str | Path) -> pd.DataFrame:
    """A gathered summary.csv."""
    return pd.read_csv(path, keep_default_na=True)
