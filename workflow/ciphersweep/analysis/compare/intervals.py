"""Arithmetic on measured values with their intervals (``Measured``: value, low, high):
the factor and the difference of two cells, the mean of several, and how a deciding
number is shown. An interval reaching 0 gives an unbounded factor; a value with no
interval gives a result with none."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import pairwise

from ciphersweep.analysis.tables.model import Measured


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
    if m.low is None or m.high is None:
        return f"{m.value:.4g} [no interval]"
    return f"{m.value:.4g} [{m.low:.4g}, {m.high:.4g}]"


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
    return Measured(v, low, high)


def difference(good: Measured, bad: Measured, is_time: bool) -> Measured:
    """``bad - good`` for a time (``good - bad`` for a rate), with its interval."""
    hi, lo = (bad, good) if is_time else (good, bad)
    assert hi.value is not None and lo.value is not None
    v = hi.value - lo.value
    if hi.low is None or hi.high is None or lo.low is None or lo.high is None:
        return Measured(v)
    return Measured(v, hi.low - lo.high, hi.high - lo.low)


def mean_of(ms: Sequence[Measured]) -> Measured:
    """The mean of several cells; its interval the mean of their bounds."""
    v = sum(m.value or 0.0 for m in ms) / len(ms)
    if not known(ms):
        return Measured(v)
    lo = sum(m.low or 0.0 for m in ms) / len(ms)
    return Measured(v, lo, sum(m.high or 0.0 for m in ms) / len(ms))


def decide(m: Measured, low: float, high: float) -> bool | None:
    """Whether a measured value lies in ``[low, high]``, judged on its interval: True
    when the whole interval lies inside, False when none of it does, None (undecided)
    when it reaches both inside and outside (or has no interval)."""
    if m.low is None or m.high is None:
        return None
    if low <= m.low and m.high <= high:
        return True
    if m.high < low or m.low > high:
        return False
    return None


def ordered(ms: Sequence[Measured], sign: int) -> bool | None:
    """Whether ``sign * value`` rises (or stays) along the cells, judged on their
    intervals: True when each interval lies at or below the next, False when some
    pair's intervals lie clear of each other the wrong way round, None (undecided)
    when neighbouring intervals overlap (or one has no interval)."""
    out: bool | None = True
    for a, b in pairwise(ms):
        if not known((a, b)):
            return None
        alo, ahi = sorted((sign * a.low, sign * a.high))  # type: ignore[operator]
        blo, bhi = sorted((sign * b.low, sign * b.high))  # type: ignore[operator]
        if alo > bhi:
            return False
        if ahi > blo:
            out = None
    return out


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
