"""Arithmetic on measured values with their intervals (``Measured``: value, low, high):
the factor and the difference of two cells, the mean of several, and how a deciding
number is shown. An interval reaching 0 gives an unbounded factor; a value with no
interval gives a result with none."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import pairwise

from ciphersweep.analysis.tables.model import Measured
from ciphersweep.verdict import judge as judgement


def known(ms: Iterable[Measured]) -> bool:
    """Every number has an interval (perhaps unbounded)."""
    return all(m.low is not None and m.high is not None for m in ms)


def bounded(ms: Iterable[Measured]) -> bool:
    """Every number has a finite interval (a verdict needs one)."""
    return all(
        m.low is not None and m.high is not None and math.isfinite(m.high) for m in ms
    )


def show(m: Measured) -> str:
    """A deciding number with its interval: ``v [low, high]``."""
    if m.value is None:
        return f"n/a ({m.why})"
    return f"{m.value:.4g} {judgement.interval_text(m.low, m.high)}"


def factor(good: Measured, bad: Measured, is_time: bool) -> Measured:
    """How many times better ``good`` is than ``bad``, with the interval-division
    interval of the two (an interval reaching 0 gives an unbounded side)."""
    num, den = (bad, good) if is_time else (good, bad)
    assert num.value is not None and den.value is not None
    v = num.value / den.value
    if num.low is None or num.high is None or den.low is None or den.high is None:
        return Measured(v)
    high = num.high / den.low if den.low > 0 else math.inf
    low = num.low / den.high if den.high > 0 else 0.0
    return Measured(v, low, high, level=judgement.joint_level((num.level, den.level)))


def difference(good: Measured, bad: Measured, is_time: bool) -> Measured:
    """``bad - good`` for a time (``good - bad`` for a rate), with its interval."""
    hi, lo = (bad, good) if is_time else (good, bad)
    assert hi.value is not None and lo.value is not None
    v = hi.value - lo.value
    if hi.low is None or hi.high is None or lo.low is None or lo.high is None:
        return Measured(v)
    level = judgement.joint_level((hi.level, lo.level))
    return Measured(v, hi.low - lo.high, hi.high - lo.low, level=level)


def mean_of(ms: Sequence[Measured]) -> Measured:
    """The mean of several cells; its interval the mean of their bounds."""
    v = sum(m.value or 0.0 for m in ms) / len(ms)
    if not known(ms):
        return Measured(v)
    lo = sum(m.low or 0.0 for m in ms) / len(ms)
    hi = sum(m.high or 0.0 for m in ms) / len(ms)
    return Measured(v, lo, hi, level=judgement.joint_level(m.level for m in ms))


def decide(m: Measured, low: float, high: float) -> judgement.Judgement:
    """Where a measured value lies against ``[low, high]``, judged on its interval by
    the one judgement rule (:func:`ciphersweep.verdict.judge.judge`): inside, above,
    below, or inconclusive when it reaches both inside and outside (n/a without an
    interval)."""
    return judgement.judge(m.low, m.high, (low, high), m.level)


def ordered(ms: Sequence[Measured], sign: int) -> judgement.Judgement:
    """Whether ``sign * value`` rises (or stays) along the cells, judged on their
    intervals by the one judgement rule: each neighbouring pair's difference
    ``sign * (next - this)`` against 0 (above: in order; below: clear of each other the
    wrong way round; inconclusive: the intervals overlap). The cells' position is the
    worst pair's (:func:`ciphersweep.verdict.judge.combine`); n/a when one has no
    interval."""
    pairs = []
    for a, b in pairwise(ms):
        if not known((a, b)):
            return judgement.Judgement(judgement.NA, why="no interval")
        alo, ahi = sorted((sign * a.low, sign * a.high))  # type: ignore[operator]
        blo, bhi = sorted((sign * b.low, sign * b.high))  # type: ignore[operator]
        level = judgement.joint_level((a.level, b.level))
        pairs.append(judgement.judge(blo - ahi, bhi - alo, (0.0, 0.0), level))
    pos = judgement.combine(pairs, good=(judgement.ABOVE, judgement.INSIDE))
    if pos == judgement.INSIDE:  # equal exact values: at or below the next
        pos = judgement.ABOVE
    levels = [p.level for p in pairs]
    return judgement.Judgement(
        pos, level=judgement.joint_level(levels) if pairs else 1.0
    )


def in_order(j: judgement.Judgement) -> bool | None:
    """An order's judgement as True (in order), False (out of order) or None
    (inconclusive, or no interval)."""
    if j.position in (judgement.ABOVE, judgement.INSIDE):
        return True
    return False if j.position == judgement.BELOW else None


def log_distance(m: Measured, paper: float) -> tuple[float, float] | None:
    """The range of ``|log(measured / paper)|`` over the measured interval (how far
    from the printed number it may be), None without a finite interval."""
    if m.low is None or m.high is None or not math.isfinite(m.high) or paper <= 0:
        return None
    if m.high <= 0:
        return None
    a = math.log(m.low / paper) if m.low > 0 else -math.inf
    b = math.log(m.high / paper)
    if a <= 0 <= b:
        return 0.0, max(-a, b)
    return min(abs(a), abs(b)), max(abs(a), abs(b))
