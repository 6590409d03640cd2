"""This campaign's times next to another campaign's (config key ``compare.campaign``),
cell by cell, each in the campaign's statistic with its interval."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ciphersweep.analysis.compare.sources import measured
from ciphersweep.analysis.tables.model import Context, Measured
from ciphersweep.core import stats
from ciphersweep.verdict import records

# the summary columns that say which cell a row is (records.POINT_COLS less the derived)
KEY_COLS = tuple(
    c for c in records.POINT_COLS if c not in ("point", "size_label", "bytes", "p")
)


def _keys(row: dict[str, Any]) -> tuple[str, ...]:
    out = []
    for c in KEY_COLS:
        v = row.get(c)
        if isinstance(v, float) and not math.isnan(v) and v == int(v):
            v = int(v)
        out.append(
            "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
        )
    return tuple(out)


def _reference(ref: dict[str, Any], statistic: str) -> Measured:
    """The other campaign's value of a cell, with its interval if it has one."""
    e = stats.row_estimate(ref, statistic)
    if e is None:
        return Measured(None, why="no value")
    if math.isnan(e.level):
        return Measured(e.value)
    return Measured(e.value, e.low, e.high)


def _verdict(got: Measured, ref: Measured) -> str:
    """Same within the two intervals, slower or faster (or why not compared)."""
    if got.value is None or not ref.value:
        return got.why or "n/a"
    if None in (got.low, got.high, ref.low, ref.high):
        return "not comparable: a side has no interval (one repetition?)"
    if got.low <= ref.high and ref.low <= got.high:  # type: ignore[operator]
        return "same within CIs"
    return "slower" if got.value > ref.value else "faster"


def campaign_rows(ctx: Context, other: pd.DataFrame) -> list[dict[str, Any]]:
    """This campaign's times next to another campaign's (the campaign's statistic),
    cell by cell."""
    theirs = {_keys(r): r for r in other.to_dict("records") if r.get("status") == "ok"}
    out = []
    for p in ctx.points:
        mine = ctx.by_point.get(p.id)
        ref_row = None if mine is None else theirs.get(_keys(mine))
        if ref_row is None:
            continue
        got = measured(ctx, p, "t_total", "s")
        ref = _reference(ref_row, ctx.statistic)
        out.append(
            {
                "point": p.id,
                "reference": ref.value,
                "reference_ci_low": ref.low,
                "reference_ci_high": ref.high,
                "measured": got.value,
                "ci_low": got.low,
                "ci_high": got.high,
                "ratio": got.value / ref.value
                if got.value is not None and ref.value
                else None,
                "verdict": _verdict(got, ref),
            }
        )
    return out
