"""Regressions and improvements of the latest run, judged by the one judgement rule
(:mod:`ciphersweep.verdict.judge`) on the factor new / old and its interval.

Each cell of the latest run is set against the same cell (same point, same data size)
of the most recent earlier run that measured it on the same machine with the same
statistic (a median is never compared with a mean). The factor new / old comes with the
interval of the interval division (:func:`ciphersweep.core.stats.ratio`):
``[new.low / old.high, new.high / old.low]``, at the level ``new.level * old.level``.

One run's interval does not cover the drift of a machine between runs (clock and load
state from one minute to the next), so the factor is judged against a band of "no
change" ``[1 / (1 + d), 1 + d]`` whose drift ``d`` is the largest of:

* ``history.min_change`` (the floor the user sets);
* the drift between the two runs themselves: the largest factor of the *control
  cells*, those measured in both runs by the same code (the same digest of their
  records' fingerprint: binary, build key, input, code-path environment, libraries),
  ``|log(new / old)|``;
* the drift of this cell over its earlier runs of one build on that machine.

The row says which one set the band. Against it, the factor is a

* **regression** when its interval lies entirely above the band,
* **improvement** when entirely below,
* **no change** when entirely inside,
* **inconclusive** when it reaches both inside and outside (the data cannot tell).

A cell whose code did not change since its baseline is a control itself:
whatever its factor, it is **no change** (its difference is drift, said in the note),
never a regression. Machines are kept apart unless ``compare_machines`` is set. A cell
with nothing to compare with (first run on its machine, failed, without an interval, or
only earlier runs of another statistic) has the verdict ``n/a`` and a note saying why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ciphersweep.core import stats
from ciphersweep.verdict import judge as judgement

from . import drift
from .schema import POINT_KEY

WORDS = judgement.REGRESSION_WORDS
REGRESSION, IMPROVEMENT = WORDS[judgement.ABOVE], WORDS[judgement.BELOW]
NO_CHANGE, INCONCLUSIVE, NA = (
    WORDS[judgement.INSIDE],
    WORDS[judgement.INCONCLUSIVE],
    WORDS[judgement.NA],
)
VERDICTS = (REGRESSION, IMPROVEMENT, NO_CHANGE, INCONCLUSIVE, NA)

# a cell of the tables: its point key and the machine it ran on
POINT_COLUMNS = (*POINT_KEY, "machine")
COLUMNS = (
    *POINT_COLUMNS,
    "run_id",
    "git_rev",
    "statistic",
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
    "level",
    "band",
    "band_source",
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


def verdict(new: stats.Estimate, old: stats.Estimate, drift: float = 0.0) -> str:
    """``regression``, ``improvement``, ``no change`` or ``inconclusive``: the factor
    new / old's interval judged against the band of ``drift`` (n/a: no factor)."""
    q = stats.ratio(new, old)
    if q is None:
        return NA
    band = judgement.relative_band(drift)
    return judgement.judge(q.low, q.high, band, q.level).word(WORDS)


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


def unchanged(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """The code did not change between the two cells (a control cell): the same
    digest of the fingerprint their records carry (binary, build key, input, shape,
    code-path environment, library versions); for cells stored before that digest,
    the same known build and the same image."""
    digests = [c.get("code_digest") for c in (a, b)]
    if any(isinstance(d, str) and d for d in digests):
        return digests[0] == digests[1]
    build = a.get("build_digest")
    return (
        isinstance(build, str)
        and bool(build)
        and build == b.get("build_digest")
        and (a.get("image_digest") or None) == (b.get("image_digest") or None)
    )


def _baseline(
    cell: Mapping[str, Any],
    earlier: Sequence[Sequence[Mapping[str, Any]]],
    compare_machines: bool,
) -> tuple[Mapping[str, Any] | None, str]:
    """The cell of the most recent earlier run to compare with, or why there is none
    (runs of another statistic are never compared)."""
    seen, other = False, set()
    for run in reversed(earlier):
        for old in run:
            if not _same_cell(cell, old, compare_machines):
                continue
            if old.get("statistic") != cell.get("statistic"):
                other.add(str(old.get("statistic")))
                continue
            seen = True
            if estimate(old) is not None:
                return old, ""
    where = "" if compare_machines else f" on machine {cell.get('machine')}"
    if seen:
        return None, f"no earlier run{where} measured this cell with an interval"
    if other:
        return None, (
            f"earlier runs{where} used the {', '.join(sorted(other))}, never compared "
            f"with the {cell.get('statistic')}"
        )
    return None, f"no earlier run{where}"


def compare_cell(
    cell: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    why: str,
    band: drift.Band | None = None,
) -> dict[str, Any]:
    """One row of regressions.csv: the cell, its baseline, the factor and verdict
    judged against ``band`` (default: no drift)."""
    band = band or drift.Band(0.0, drift.FLOOR, "")
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
    if old is None or base is None or q is None:
        row["verdict"], row["note"] = NA, why or "no earlier value above 0"
        return row
    row.update(
        factor=q.value,
        factor_low=q.low,
        factor_high=q.high,
        level=q.level,
        band=band.drift,
        band_source=band.detail,
        verdict=verdict(new, base, band.drift),
    )
    if unchanged(cell, old):
        row["band_source"] = "unchanged code (a control cell)"
        if row["verdict"] != NO_CHANGE:
            row["verdict"] = NO_CHANGE
            row["note"] = f"{_note(row)}: the same code, so drift between runs"
            return row
    row["note"] = _note(row) if row["verdict"] != NO_CHANGE else ""
    return row


def _note(row: Mapping[str, Any]) -> str:
    return (
        f"{row['factor']:.3g}x [{row['factor_low']:.3g}..{row['factor_high']:.3g}] "
        f"at {judgement.level_text(row.get('level'))} against "
        f"{str(row.get('baseline_git_rev') or 'unknown')[:12]}; band "
        f"±{100 * (row.get('band') or 0.0):.3g}% ({row.get('band_source')})"
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
    latest = by_run[order[-1]]
    between: dict[str, tuple[float, int] | None] = {}  # per baseline run
    out = []
    for cell in latest:
        old, why = _baseline(cell, earlier, compare_machines)
        band = None
        if old is not None:
            rid = str(old["run_id"])
            if rid not in between:
                between[rid] = drift.controls(
                    latest, by_run[rid], compare_machines, unchanged
                )
            own = drift.own_history(cell, earlier, compare_machines, unchanged)
            band = drift.band(min_change, between[rid], own)
        out.append(compare_cell(cell, old, why, band))
    return out


def regressed_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per regressed cell (the gate's message)."""
    return [_line(r, "slower") for r in rows if r.get("verdict") == REGRESSION]


def inconclusive_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per cell whose factor the data cannot place (history.inconclusive)."""
    return [_line(r, "inconclusive") for r in rows if r.get("verdict") == INCONCLUSIVE]


def _line(r: Mapping[str, Any], what: str) -> str:
    return (
        f"{r['point']} on {r.get('machine')}: {r['factor']:.3g}x {what} "
        f"[{r['factor_low']:.3g}..{r['factor_high']:.3g}] at "
        f"{judgement.level_text(_f(r.get('level')))} than "
        f"{str(r.get('baseline_git_rev') or 'unknown')[:12]} "
        f"({r['baseline_estimate']:.4g} s -> {r['estimate']:.4g} s; band "
        f"±{100 * (_f(r.get('band')) or 0.0):.3g}% from {r.get('band_source')})"
    )
