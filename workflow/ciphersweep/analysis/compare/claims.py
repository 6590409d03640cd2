"""A study's stated findings checked on the campaign's measurements: a claim holds or
does not hold here, is not measured here, or cannot be compared (with the reason);
kind ``paper`` says whether the study's own printed numbers agree. A verdict is given
only with the finite interval of every number that decides it, and that interval
decides it: holds when it lies wholly within what was stated, does not hold when it
lies wholly outside, inconclusive (with the reason) when it reaches both (the one judgement rule, :mod:`ciphersweep.verdict.judge`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import pandas as pd

from ciphersweep.analysis.compare.intervals import (
    bounded,
    decide,
    difference,
    factor,
    in_order,
    mean_of,
    ordered,
    show,
)
from ciphersweep.analysis.compare.kinds import mismatch
from ciphersweep.analysis.compare.sources import (
    LOWER_FIRST,
    cell,
    matching,
    measured,
    selector,
)
from ciphersweep.analysis.tables import layouts
from ciphersweep.analysis.tables.model import Context, Measured
from ciphersweep.verdict import judge as judgement

HOLDS, FAILS = (
    judgement.CLAIM_WORDS[judgement.INSIDE],
    judgement.CLAIM_WORDS[judgement.ABOVE],
)
UNTESTED = "not measured here"
# the measured intervals reach both a holding and a failing value: no verdict
INCONCLUSIVE = judgement.INCONCLUSIVE
NO_INTERVAL = (
    "not comparable: a deciding number has no finite interval (too few repetitions?)"
)


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


def _unit(c: dict[str, Any]) -> str:
    """The unit a claim's numbers are in (seconds for a time, else a factor)."""
    return c.get("unit", "s" if c["quantity"] in layouts.TIMES_ALL else "x")


def _why_none(ctx: Context, c: dict[str, Any], sides: list[dict[str, Any]]) -> str:
    """Why no cell has every side: the first reason a side's points give."""
    where = selector(c.get("where", {}))
    for side in sides:
        for p in matching(ctx.points, {**where, **selector(side)}):
            got = measured(ctx, p, c["quantity"], _unit(c), _stat(c))
            if got.value is None:
                return f"no cell has every side ({got.why})"
    return "no cell has every side"


def _band(expect: float, tol: float) -> tuple[float, float]:
    """The values within ``tol`` (a fraction) of ``expect`` (``|v| <= tol`` for 0)."""
    if not expect:
        return -tol, tol
    ends = sorted((expect * (1 - tol), expect * (1 + tol)))
    return ends[0], ends[1]


def _outcome(decided: list[tuple[str, judgement.Judgement]], what: str) -> str:
    """Does not hold where a cell's interval lies clear of what was stated, holds
    where every cell's lies inside, inconclusive (naming the cells) otherwise."""
    pos = judgement.combine(j for _, j in decided)
    if pos == judgement.INCONCLUSIVE:
        open_ = [lb for lb, j in decided if j.position == judgement.INCONCLUSIVE]
        more = " ..." if len(open_) > 3 else ""
        return f"{INCONCLUSIVE}: {what} in {'; '.join(open_[:3])}{more}"
    return judgement.CLAIM_WORDS[pos]


def _claim_values(ctx: Context, c: dict[str, Any]) -> tuple[str, str]:
    base = selector(c.get("where", {}))
    q, tol = c["quantity"], float(c.get("tolerance", 0.1))
    parts, decided, missing, got_all = [], [], False, []
    for e in c["expect"]:
        got = cell(
            ctx, {**base, **selector(e["where"])}, q, c.get("unit", "x"), _stat(c)
        )
        label = " ".join(f"{k}={v}" for k, v in selector(e["where"]).items())
        parts.append(f"{label}: {show(got)} (stated {e['value']})")
        if got.value is None:
            missing = True
            continue
        got_all.append(got)
        decided.append((label, decide(got, *_band(float(e["value"]), tol))))
    level = judgement.joint_level(m.level for m in got_all)
    numbers = (
        "; ".join(parts) + f"; tolerance ±{tol:.0%}; {judgement.level_text(level)}"
    )
    if missing and all(j.word(judgement.CLAIM_WORDS) != FAILS for _, j in decided):
        return UNTESTED, numbers
    if not bounded(got_all):
        return NO_INTERVAL, numbers
    what = f"the interval reaches both within and beyond ±{tol:.0%}"
    return _outcome(decided, what), numbers


