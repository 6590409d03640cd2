"""Per-cell performance references with bounds (config key ``compare.references``,
like ReFrame's ``reference``): each measured cell is within, below or above its
reference's bounds."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from ciphersweep.analysis.compare.sources import matching, measured, selector
from ciphersweep.analysis.tables.model import Context


def _bounds(ref: dict[str, Any]) -> tuple[float, float, float | None]:
    """A reference's value and its lower and upper bound (None: no upper bound)."""
    value = float(ref["value"])
    lower = value * (1 + float(ref.get("lower", -0.1)))
    up = ref.get("upper", 0.1)
    return value, lower, None if up is None else value * (1 + float(up))


def _verdict(got: float | None, why: str, lower: float, upper: float | None) -> str:
    if got is None:
        return f"n/a: {why}"
    if got < lower:
        return "below"
    if upper is not None and got > upper:
        return "above"
    return "within"


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
            verdict = _verdict(got.value, got.why, lower, upper)
            out.append(
                {**row, "point": p.id, "measured": got.value, "verdict": verdict}
            )
    return out


def violations(rows: Iterable[dict[str, Any]]) -> list[str]:
    """One line per cell outside its reference's bounds."""
    out = []
    for r in rows:
        if r["verdict"] in ("below", "above"):
            bound = r["lower"] if r["verdict"] == "below" else r["upper"]
            out.append(
                f"{r['point']}: {r['quantity']} {r['measured']:.4g} {r['unit']} is "
                f"{r['verdict']} its reference {r['value']:.4g} {r['unit']} "
                f"(bound {bound:.4g})"
            )
    return out


def check_references(path: str) -> list[str]:
    """Violations recorded in a references.csv (empty: every cell within bounds)."""
    frame = pd.read_csv(path)
    rows = [
        {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in r.items()
        }
        for r in frame.to_dict("records")
    ]
    return violations(rows)
