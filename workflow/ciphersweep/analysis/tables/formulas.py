"""The cell formulas, one place each: speedup S = Ts / Tp, efficiency E = S / P,
throughput = bytes / time (its arithmetic, shared with the summary and the plots:
:func:`ciphersweep.core.units.rate`), the part of a CUDA run's timed region its own
timers leave out, the n/a of a missing or failed baseline (:func:`baseline_row`), and
the cells built from them with their intervals (:mod:`ciphersweep.core.stats`) in the
campaign's statistic. Every table that shows one of these quantities (the generic
tables, the layouts, the comparisons) computes it here.
"""

from __future__ import annotations

import math
from typing import Any

from ciphersweep.analysis.tables.model import NA, Context, Measured, is_na
from ciphersweep.core import stats, units
from ciphersweep.plan.sweep import Point


def speedup(ts: float | None, tp: float | None) -> float | None:
    """Speedup S = Ts / Tp (Ts: the baseline's time, Tp: the point's time, both the
    campaign's statistic)."""
    if ts is None or tp is None or is_na(ts) or is_na(tp) or tp <= 0:
        return None
    return ts / tp


def efficiency(s: float | None, p: int | None) -> float | None:
    """Efficiency E = S / P."""
    if s is None or not p or p <= 0:
        return None
    return s / p


# the parts of a CUDA run's timed region its own timers measure
CUDA_TIMED = ("t_h2d", "t_compute", "t_d2h")
UNTIMED = "other (launch, synchronisation, untimed)"
NOT_RECORDED = "not recorded"  # how untimed_part's note starts where a part is missing
ROUNDING = 1e-9  # relative: a sum of parts this far above the total is the total


def untimed_part(r: dict[str, Any], statistic: str) -> float | tuple[str, str]:
    """What the timed region holds beyond the parts the kernel times itself:
    ``t_total - (t_h2d + t_compute + t_d2h)`` in ``statistic`` (kernel launches,
    synchronisation, allocation, whatever the kernel's timers leave out), in seconds;
    (n/a, why) where a part was not recorded or the parts add up to more than the total
    (a median of a sum need not be the sum of the medians)."""
    total = stats.number(r.get(f"t_total_{statistic}"))
    parts = [stats.number(r.get(f"{c}_{statistic}")) for c in CUDA_TIMED]
    gone = [c for c, v in zip(CUDA_TIMED, parts) if v is None]
    if total is None or gone:
        return (NA, f"{NOT_RECORDED}: {', '.join(gone or ['t_total'])}")
    rest = total - math.fsum(v for v in parts if v is not None)
    if rest < 0 and -rest <= ROUNDING * total:  # the parts are the whole: nothing left
        return 0.0
    if rest < 0:
        why = (
            f"the parts' {statistic}s add up to {total - rest:.3g} s, more than the "
            f"total's {total:.3g} s"
        )
        return (NA, why)
    return rest


def time_cell(ctx: Context, r: dict[str, Any]) -> Measured | None:
    """The point's time (campaign statistic) with its interval, flagged when wide."""
    e = ctx.estimate(r)
    if e is None:
        return None
    note = stats.wide_note(e, ctx.target, ctx.statistic) if e.wide(ctx.target) else None
    return Measured(e.value, e.low, e.high, note)


def ratio_cell(
    ctx: Context, base_row: dict[str, Any], r: dict[str, Any], scale: float = 1.0
) -> Measured | None:
    """Ts / (scale Tp) with the interval from both times' intervals
    (:func:`ciphersweep.core.stats.ratio`): a speedup, or an efficiency with scale P."""
    num, den = ctx.estimate(base_row), ctx.estimate(r)
    if num is None or den is None or speedup(num.value, den.value) is None:
        return None
    q = stats.ratio(num, den, scale)
    if q is None:
        return None
    wide = stats.ratio_wide(num, den, ctx.target)
    note = stats.ratio_note(num, den, q, ctx.target) if wide else None
    return Measured(q.value, q.low, q.high, note)


def throughput_cell(ctx: Context, p: Point, r: dict[str, Any]) -> Measured | None:
    """Bytes / time in MB/s; its interval from the time's (high time, low rate)."""
    t = time_cell(ctx, r)
    v = units.rate(p.size_bytes, t.value if t else None)
    if t is None or v is None:
        return None
    hi = units.rate(p.size_bytes, t.low) or math.inf
    return Measured(v, units.rate(p.size_bytes, t.high) or 0.0, hi, t.note)


def baseline_row(ctx: Context, p: Point) -> dict[str, Any] | tuple[str, str]:
    """The summary row of a point's baseline, or (n/a, why) when it has none that ran:
    the one wording of a missing or failed baseline, for every table that divides by it
    (the generic tables and the layouts)."""
    b = ctx.baseline.get(p.id)
    if b is None:
        bcfg = ctx.cfg.get("baseline", {})
        why = (
            f"no {bcfg.get('backend', 'seq')} baseline with impl "
            f"{bcfg.get('impl') or p.impl}, mode {p.mode}"
        )
        return (NA, why)
    brow = ctx.by_point.get(b)
    if brow is None or brow.get("status") != "ok":
        return (NA, f"baseline {b} failed")
    return brow


def speedup_cell(
    ctx: Context, p: Point, r: dict[str, Any], scale: float = 1.0
) -> Measured | tuple[str, str] | None:
    """A point's speedup (scale 1) or efficiency (scale P) against its baseline."""
    brow = baseline_row(ctx, p)
    if isinstance(brow, tuple):
        return brow
    return ratio_cell(ctx, brow, r, scale)
