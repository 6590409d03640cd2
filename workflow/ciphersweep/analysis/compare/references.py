"""Per-cell performance references with bounds (config key ``compare.references``,
like ReFrame's ``reference``): each measured cell is within, below or above its
reference's bounds, or inconclusive, judged on the cell's interval by the one
judgement rule (:mod:`ciphersweep.verdict.judge`), never on its point estimate."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from ciphersweep.analysis.compare.sources import matching, measured, selector
from ciphersweep.analysis.tables.model import Context, Measured
from ciphersweep.verdict import judge as judgement


def _bounds(ref: dict[str, Any]) -> tuple[float, float, float | None]:
    """A reference's value and its lower and upper bound (None: no upper bound)."""
    value = float(ref["value"])
    lower = value * (1 + float(ref.get("lower", -0.1)))
    up = ref.get("upper", 0.1)
    return value, lower, None if up is None else value * (1 + float(up))


def _verdict(got: Measured, lower: float, upper: float | None) -> str:
    """within / below / above / inconclusive from the cell's interval."""
    if got.value is None:
        return f"n/a: {got.why}"
    band = (lower, math.inf if upper is None else upper)
    j = judgement.judge(got.low, got.high, band, got.level)
    if j.position == judgement.NA:
        return "n/a: no interval (too few repetitions?)"
    return j.word(judgement.REFERENCE_WORDS)


def reference_rows(ctx: Context, refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-cell performance references with bounds (like ReFrame's ``reference``)."""
    out = []
    for i, ref in enumerate(refs):
        q = ref.get("quantity", "t_total")
        unit = ref.get("unit", "s")
        value, lower, upper = _bounds(ref)
        row = {"reference": i, "quantity": q, "unit": unit, "value": value}
        row.update(lower=lower, upper=upper)
        pts = matching(ctx.points, selector(ref["where"]))
        if not pts:
            out.append(
                {**row, "point": "-", "measured": None, "verdict": "no point matches"}
            )
        for p in pts:
            got = measured(ctx, p, q, unit)
            out.append(
                {
                    **row,
                    "point": p.id,
                    "measured": got.value,
                    "measured_low": got.low,
                    "measured_high": got.high,
                    "level": got.level,
                    "verdict": _verdict(got, lower, upper),
                }
            )
    return out


def violations(rows: Iterable[dict[str, Any]]) -> list[str]:
    """One line per cell outside its reference's bounds."""
    out = []
    for r in rows:
        if r["verdict"] in ("below", "above"):
            bound = r["lower"] if r["verdict"] == "below" else r["upper"]
            out.append(
                f"{_line(r)} its reference {r['value']:.4g} {r['unit']} (bound {bound:.4g})"
            )
    return out


def _line(r: dict[str, Any]) -> str:
    """``point: t_total 1.2 s [1.1, 1.3] at level 95% is below``."""
    shown = judgement.interval_text(r.get("measured_low"), r.get("measured_high"))
    return (
        f"{r['point']}: {r['quantity']} {r['measured']:.4g} {r['unit']} {shown} at "
        f"{judgement.level_text(r.get('level'))} is {r['verdict']}"
    )


def inconclusive(rows: Iterable[dict[str, Any]]) -> list[str]:
    """One line per cell whose interval reaches both inside and outside its bounds."""
    return [
        f"{_line(r)} of [{r['lower']:.4g}, {r['upper'] if r['upper'] is not None else 'inf'}]"
        for r in rows
        if r["verdict"] == judgement.INCONCLUSIVE
    ]


def read_rows(path: str) -> list[dict[str, Any]]:
    """The rows of a references.csv (missing values as None)."""
    frame = pd.read_csv(path)
    return [
        {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in r.items()
        }
        for r in frame.to_dict("records")
    ]


def check_references(path: str) -> list[str]:
    """Violations recorded in a references.csv (empty: every cell within bounds)."""
    return violations(read_rows(path))


def inconclusive_references(path: str) -> list[str]:
    """Cells of a references.csv whose interval cannot tell (warned, never failed)."""
    return inconclusive(read_rows(path))