def _groups(
    ctx: Context, c: dict[str, Any], sel: dict[str, Any]
) -> dict[tuple[str, ...], Measured]:
    """Cell value per group of the points a selector picks (the best of several); the
    groups are the values of the claim's ``pair_by`` axes (default: size and op)."""
    where, q = selector(c.get("where", {})), c["quantity"]
    axes = c.get("pair_by", ["size", "op"])
    out: dict[tuple[str, ...], Measured] = {}
    sign = 1 if q in LOWER_FIRST else -1
    for p in matching(ctx.points, {**where, **sel}):
        got = measured(ctx, p, q, _unit(c), _stat(c))
        if got.value is None:
            continue
        key = tuple(layouts.axis_value(p, a, {}) for a in axes)
        if key not in out or sign * got.value < sign * (out[key].value or 0.0):
            out[key] = got
    return out


def _aggregate(
    agg: str, fast: list[Measured], slow: list[Measured], is_time: bool
) -> Measured:
    """One factor from the cells: the largest, smallest or median cell factor, or
    (``ratio_of_means``) the factor between the two sides' mean values."""
    if agg == "ratio_of_means":
        return factor(mean_of(fast), mean_of(slow), is_time)
    if agg == "difference":  # how much better, in the quantity's unit
        return difference(mean_of(fast), mean_of(slow), is_time)
    factors = sorted(
        (factor(f, s, is_time) for f, s in zip(fast, slow, strict=True)),
        key=lambda m: m.value or 0.0,
    )
    if agg == "max":
        return factors[-1]
    if agg == "min":
        return factors[0]
    n = len(factors)
    return factors[n // 2] if n % 2 else mean_of(factors[n // 2 - 1 : n // 2 + 1])


def _sides(
    ctx: Context, c: dict[str, Any]
) -> tuple[list[tuple[str, ...]], list[Measured], list[Measured]]:
    """A factor claim's groups that have both sides, and each side's cells in them."""
    fast = _groups(ctx, c, selector(c["faster"]))
    slow = _groups(ctx, c, selector(c["slower"]))
    common = sorted(set(fast) & set(slow))
    return common, [fast[k] for k in common], [slow[k] for k in common]


def _claim_each(ctx: Context, c: dict[str, Any]) -> tuple[str, str]:
    """A factor stated of every cell (``aggregate: each``: "consistently about 4.5
    times"): each cell's factor judged on its own interval; holds where every one lies
    within what was stated, does not hold where one lies outside."""
    common, f, s = _sides(ctx, c)
    if not common:
        return UNTESTED, _why_none(ctx, c, [c["faster"], c["slower"]])
    is_time = c["quantity"] in LOWER_FIRST
    expect, tol = float(c["expect"]), float(c.get("tolerance", 0.25))
    got = {
        " ".join(k): factor(a, b, is_time) for k, a, b in zip(common, f, s, strict=True)
    }
    rule = f"{expect:g} ±{tol:.0%}"
    at = judgement.level_text(judgement.joint_level(m.level for m in got.values()))
    shown = ", ".join(f"{k}: {show(m)}" for k, m in got.items())
    numbers = f"factor in each cell (stated {rule}), all at {at}: {shown}"
    if not bounded(got.values()):
        return NO_INTERVAL, numbers
    decided = [(k, decide(m, *_band(expect, tol))) for k, m in got.items()]
    return _outcome(decided, f"the interval reaches both sides of {rule}"), numbers


def _claim_factor(ctx: Context, c: dict[str, Any]) -> tuple[str, str]:
    if c.get("aggregate") == "each":
        return _claim_each(ctx, c)
    common, f, s = _sides(ctx, c)
    if not common:
        return UNTESTED, _why_none(ctx, c, [c["faster"], c["slower"]])
    is_time = c["quantity"] in LOWER_FIRST
    agg = c.get("aggregate", "median")
    got = _aggregate(agg, f, s, is_time)
    assert got.value is not None
    expect, tol = float(c["expect"]), float(c.get("tolerance", 0.25))
    per_cell = difference if agg == "difference" else factor
    cells = ", ".join(
        f"{' '.join(k)}: {per_cell(a, b, is_time).value:.3g}"
        for k, a, b in zip(common, f, s, strict=True)
    )
    if c.get("at_least"):
        rule = f">= {expect:g}"
    elif not expect:  # a band around 0 (_band): the tolerance in the claim's unit
        rule = f"0 ±{tol:g} {_unit(c)}"
    else:
        rule = f"{expect:g} ±{tol:.0%}"
    what = "difference" if agg == "difference" else f"{agg} factor"
    at = judgement.level_text(got.level)
    numbers = f"{what} {show(got)} at {at} (stated {rule}); {cells}"
    if not bounded([got]):
        return NO_INTERVAL, numbers
    band = (expect, math.inf) if c.get("at_least") else _band(expect, tol)
    j = decide(got, *band)
    if j.position == judgement.INCONCLUSIVE:
        return f"{INCONCLUSIVE}: its interval reaches both sides of {rule}", numbers
    return j.word(judgement.CLAIM_WORDS), numbers


def _tiers(c: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """An order's tiers, best first: an item is one selector, or a list of selectors
    whose members are unordered among themselves but each lies at or beyond every
    member of the tier before ("3DES consumes the most": the others, then 3DES)."""
    return [list(t) if isinstance(t, list) else [t] for t in c["order"]]


def _tier_pairs(tiers: Sequence[Sequence[Any]]) -> list[tuple[Any, Any]]:
    """Every (a, b) with a in one tier and b in the next: what the order states."""
    return [(a, b) for t, u in pairwise(tiers) for a in t for b in u]


def _order_cells(
    c: dict[str, Any],
    tiers: list[list[dict[tuple[str, ...], Measured]]],
    common: list[Any],
) -> tuple[list[str], list[list[list[Measured]]]]:
    """The cells an order is checked in, each as its tiers' numbers: each common
    group, or ("on average") the sides' means over them."""
    if c.get("aggregate") == "mean":
        mean = [[mean_of([s[k] for k in common]) for s in t] for t in tiers]
        return [f"mean over {len(common)} cells"], [mean]
    return [" ".join(k) for k in common], [
        [[s[k] for s in t] for t in tiers] for k in common
    ]


def _shown(tiers: list[list[Measured]]) -> str:
    return " / ".join(
        show(t[0]) if len(t) == 1 else "{" + ", ".join(show(m) for m in t) + "}"
        for t in tiers
    )


def _listed(cells: list[tuple[str, list[list[Measured]]]], limit: int = 0) -> str:
    """Cells with their tiers' numbers (the first ``limit`` of them, 0: all)."""
    shown = cells[:limit] if limit else cells
    more = " ..." if len(shown) < len(cells) else ""
    return "; ".join(f"{lb}: {_shown(ts)}" for lb, ts in shown) + more


def _in_order(tiers: list[list[Measured]], sign: int) -> bool | None:
    """Judged on the intervals, every pair across neighbouring tiers (``ordered``):
    False if one pair is clear the wrong way round, None if one overlaps."""
    outcomes = [in_order(ordered(pair, sign)) for pair in _tier_pairs(tiers)]
    if False in outcomes:
        return False
    return None if None in outcomes else True


def _points_in_order(tiers: list[list[Measured]], sign: int) -> bool:
    """On the point values alone (no intervals): every pair in order."""
    return all(
        sign * (a.value or 0.0) <= sign * (b.value or 0.0)
        for a, b in _tier_pairs(tiers)
    )


def _claim_order(ctx: Context, c: dict[str, Any]) -> tuple[str, str]:
    specs = _tiers(c)
    tiers = [[_groups(ctx, c, selector(s)) for s in t] for t in specs]
    sides = [s for t in tiers for s in t]
    common = sorted(set.intersection(*(set(s) for s in sides))) if sides else []
    if not common:
        return UNTESTED, _why_none(ctx, c, [s for t in specs for s in t])
    sign = 1 if c["quantity"] in LOWER_FIRST else -1
    labels, values = _order_cells(c, tiers, common)
    cells, n = list(zip(labels, values, strict=True)), len(values)
    if not bounded(m for ts in values for t in ts for m in t):  # point values only
        bad = [(lb, ts) for lb, ts in cells if not _points_in_order(ts, sign)]
        if bad:
            return NO_INTERVAL, f"out of order in {len(bad)} of {n}: {_listed(bad)}"
        return NO_INTERVAL, f"in order in all {n}: {_listed(cells, 3)}"
    judged = [(lb, ts, _in_order(ts, sign)) for lb, ts in cells]
    # each cell's pairs are judged at the joint level of its intervals
    lv = min(
        (judgement.joint_level(m.level for t in ts for m in t) or 0.0)
        for _, ts in cells
    )
    at = f"; each cell at {judgement.level_text(lv)} or more"
    bad = [(lb, ts) for lb, ts, ok in judged if ok is False]
    if bad:
        return FAILS, f"out of order in {len(bad)} of {n}: {_listed(bad)}{at}"
    open_ = [(lb, ts) for lb, ts, ok in judged if ok is None]
    if open_:
        k = len(open_)
        verdict = f"{INCONCLUSIVE}: the intervals overlap in {k} of {n} cells"
        return verdict, f"intervals overlap in {k} of {n}: {_listed(open_)}{at}"
    return HOLDS, f"in order in all {n}: {_listed(cells, 3)}{at}"


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


def _stated_pairs(c: dict[str, Any]) -> dict[tuple[str, ...], tuple[str, str]]:
    """The pairs of cells (a ahead of b) an order claim states: each pair's cells
    within the claim's ``where`` (to find it in another claim), and its two sides."""
    where = selector(c.get("where", {}))

    def cell(side: dict[str, Any]) -> str:
        return repr(sorted({**where, **selector(side)}.items()))

    def shown(side: dict[str, Any]) -> str:
        return " ".join(f"{k}={v}" for k, v in selector(side).items())

    return {(cell(a), cell(b)): (shown(a), shown(b)) for a, b in _tier_pairs(_tiers(c))}


def _claim_contradiction(
    c: dict[str, Any], claims: Sequence[dict[str, Any]]
) -> tuple[str, str]:
    """Two order claims of one paper (``contradicts``) that state a pair of cells
    both ways round: the paper contradicts itself."""
    by_id = {x["id"]: x for x in claims}
    a, b = (by_id[i] for i in c["contradicts"])
    first, later = _stated_pairs(a), _stated_pairs(b)
    both = sorted(first[p] for p in first if p[::-1] in later)
    if not both:
        return "consistent", f"{a['id']} and {b['id']} state no pair both ways round"
    (x, y), more = both[0], len(both) - 1
    na, nb = (
        f"{o['id']} ({o['source']})" if o.get("source") else o["id"] for o in (a, b)
    )
    return "the paper contradicts itself", (
        f"{na} puts {x} ahead of {y}; {nb} puts {y} ahead of {x}"
        + (f" (and {more} more {'pair' if more == 1 else 'pairs'})" if more else "")
    )


def _judge(
    ctx: Context,
    c: dict[str, Any],
    pub: pd.DataFrame | None,
    claims: Sequence[dict[str, Any]] = (),
) -> tuple[str, str]:
    """A claim's verdict and the numbers that decide it."""
    if c.get("not_comparable"):
        return f"not comparable: {c['not_comparable']}", ""
    if "contradicts" in c:
        return _claim_contradiction(c, claims)
    if c["kind"] == "paper":
        return _claim_paper(pub, c)
    differs = mismatch(ctx, c)  # a side measured on another kind of implementation
    if differs:
        return differs, ""
    if c["kind"] == "values":
        return _claim_values(ctx, c)
    if c["kind"] == "factor":
        return _claim_factor(ctx, c)
    return _claim_order(ctx, c)


def _source(c: dict[str, Any]) -> str:
    """Where a claim is from; ``own: true``: a check the project adds, not the study's
    finding (the section it is built on follows)."""
    src = str(c.get("source", ""))
    if not c.get("own"):
        return src
    return "the project's own" + (f", after {src}" if src else "")


def claim_rows(
    ctx: Context, claims: Sequence[dict[str, Any]], pub: pd.DataFrame | None
) -> list[dict[str, Any]]:
    """Every claim: holds / does not hold here (or, for kind paper, whether the study's
    own numbers agree), with the numbers that decide it."""
    out = []
    for c in claims:
        verdict, numbers = _judge(ctx, c, pub, claims)
        if c.get("note"):
            numbers += f" ({c['note']})"
        out.append(
            {
                "id": c["id"],
                "claim": c["text"],
                "source": _source(c),
                "kind": c["kind"],
                "verdict": verdict,
                "numbers": numbers,
            }
        )
    return out
