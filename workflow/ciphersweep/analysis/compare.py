"""Measured cells side by side with a reference: a study's published numbers (and its
stated findings as claims), another campaign's results, or performance references
with tolerances. One module serves all three (config key ``compare``).

Measured values come from summary.csv through :func:`ciphersweep.analysis.tables.layouts.quantity`
(the one speedup formula, the campaign's baseline); their confidence intervals are the
summary's ``<col>_ci_low``/``<col>_ci_high`` columns where the statistics module wrote
them. The published data format and the claim kinds are described in docs/workflow.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scipy import stats as scipy_stats

from ciphersweep.analysis.render import md_escape
from ciphersweep.analysis.tables import layouts
from ciphersweep.core import stats
from ciphersweep.plan.catalogue import MEASURES, TIMES_ALL
from ciphersweep.plan.study_files import load_claims, load_published
from ciphersweep.plan.sweep import Point
from ciphersweep.verdict import records

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ciphersweep.analysis.tables.model import Context, Table

AXES = (
    "backend",
    "impl",
    "mode",
    "op",
    "cipher",
    "algorithm",
    "key_bits",
    "size",
    "set",
    "ranks",
    "threads",
    "gpus",
    "block_threads",
    "variant",
)
# quantities where less is better (an order lists these smallest first)
LOWER_FIRST = (
    *TIMES_ALL,
    "binary_bytes",
    "joules",
    "watts",
    "cpu_util",
    "cpu_peak_pct",
)
HOLDS, FAILS, UNTESTED = "holds", "does not hold", "not measured here"


# ------------------------------------------------------------------ measured values


@dataclass
class Measured:
    value: float | None
    low: float | None = None
    high: float | None = None
    why: str = ""


def selector(row: dict[str, Any]) -> dict[str, Any]:
    """Axis -> value of a published row or claim selector (empty cells: any)."""
    out: dict[str, Any] = {}
    for a in AXES:
        v = row.get(a)
        if v is None or (isinstance(v, str) and not v.strip()):
            continue
        if isinstance(v, float) and math.isnan(v):
            continue
        out[a] = [str(x) for x in v] if isinstance(v, list) else str(v)
    return out


def matching(points: Sequence[Point], where: dict[str, Any]) -> list[Point]:
    return [p for p in points if layouts.select(p, where)]


def _time_factor(unit: str) -> float:
    return layouts.TIME_UNITS.get(unit, 1.0)


def measured(
    ctx: Context, p: Point, measure: str, unit: str, statistic: str | None = None
) -> Measured:
    """The point's value of a measure in the given unit, with its interval if known
    (``statistic``: the campaign's unless given)."""
    statistic = statistic or ctx.statistic
    if measure == "enc_dec_ratio":
        return _enc_dec_ratio(ctx, p, statistic)
    if measure == "binary_bytes":
        return _object_size(ctx, p)
    if measure == "watts":
        return _power(ctx, p, statistic)
    value, time = MEASURES[measure]
    shown = unit if unit in layouts.UNITS[value] else None
    v = layouts.quantity(ctx, p, value, time=time, statistic=statistic, unit=shown)
    if isinstance(v, tuple):
        return Measured(None, why=str(v[1]))
    v = getattr(v, "value", v)  # a cell flagged as wider than the precision target
    if not isinstance(v, float):
        return Measured(None, why="no value")
    low, high = _interval(ctx, p, value, time, statistic)
    if low is None or high is None:
        return Measured(v)
    if value in layouts.TIMES_ALL:
        f = _time_factor(shown or "s")
        return Measured(v, low * f, high * f)
    if value == "throughput":  # a time interval reaching 0 bounds no rate from above
        rate = layouts.RATE_UNITS[shown or "MB/s"]
        top = p.size_bytes / low / rate if low > 0 else math.inf
        return Measured(v, p.size_bytes / high / rate if high > 0 else 0.0, top)
    if value == "efficiency":
        return Measured(v, low / p.p, high / p.p)
    return Measured(v, low, high)


def _interval(
    ctx: Context, p: Point, value: str, time: str, statistic: str
) -> tuple[float | None, float | None]:
    """The statistics module's interval of a time (seconds) or of a speedup."""

    def est(pid: str, col: str) -> stats.Estimate | None:
        row = ctx.by_point.get(pid)
        e = None if row is None else stats.row_estimate(row, statistic, prefix=col)
        return None if e is None or math.isnan(e.level) else e

    if value in ("speedup", "efficiency"):
        b = layouts.baseline_ids(ctx).get(p.id)
        num, den = (est(b, time) if b else None), est(p.id, time)
        r = stats.ratio(num, den) if num and den else None
        return (r.low, r.high) if r else (None, None)
    e = est(p.id, time if value == "throughput" else value)  # a rate: its time's
    return (e.low, e.high) if e else (None, None)


def _object_size(ctx: Context, p: Point) -> Measured:
    """Compiled size (text + data + bss) of the point's algorithm object file in its
    build, from the binary-size records of the build rules (ciphersweep.job.build)."""
    sizes = getattr(ctx, "_sizes_cache", None)
    if sizes is None:
        from ciphersweep.job import build

        sizes = build.load_sizes(ctx.cfg) if "build" in ctx.cfg else {}
        ctx._sizes_cache = sizes  # type: ignore[attr-defined]
    name = p.impl.replace("-", "_")
    for r in sizes.get(p.variant or "default", []):
        if r.get("part") == "object" and r.get("name") == name:
            total = float(r["total"])  # exact: an interval of width 0
            return Measured(total, total, total)
    return Measured(None, why=f"no size record of {name}.o in this campaign's build")


def _power(ctx: Context, p: Point, statistic: str) -> Measured:
    """Mean power of the timed region (W): its energy over its time, with the
    interval of the two (n/a where the machine has no energy source)."""
    j = measured(ctx, p, "joules", "J", statistic)
    t = measured(ctx, p, "t_total", "s", statistic)
    if j.value is None:
        return Measured(None, why=f"no energy measured ({j.why or 'no RAPL/likwid'})")
    if t.value is None or t.value <= 0:
        return Measured(None, why=t.why or "no time")
    return _factor(j, t, False)


def _enc_dec_ratio(ctx: Context, p: Point, statistic: str) -> Measured:
    """T(encrypt) / T(decrypt) of the same cell (the point and its other operation)."""

    def same(q: Point) -> tuple[Any, ...]:
        skip = ("op", "id", "command", "inject_fault")
        return tuple(v for k, v in q.as_dict().items() if k not in skip)

    twin = {q.op: q for q in ctx.points if same(q) == same(p)}
    if "encrypt" not in twin or "decrypt" not in twin:
        return Measured(None, why="needs both encrypt and decrypt points")
    te = measured(ctx, twin["encrypt"], "t_total", "s", statistic)
    td = measured(ctx, twin["decrypt"], "t_total", "s", statistic)
    if te.value is None or td.value is None or td.value <= 0:
        return Measured(None, why=te.why or td.why or "no time")
    return _factor(td, te, True)  # T(encrypt) / T(decrypt) with its interval


def cell(
    ctx: Context,
    where: dict[str, Any],
    measure: str,
    unit: str,
    statistic: str | None = None,
) -> Measured:
    """The one measured cell a selector names (n/a with the reason otherwise), in the
    campaign's statistic unless one is given."""
    pts = matching(ctx.points, where)
    if measure == "enc_dec_ratio":
        pts = [p for p in pts if p.op == "encrypt"]
    if not pts:
        return Measured(None, why="not measured by this campaign")
    if measure == "binary_bytes":  # one binary serves every point of an impl
        sizes = {measured(ctx, p, measure, unit).value for p in pts} - {None}
        if len(sizes) == 1:
            size = sizes.pop()
            return Measured(size, size, size)
    if len(pts) > 1:
        return Measured(
            None,
            why=f"{len(pts)} measured cells match (give more keys): {pts[0].id} ...",
        )
    return measured(ctx, pts[0], measure, unit, statistic)


# ------------------------------------------------------------------ rank agreement


def _defined(r: float) -> float | None:
    """A coefficient, or None where it is undefined (a side without two ranks)."""
    return None if math.isnan(r) else float(r)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties get mean ranks; SciPy's)."""
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    return _defined(scipy_stats.spearmanr(x, y).statistic)


def kendall(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b (SciPy's)."""
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    return _defined(scipy_stats.kendalltau(x, y, variant="b").statistic)


# ------------------------------------------------------------------ published tables


def published_rows(ctx: Context, pub: pd.DataFrame) -> list[dict[str, Any]]:
    """Paper value next to the measured one, cell by cell (one row per alternative
    measure where the paper's number could be more than one quantity)."""
    out: list[dict[str, Any]] = []
    for r in pub.to_dict("records"):
        paper = float(r["value"])
        unit = r["unit"]
        alts = str(r["measure"]).split("|")
        rows = []
        for m in alts:
            got = cell(ctx, selector(r), m, unit, r.get("statistic") or None)
            ratio = diff = None
            why = str(r.get("not_comparable") or "").strip()
            if why:  # measured and shown, but no ratio: the paper measured otherwise
                got.why = f"not comparable: {why}"
            elif got.value is not None and unit != "unknown" and paper:
                ratio = got.value / paper
                if unit == "x":
                    diff = got.value - paper
            rows.append(
                {
                    "source": r["source"],
                    "row": r["row"],
                    "column": r["column"],
                    "measure": m,
                    "unit": unit,
                    "paper": paper,
                    "measured": got.value,
                    "ci_low": got.low,
                    "ci_high": got.high,
                    "ratio": ratio,
                    "difference": diff,
                    "closest": "",
                    "note": got.why if why or got.value is None else r.get("note", ""),
                }
            )
        if len(rows) > 1:
            scored = [x for x in rows if x["ratio"]]
            if scored:
                best = min(scored, key=lambda x: abs(math.log(x["ratio"])))
                best["closest"] = "closest"
        out.extend(rows)
    return out


def rank_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rank agreement per published table and measure, over the cells both have."""
    groups: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for r in rows:
        if r["measured"] is None:
            continue
        groups.setdefault((r["source"], r["measure"]), []).append(
            (r["paper"], r["measured"])
        )
    out = []
    for (source, measure), pairs in groups.items():
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


# ------------------------------------------------------------------ claims


def _paper_value(pub: pd.DataFrame | None, ref: dict[str, Any]) -> float | None:
    if "const" in ref:
        return float(ref["const"])
    if pub is None:
        return None
    hit = pub[
        (pub["source"] == str(ref["source"]))
        & (pub["row"] == str(ref["row"]))
        & (pub["column"] == str(ref["column"]))
    ]
    return float(hit["value"].iloc[0]) if len(hit) else None


def _within(v: float, expect: float, tol: float) -> bool:
    return abs(v / expect - 1) <= tol if expect else abs(v) <= tol


def _stat(c: dict[str, Any]) -> str | None:
    """A claim's own statistic (None: the campaign's)."""
    return c.get("statistic") or None


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.4g}"


def _show(m: Measured) -> str:
    """A deciding number with its interval: ``v [low, high]``."""
    if m.value is None:
        return f"n/a ({m.why})"
    if m.low is None or m.high is None:
        return f"{m.value:.4g} [no interval]"
    return f"{m.value:.4g} [{m.low:.4g}, {m.high:.4g}]"


def _known(ms: Iterable[Measured]) -> bool:
    """Every number has an interval (perhaps unbounded)."""
    return all(m.low is not None and m.high is not None for m in ms)


def _bounded(ms: Iterable[Measured]) -> bool:
    """Every number has a finite interval (a verdict needs one)."""
    return all(
        m.low is not None and m.high is not None and math.isfinite(m.high) for m in ms
    )


NO_INTERVAL = (
    "not comparable: a deciding number has no finite interval (too few repetitions?)"
)


def _why_none(ctx: Context, c: dict[str, Any], sides: list[dict[str, Any]]) -> str:
    """Why no cell has every side: the first reason a side's points give."""
    where, q = selector(c.get("where", {})), c["quantity"]
    unit = c.get("unit", "s" if q in layouts.TIMES_ALL else "x")
    for side in sides:
        for p in matching(ctx.points, {**where, **selector(side)}):
            got = measured(ctx, p, q, unit, _stat(c))
            if got.value is None:
                return f"no cell has every side ({got.why})"
    return "no cell has every side"


def _claim_values(ctx: Context, c: dict[str, Any]) -> tuple[str, str]:
    base = selector(c.get("where", {}))
    q, tol = c["quantity"], float(c.get("tolerance", 0.1))
    parts, ok, missing, got_all = [], True, False, []
    for e in c["expect"]:
        got = cell(
            ctx, {**base, **selector(e["where"])}, q, c.get("unit", "x"), _stat(c)
        )
        label = " ".join(f"{k}={v}" for k, v in selector(e["where"]).items())
        parts.append(f"{label}: {_show(got)} (stated {e['value']})")
        if got.value is None:
            missing = True
            continue
        got_all.append(got)
        ok = ok and _within(got.value, float(e["value"]), tol)
    numbers = "; ".join(parts) + f"; tolerance ±{tol:.0%}"
    if missing and ok:
        return UNTESTED, numbers
    return (HOLDS if ok else FAILS) if _bounded(got_all) else NO_INTERVAL, numbers


def _groups(
    ctx: Context, c: dict[str, Any], sel: dict[str, Any]
) -> dict[tuple[str, ...], Measured]:
    """Cell value per group of the points a selector picks (the best of several); the
    groups are the values of the claim's ``pair_by`` axes (default: size and op)."""
    where, q = selector(c.get("where", {})), c["quantity"]
    axes = c.get("pair_by", ["size", "op"])
    unit = c.get("unit", "s" if q in layouts.TIMES_ALL else "x")
    out: dict[tuple[str, ...], Measured] = {}
    sign = 1 if q in LOWER_FIRST else -1
    for p in matching(ctx.points, {**where, **sel}):
        got = measured(ctx, p, q, unit, _stat(c))
        if got.value is None:
            continue
        key = tuple(layouts.axis_value(p, a, {}) for a in axes)
        if key not in out or sign * got.value < sign * (out[key].value or 0.0):
            out[key] = got
    return out


def _factor(good: Measured, bad: Measured, is_time: bool) -> Measured:
    """How many times better ``good`` is than ``bad``, with the interval-division
    interval of the two (an interval reaching 0 gives an unbounded side)."""
    num, den = (bad, good) if is_time else (good, bad)
    assert num.value is not None and den.value is not None
    v = num.value / den.value
    if not _known((num, den)):
        return Measured(v)
    high = num.high / den.low if den.low and den.low > 0 else math.inf  # type: ignore[operator]
    low = num.low / den.high if den.high and den.high > 0 else 0.0  # type: ignore[operator]
    return Measured(v, low, high)


def _difference(good: Measured, bad: Measured, is_time: bool) -> Measured:
    """``bad - good`` for a time (``good - bad`` for a rate), with its interval."""
    hi, lo = (bad, good) if is_time else (good, bad)
    assert hi.value is not None and lo.value is not None
    v = hi.value - lo.value
    if not _known((hi, lo)):
        return Measured(v)
    return Measured(v, hi.low - lo.high, hi.high - lo.low)  # type: ignore[operator]


def _mean_of(ms: Sequence[Measured]) -> Measured:
    """The mean of several cells; its interval the mean of their bounds."""
    v = sum(m.value or 0.0 for m in ms) / len(ms)
    if not _known(ms):
        return Measured(v)
    lo = sum(m.low or 0.0 for m in ms) / len(ms)
    return Measured(v, lo, sum(m.high or 0.0 for m in ms) / len(ms))


def _aggregate(
    agg: str, fast: list[Measured], slow: list[Measured], is_time: bool
) -> Measured:
    """One factor from the cells: the largest, smallest or median cell factor, or
    (``ratio_of_means``) the factor between the two sides' mean values."""
    if agg == "ratio_of_means":
        return _factor(_mean_of(fast), _mean_of(slow), is_time)
    if agg == "difference":  # how much better, in the quantity's unit
        return _difference(_mean_of(fast), _mean_of(slow), is_time)
    factors = sorted(
        (_factor(f, s, is_time) for f, s in zip(fast, slow, strict=True)),
        key=lambda m: m.value or 0.0,
    )
    if agg == "max":
        return factors[-1]
    if agg == "min":
        return factors[0]
    return factors[len(factors) // 2] if len(factors) % 2 else _median_pair(factors)


def _median_pair(factors: Sequence[Measured]) -> Measured:
    n = len(factors)
    return _mean_of(factors[n // 2 - 1 : n // 2 + 1])


def _claim_factor(ctx: Context, c: dict[str, Any]) -> tuple[str, str]:
    q = c["quantity"]
    fast = _groups(ctx, c, selector(c["faster"]))
    slow = _groups(ctx, c, selector(c["slower"]))
    common = sorted(set(fast) & set(slow))
    if not common:
        return UNTESTED, _why_none(ctx, c, [c["faster"], c["slower"]])
    is_time = q in LOWER_FIRST
    agg = c.get("aggregate", "median")
    f, s = [fast[k] for k in common], [slow[k] for k in common]
    got = _aggregate(agg, f, s, is_time)
    assert got.value is not None
    expect, tol = float(c["expect"]), float(c.get("tolerance", 0.25))
    ok = got.value >= expect if c.get("at_least") else _within(got.value, expect, tol)
    cells = ", ".join(
        f"{' '.join(k)}: {_factor(a, b, is_time).value:.3g}"
        for k, a, b in zip(common, f, s, strict=True)
    )
    rule = f">= {expect:g}" if c.get("at_least") else f"{expect:g} ±{tol:.0%}"
    what = "difference" if agg == "difference" else f"{agg} factor"
    numbers = f"{what} {_show(got)} (stated {rule}); {cells}"
    verdict = (HOLDS if ok else FAILS) if _bounded([got]) else NO_INTERVAL
    return verdict, numbers


def _claim_order(ctx: Context, c: dict[str, Any]) -> tuple[str, str]:
    q = c["quantity"]
    sides = [_groups(ctx, c, selector(s)) for s in c["order"]]
    common = sorted(set.intersection(*(set(s) for s in sides))) if sides else []
    if not common:
        return UNTESTED, _why_none(ctx, c, c["order"])
    sign = 1 if q in LOWER_FIRST else -1
    if c.get("aggregate") == "mean":  # "on average": the sides' means over the cells
        cells = [tuple(_mean_of([s[k] for k in common]) for s in sides)]
        labels = [f"mean over {len(common)} cells"]
    else:
        cells = [tuple(s[k] for s in sides) for k in common]
        labels = [" ".join(k) for k in common]
    bad = []
    for label, ms in zip(labels, cells, strict=True):
        vals = [sign * (m.value or 0.0) for m in ms]
        if vals != sorted(vals):
            bad.append(f"{label}: " + " / ".join(_show(m) for m in ms))
    every = [m for ms in cells for m in ms]
    if bad:
        verdict = FAILS if _bounded(every) else NO_INTERVAL
        return verdict, f"out of order in {len(bad)} of {len(cells)}: " + "; ".join(bad)
    shown = "; ".join(
        f"{lb}: " + " / ".join(_show(m) for m in ms)
        for lb, ms in list(zip(labels, cells, strict=True))[:3]
    )
    more = " ..." if len(cells) > 3 else ""
    verdict = HOLDS if _bounded(every) else NO_INTERVAL
    return verdict, f"in order in all {len(cells)}: {shown}{more}"


def _claim_paper(pub: pd.DataFrame | None, c: dict[str, Any]) -> tuple[str, str]:
    v = _paper_value(pub, c["value"])
    num, den = (_paper_value(pub, x) for x in c["ratio"])
    if v is None or num is None or den is None or den == 0:
        return UNTESTED, "a referenced published cell is missing"
    tol = float(c.get("tolerance", 0.01))
    ratio = num / den
    ok = _within(v, ratio, tol)
    verdict = "consistent" if ok else "the paper contradicts itself"
    return verdict, f"printed {v:.6g}; {num:.6g} / {den:.6g} = {ratio:.6g}"


def claim_rows(
    ctx: Context, claims: list[dict[str, Any]], pub: pd.DataFrame | None
) -> list[dict[str, Any]]:
    """Every claim: holds / does not hold here (or, for kind paper, whether the study's
    own numbers agree), with the numbers that decide it."""
    out = []
    for c in claims:
        kind = c["kind"]
        if c.get("not_comparable"):
            verdict, numbers = f"not comparable: {c['not_comparable']}", ""
        elif kind == "paper":
            verdict, numbers = _claim_paper(pub, c)
        elif kind == "values":
            verdict, numbers = _claim_values(ctx, c)
        elif kind == "factor":
            verdict, numbers = _claim_factor(ctx, c)
        else:
            verdict, numbers = _claim_order(ctx, c)
        if c.get("note"):
            numbers += f" ({c['note']})"
        out.append(
            {
                "id": c["id"],
                "claim": c["text"],
                "source": c.get("source", ""),
                "kind": kind,
                "verdict": verdict,
                "numbers": numbers,
            }
        )
    return out


# ------------------------------------------------------------------ another campaign

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


def campaign_rows(ctx: Context, other: pd.DataFrame) -> list[dict[str, Any]]:
    """This campaign's times next to another campaign's (the campaign's statistic),
    cell by cell."""
    theirs = {_keys(r): r for r in other.to_dict("records") if r.get("status") == "ok"}
    out = []
    for p in ctx.points:
        mine = ctx.by_point.get(p.id)
        if mine is None:
            continue
        ref = theirs.get(_keys(mine))
        if ref is None:
            continue
        got = measured(ctx, p, "t_total", "s")
        e = stats.row_estimate(ref, ctx.statistic)
        rv = None if e is None else e.value
        known = e is not None and not math.isnan(e.level)
        rlo, rhi = (e.low, e.high) if known and e else (None, None)
        verdict = ""
        if got.value is not None and rv:
            if None not in (got.low, got.high, rlo, rhi):
                overlap = got.low <= rhi and rlo <= got.high  # type: ignore[operator]
                verdict = (
                    "same within CIs"
                    if overlap
                    else ("slower" if got.value > rv else "faster")
                )
            else:
                verdict = "not comparable: a side has no interval (one repetition?)"
        out.append(
            {
                "point": p.id,
                "reference": rv,
                "reference_ci_low": rlo,
                "reference_ci_high": rhi,
                "measured": got.value,
                "ci_low": got.low,
                "ci_high": got.high,
                "ratio": got.value / rv if got.value is not None and rv else None,
                "verdict": verdict or (got.why or "n/a"),
            }
        )
    return out


# ------------------------------------------------------------------ references


def reference_rows(ctx: Context, refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-cell performance references with bounds (like ReFrame's ``reference``)."""
    out = []
    for i, ref in enumerate(refs):
        q = ref.get("quantity", "t_total")
        unit = ref.get("unit", "s")
        value = float(ref["value"])
        lower = value * (1 + float(ref.get("lower", -0.1)))
        up = ref.get("upper", 0.1)
        upper = None if up is None else value * (1 + float(up))
        pts = matching(ctx.points, selector(ref["where"]))
        if not pts:
            out.append(
                _ref_row(i, "-", q, unit, value, lower, upper, None, "no point matches")
            )
        for p in pts:
            got = measured(ctx, p, q, unit)
            if got.value is None:
                verdict = f"n/a: {got.why}"
            elif got.value < lower:
                verdict = "below"
            elif upper is not None and got.value > upper:
                verdict = "above"
            else:
                verdict = "within"
            out.append(
                _ref_row(i, p.id, q, unit, value, lower, upper, got.value, verdict)
            )
    return out


def _ref_row(
    i: int,
    pid: str,
    q: str,
    unit: str,
    value: float,
    lower: float,
    upper: float | None,
    got: float | None,
    verdict: str,
) -> dict[str, Any]:
    return {
        "reference": i,
        "point": pid,
        "quantity": q,
        "unit": unit,
        "value": value,
        "lower": lower,
        "upper": upper,
        "measured": got,
        "verdict": verdict,
    }


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


# ------------------------------------------------------------------ files


def check_references(path: str) -> list[str]:
    """Violations recorded in a references.csv (empty: every cell within bounds)."""
    import pandas as pd

    frame = pd.read_csv(path)
    rows = [
        {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in r.items()
        }
        for r in frame.to_dict("records")
    ]
    return violations(rows)


def output_names(cfg: dict[str, Any]) -> list[str]:
    """Comparison tables this campaign writes (results/<campaign>/compare/<name>.csv)."""
    comp = cfg.get("compare") or {}
    names = []
    if "published" in comp:
        names += ["published", "ranks"]
    if "claims" in comp:
        names.append("claims")
    if "campaign" in comp:
        names.append("campaign")
    if comp.get("references"):
        names.append("references")
    return names


def build(ctx: Context) -> dict[str, list[dict[str, Any]]]:
    """Every comparison the campaign's ``compare`` key asks for."""
    import pandas as pd

    comp = ctx.cfg.get("compare") or {}
    out: dict[str, list[dict[str, Any]]] = {}
    pub = load_published(comp["published"]) if "published" in comp else None
    if pub is not None:
        out["published"] = published_rows(ctx, pub)
        out["ranks"] = rank_rows(out["published"])
    if "claims" in comp:
        out["claims"] = claim_rows(ctx, load_claims(comp["claims"]), pub)
    if "campaign" in comp:
        other = pd.read_csv(Path(comp["campaign"]) / "summary.csv")
        out["campaign"] = campaign_rows(ctx, other)
    if comp.get("references"):
        out["references"] = reference_rows(ctx, comp["references"])
    return out


COLUMNS = {
    "published": [
        "source",
        "row",
        "column",
        "measure",
        "unit",
        "paper",
        "measured",
        "ci_low",
        "ci_high",
        "ratio",
        "difference",
        "closest",
        "note",
    ],
    "ranks": ["source", "measure", "cells", "spearman", "kendall"],
    "claims": ["id", "claim", "source", "kind", "verdict", "numbers"],
    "campaign": [
        "point",
        "reference",
        "reference_ci_low",
        "reference_ci_high",
        "measured",
        "ci_low",
        "ci_high",
        "ratio",
        "verdict",
    ],
    "references": [
        "reference",
        "point",
        "quantity",
        "unit",
        "value",
        "lower",
        "upper",
        "measured",
        "verdict",
    ],
}


def _markdown(name: str, rows: list[dict[str, Any]]) -> str:
    from tabulate import tabulate

    cols = COLUMNS[name]
    body = [
        [
            ""
            if r.get(c) is None
            else (f"{r[c]:.4g}" if isinstance(r[c], float) else md_escape(str(r[c])))
            for c in cols
        ]
        for r in rows
    ]
    return tabulate(body, headers=cols, tablefmt="github", disable_numparse=True) + "\n"


def write(
    cfg: dict[str, Any],
    points: Sequence[Point],
    summary_path: str,
    outdir: str,
    log: str | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """The ``compare`` rule: every comparison as CSV and Markdown."""
    import pandas as pd

    from ciphersweep.analysis.tables.model import Context

    ctx = Context(cfg, points, pd.read_csv(summary_path))
    result = build(ctx)
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in result.items():
        pd.DataFrame(rows, columns=COLUMNS[name]).to_csv(
            out / f"{name}.csv", index=False
        )
        (out / f"{name}.md").write_text(_markdown(name, rows))
    if log:
        with open(log, "w") as fh:
            for name, rows in result.items():
                print(f"## {name}\n\n{_markdown(name, rows)}", file=fh)
    return result


# ------------------------------------------------------------------ report tables


def register_tables(register: Any) -> None:
    """The ``published`` and ``claims`` tables beside the generic ones (tables/ and
    the report), for campaigns whose ``compare`` names a study's data."""
    from ciphersweep.analysis.tables.model import Builder

    def has(key: str) -> Any:
        return lambda cfg, points: key in (cfg.get("compare") or {})

    register(Builder("published", published_table, has("published")))
    register(Builder("claims", claims_table, has("claims")))


def published_table(ctx: Context) -> Table:
    """Paper value, measured value (in the paper's unit, with its interval), ratio and
    difference, one row per printed cell (and per quantity it could be)."""
    from ciphersweep.analysis.tables.model import NA, Table

    comp = ctx.cfg["compare"]
    rows = published_rows(ctx, load_published(comp["published"]))
    seen: dict[tuple[str, str, str], int] = {}
    for r in rows:
        k = (r["source"], r["row"], r["column"])
        seen[k] = seen.get(k, 0) + 1
    multi = {k for k, n in seen.items() if n > 1}
    cols = ["paper", "unit", "measured", "ratio", "difference", "closest"]
    t = Table(
        "published",
        "The study's published numbers next to the measured ones",
        [],
        cols,
        {},
        digits=4,
        row_header="table | row | column",
        caption=(
            "Measured values are in the study's unit; ratio = measured / paper; "
            "difference = measured - paper for speedups. Where a printed number could "
            "be more than one quantity (total or compute-only time), both are shown "
            "and the closer one is marked."
        ),
    )
    for r in rows:
        label = f"{r['source']} | {r['row']} | {r['column']}"
        if (r["source"], r["row"], r["column"]) in multi:
            label += f" [{r['measure']}]"
        t.rows.append(label)
        t.cells[(label, "paper")] = r["paper"]
        t.cells[(label, "unit")] = r["unit"]
        for c in ("measured", "ratio", "difference"):
            t.cells[(label, c)] = NA if r[c] is None else float(r[c])
        t.cells[(label, "closest")] = r["closest"]
        if r["note"]:
            where = "measured" if r["measured"] is None else "paper"
            t.notes[(label, where)] = r["note"]
        if r["ci_low"] is not None and r["ci_high"] is not None:
            t.intervals[(label, "measured")] = (r["ci_low"], r["ci_high"])
    return t


def claims_table(ctx: Context) -> Table:
    """Every stated finding: holds / does not hold here, with the deciding numbers."""
    from ciphersweep.analysis.tables.model import Table

    comp = ctx.cfg["compare"]
    pub = load_published(comp["published"]) if "published" in comp else None
    rows = claim_rows(ctx, load_claims(comp["claims"]), pub)
    cols = ["claim", "source", "verdict", "numbers"]
    t = Table(
        "claims",
        "The study's findings, checked on this campaign's measurements",
        [r["id"] for r in rows],
        cols,
        {},
        row_header="claim",
        caption=(
            "holds / does not hold here / not measured here, with the numbers that "
            "decide it; kind paper: whether the study's own printed numbers agree."
        ),
    )
    for r in rows:
        for c in cols:
            t.cells[(r["id"], c)] = r[c]
    return t
