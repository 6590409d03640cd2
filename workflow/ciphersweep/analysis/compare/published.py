"""A study's printed tables next to the measured cells: the paper's value, the
measured one in the paper's unit with its interval, their ratio (and difference for
speedups), which of several candidate quantities is closest, and the rank agreement
of each printed table with the measurements (Spearman, Kendall)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from ciphersweep.analysis.compare.intervals import log_distance
from ciphersweep.analysis.compare.sources import cell, selector
from ciphersweep.analysis.tables.model import Context, Measured
from ciphersweep.core.stats import scipy_stats

# ------------------------------------------------------------------ rank agreement


def _defined(r: float) -> float | None:
    """A coefficient, or None where it is undefined (a side without two ranks)."""
    return None if math.isnan(r) else float(r)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties get mean ranks; SciPy's)."""
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    return _defined(scipy_stats().spearmanr(x, y).statistic)


def kendall(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b (SciPy's)."""
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    return _defined(scipy_stats().kendalltau(x, y, variant="b").statistic)


def _rank_groups(
    rows: Iterable[dict[str, Any]],
) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """(table, measure) -> (printed, measured) pairs of the comparable measured cells;
    where printed cells name several impls (``a|b``), one group per impl, named
    ``table [impl]``, each with the table's cells of a single impl."""
    tagged: dict[tuple[str, str], list[tuple[str, float, float]]] = {}
    for r in rows:
        if r["measured"] is None or r.get("comparable") is False:
            continue
        tagged.setdefault((r["source"], r["measure"]), []).append(
            (r.get("impl_choice", ""), r["paper"], r["measured"])
        )
    groups: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for (source, measure), cells in tagged.items():
        for tag in sorted({t for t, _, _ in cells} - {""}) or [""]:
            name = f"{source} [{tag}]" if tag else source
            groups[(name, measure)] = [(a, b) for t, a, b in cells if t in ("", tag)]
    return groups


def rank_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rank agreement per published table and measure, over the cells both have,
    leaving out the cells marked not comparable (the paper measured otherwise)."""
    out = []
    for (source, measure), pairs in _rank_groups(rows).items():
        xs, ys = [a for a, _ in pairs], [b for _, b in pairs]
        out.append(
            {
                "source": source,
                "measure": measure,
                "cells": len(pairs),
                "spearman": spearman(xs, ys),
                "kendall": kendall(xs, ys),
            }
        )
    return out


# ------------------------------------------------------------------ printed cells


def _row(ctx: Context, r: dict[str, Any], measure: str) -> dict[str, Any]:
    """One printed cell read as one quantity, next to its measured value."""
    paper, unit = float(r["value"]), r["unit"]
    got = cell(ctx, selector(r), measure, unit, r.get("statistic") or None)
    ratio = diff = None
    why = str(r.get("not_comparable") or "").strip()
    if why:  # measured and shown, but no ratio: the paper measured otherwise
        note = f"not comparable: {why}"
    else:
        note = got.why if got.value is None else r.get("note", "")
        if got.value is not None and unit != "unknown" and paper:
            ratio = got.value / paper
            if unit == "x":
                diff = got.value - paper
    return {
        "source": r["source"],
        "row": r["row"],
        "column": r["column"],
        "measure": measure,
        "impl": str(r.get("impl") or ""),
        "unit": unit,
        "paper": paper,
        "measured": got.value,
        "ci_low": got.low,
        "ci_high": got.high,
        "ratio": ratio,
        "difference": diff,
        "closest": "",
        "note": note,
        "comparable": not why,
    }


def _distance(r: dict[str, Any]) -> tuple[float, float] | None:
    """How far (log ratio) a row's measured interval may be from its printed number."""
    return log_distance(Measured(r["measured"], r["ci_low"], r["ci_high"]), r["paper"])


def _closeness(rows: list[dict[str, Any]], best: dict[str, Any]) -> str:
    """``closest`` when the best quantity's interval lies nearer the printed number
    than every other measured one's (in log ratio), else ``inconclusive:`` and why."""
    others = [r for r in rows if r is not best and r["ratio"]]
    if not others:  # the only quantity measured
        return "closest"
    near = _distance(best)
    far = {r["alternative"]: _distance(r) for r in others}
    lacking = [m for m, d in [(best["alternative"], near), *far.items()] if d is None]
    if near is None or lacking:
        return f"inconclusive: no finite interval for {', '.join(lacking)}"
    tied = [m for m, d in far.items() if d is not None and near[1] >= d[0]]
    if tied:
        return (
            f"inconclusive: the intervals of {best['alternative']} and {', '.join(tied)} "
            "reach equally near the printed number"
        )
    return "closest"


def _mark_closest(rows: list[dict[str, Any]]) -> None:
    """Of the quantities a printed number could be, mark the one closest to it (or
    why that cannot be told from the intervals)."""
    scored = [x for x in rows if x["ratio"]]
    if len(rows) > 1 and scored:
        best = min(scored, key=lambda x: abs(math.log(x["ratio"])))
        best["closest"] = _closeness(rows, best)


def _alternatives(ctx: Context, r: dict[str, Any]) -> list[dict[str, Any]]:
    """A printed cell read as each quantity (``measure`` a|b) and each implementation
    (``impl`` a|b) it could be, each row named in ``alternative`` where there are
    several (``impl_choice``: its impl where the impls are the alternatives)."""
    impls = str(r.get("impl") or "").split("|")
    measures = str(r["measure"]).split("|")
    rows = []
    for impl in impls:
        for m in measures:
            row = _row(ctx, {**r, "impl": impl}, m)
            row["impl_choice"] = impl if len(impls) > 1 else ""
            names = ([m] if len(measures) > 1 else []) + [row["impl_choice"]]
            row["alternative"] = ", ".join(n for n in names if n)
            rows.append(row)
    return rows


def published_rows(ctx: Context, pub: pd.DataFrame) -> list[dict[str, Any]]:
    """Paper value next to the measured one, cell by cell (one row per alternative
    quantity or implementation where the paper's number could be more than one)."""
    out: list[dict[str, Any]] = []
    for r in pub.to_dict("records"):
        rows = _alternatives(ctx, r)
        _mark_closest(rows)
        out.extend(rows)
    return out
