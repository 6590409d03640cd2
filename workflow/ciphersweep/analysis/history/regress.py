"""Regressions and improvements of the latest run, judged through the intervals.

Each cell of the latest run is set against the same cell (same point, same data size)
of the most recent earlier run that measured it on the same machine:

* **regression** when the new interval lies entirely above the earlier one
  (``new.low > old.high``): the cell is slower beyond what either run's noise explains;
* **improvement** when it lies entirely below (``new.high < old.low``);
* **no change** when the two intervals overlap: noise is never reported as a change.

The factor new / old comes with the interval of the interval division
(:func:`ciphersweep.core.stats.ratio`): ``[new.low / old.high, new.high / old.low]``; a
regression is exactly a factor interval entirely above 1. Machines are kept apart:
a cell is compared only with runs on the machine it ran on, unless
``compare_machines`` is set. A cell with nothing to compare with (first run on its
machine, failed, or without an interval) has the verdict ``n/a`` and a note saying why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ciphersweep.core import stats

REGRESSION, IMPROVEMENT, NO_CHANGE, NA = "regression", "improvement", "no change", "n/a"
VERDICTS = (REGRESSION, IMPROVEMENT, NO_CHANGE, NA)
POINT_COLUMNS = (
    "point",
    "backend",
    "impl",
    "cipher",
    "mode",
    "op",
    "size_label",
    "bytes",
    "ranks",
    "threads",
    "gpus",
    "variant",
    "machine",
)
COLUMNS = (
    *POINT_COLUMNS,
    "run_id",
    "git_rev",
    "estimate",
    "ci_low",
    "ci_high",
    "n",
    "baseline_run_id",
    "baseline_git_rev",
    "baseline_machine",
    "baseline_estimate",
    "baseline_ci_low",
    "baseline_ci_high",
    "baseline_n",
    "factor",
    "factor_low",
    "factor_high",
    "verdict",
    "note",
)


def _f(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def estimate(cell: Mapping[str, Any]) -> stats.Estimate | None:
    """A stored cell's estimate with its interval (None: failed, or no interval)."""
    vals = [_f(cell.get(k)) for k in ("estimate", "ci_low", "ci_high")]
    if cell.get("status") != "ok" or None in vals:
        return None
    value, low, high = vals  # type: ignore[misc]
    level = _f(cell.get("ci_level"))
    n = _f(cell.get("n"))
    return stats.Estimate(value, low, high, level or 0.0, int(n or 0))  # type: ignore[arg-type]


def verdict(new: stats.Estimate, old: stats.Estimate, min_change: float = 0.0) -> str:
    """``regression``, ``improvement`` or ``no change`` from the two intervals.

    ``min_change`` (``history.min_change``) widens the band of "no change" to a
    relative drift between runs on the same machine that no single run's interval
    covers (clock and load state from one minute to the next): a regression's factor
    interval must lie entirely above ``1 + min_change``, an improvement's entirely
    below ``1 / (1 + min_change)``."""
    if new.low > old.high * (1.0 + min_change):
        return REGRESSION
    if new.high * (1.0 + min_change) < old.low:
        return IMPROVEMENT
    return NO_CHANGE


def run_order(frame: pd.DataFrame) -> list[str]:
    """Run ids in run order (time of the run, then when appended)."""
    if frame.empty:
        return []
    runs = frame.drop_duplicates("run_id").sort_values(["run_time", "appended"])
    return [str(r) for r in runs["run_id"]]


def _same_cell(a: Mapping[str, Any], b: Mapping[str, Any], machines: bool) -> bool:
    return (
        a.get("point") == b.get("point")
        and _f(a.get("bytes")) == _f(b.get("bytes"))
        and (machines or a.get("machine") == b.get("machine"))
    )


def _baseline(
    cell: Mapping[str, Any],
    earlier: Sequence[Sequence[Mapping[str, Any]]],
    compare_machines: bool,
) -> tuple[Mapping[str, Any] | None, str]:
    """The cell of the most recent earlier run to compare with, or why there is none."""
    seen = False
    for run in reversed(earlier):
        for old in run:
            if _same_cell(cell, old, compare_machines):
                seen = True
                if estimate(old) is not None:
                    return old, ""
    where = "" if compare_machines else f" on machine {cell.get('machine')}"
    if seen:
        return None, f"no earlier run{where} measured this cell with an interval"
    return None, f"no earlier run{where}"


def compare_cell(
    cell: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    why: str,
    min_change: float = 0.0,
) -> dict[str, Any]:
    """One row of regressions.csv: the cell, its baseline, the factor and verdict."""
    row: dict[str, Any] = {c: cell.get(c) for c in COLUMNS if c in cell}
    row.update({c: None for c in COLUMNS if c not in row})
    new = estimate(cell)
    if old is not None:
        row.update(
            {
                "baseline_run_id": old.get("run_id"),
                "baseline_git_rev": old.get("git_rev"),
                "baseline_machine": old.get("machine"),
                "baseline_estimate": old.get("estimate"),
                "baseline_ci_low": old.get("ci_low"),
                "baseline_ci_high": old.get("ci_high"),
                "baseline_n": old.get("n"),
            }
        )
    if new is None:
        row["verdict"] = NA
        row["note"] = (
            "failed in this run"
            if cell.get("status") != "ok"
            else "no interval in this run"
        )
        return row
    base = estimate(old) if old is not None else None
    q = stats.ratio(new, base) if base is not None else None
    if base is None or q is None:
        row["verdict"], row["note"] = NA, why or "no earlier value above 0"
        return row
    row.update(
        factor=q.value,
        factor_low=q.low,
        factor_high=q.high,
        verdict=verdict(new, base, min_change),
    )
    row["note"] = "" if row["verdict"] == NO_CHANGE else _note(row)
    return row


def _note(row: Mapping[str, Any]) -> str:
    return (
        f"{row['factor']:.3g}x [{row['factor_low']:.3g}..{row['factor_high']:.3g}] "
        f"against {str(row.get('baseline_git_rev') or 'unknown')[:12]}"
    )


def regressions(
    frame: pd.DataFrame, compare_machines: bool = False, min_change: float = 0.0
) -> list[dict[str, Any]]:
    """One row per cell of the latest run of ``frame`` (one campaign's history)."""
    order = run_order(frame)
    if not order:
        return []
    by_run = {
        rid: g.to_dict("records") for rid, g in frame.groupby("run_id", sort=False)
    }
    earlier = [by_run[r] for r in order[:-1]]
    out = []
    for cell in by_run[order[-1]]:
        old, why = _baseline(cell, earlier, compare_machines)
        out.append(compare_cell(cell, old, why, min_change))
    return out


def regressed_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per regressed cell (the gate's message)."""
    return [
        f"{r['point']} on {r.get('machine')}: {r['factor']:.3g}x slower "
        f"[{r['factor_low']:.3g}..{r['factor_high']:.3g}] than "
        f"{str(r.get('baseline_git_rev') or 'unknown')[:12]} "
        f"({r['baseline_estimate']:.4g} s -> {r['estimate']:.4g} s)"
        for r in rows
        if r.get("verdict") == REGRESSION
    ]
