"""Arithmetic on measured values with their intervals (``Measured``: value, low, high):
the factor and the difference of two cells, the mean of several, and how a deciding
number is shown. An interval reaching 0 gives an unbounded factor; a value with no
interval gives a result with none."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

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
