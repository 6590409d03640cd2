"""THE one judgement rule of every verdict the project prints: a study's claim, a
performance reference, a regression between runs, an order of implementations.

A verdict is decided from an interval, never from a point estimate, against a band:

* **inside** the band when the whole interval lies within it (a claim holds, a cell is
  within its reference, a regression factor shows no change);
* **above** / **below** when the whole interval lies beyond one end of the band (a
  regression / an improvement; a cell above / below its reference; a claim that does
  not hold);
* **inconclusive** when the interval reaches both inside and outside the band (or both
  sides of it): the data cannot tell, and the verdict says so instead of guessing.

The band's ends belong to it: an interval that only touches an end from outside
reaches the band, and is inconclusive. Every judgement carries the interval that
decided it and the level that interval was actually computed at, and words itself with
both (:meth:`Judgement.shown`). Callers only name their four outcomes
(:data:`REGRESSION_WORDS`, :data:`CLAIM_WORDS`, :data:`REFERENCE_WORDS`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

INSIDE, ABOVE, BELOW, INCONCLUSIVE, NA = (
    "inside",
    "above",
    "below",
    "inconclusive",
    "n/a",
)
POSITIONS = (INSIDE, ABOVE, BELOW, INCONCLUSIVE, NA)

# what each caller calls the positions of its interval against its band
REGRESSION_WORDS: Mapping[str, str] = {
    ABOVE: "regression",
    BELOW: "improvement",
    INSIDE: "no change",
    INCONCLUSIVE: INCONCLUSIVE,
    NA: NA,
}
CLAIM_WORDS: Mapping[str, str] = {
    INSIDE: "holds",
    ABOVE: "does not hold",
    BELOW: "does not hold",
    INCONCLUSIVE: INCONCLUSIVE,
    NA: NA,
}
REFERENCE_WORDS: Mapping[str, str] = {
    INSIDE: "within",
    ABOVE: "above",
    BELOW: "below",
    INCONCLUSIVE: INCONCLUSIVE,
    NA: NA,
}


@dataclass(frozen=True)
class Judgement:
    """Where an interval lies against a band, with what decided it."""

    position: str
    low: float | None = None
    high: float | None = None
    level: float | None = None
    why: str = ""

    def word(self, words: Mapping[str, str]) -> str:
        """The caller's word for this position."""
        return words[self.position]

    def shown(self, words: Mapping[str, str], unit: str = "") -> str:
        """``inconclusive: [0.86, 2.22]x at level >= 90%`` (n/a: with its reason)."""
        if self.position == NA:
            return f"{NA}: {self.why}" if self.why else NA
        return f"{words[self.position]}: {interval_text(self.low, self.high, unit)} at {level_text(self.level)}"


def interval_text(low: float | None, high: float | None, unit: str = "") -> str:
    """``[0.86, 2.22]x``; ``[no interval]`` when a bound is missing."""
    if low is None or high is None:
        return "[no interval]"
    return f"[{low:.4g}, {high:.4g}]{unit}"


def level_text(level: float | None) -> str:
    """The level an interval was computed at, as printed beside every verdict."""
    if level is None or math.isnan(level):
        return "an unknown level"
    return f"level {100 * level:.3g}%"


def judge(
    low: float | None,
    high: float | None,
    band: tuple[float, float],
    level: float | None = None,
) -> Judgement:
    """The position of the interval ``[low, high]`` against ``band`` (its ends may be
    infinite): inside, above, below, or inconclusive when it reaches both inside and
    outside the band. No interval (a bound missing or NaN): n/a."""
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return Judgement(NA, why="no interval")
    lo, hi = sorted((low, high))
    b_lo, b_hi = sorted(band)
    if b_lo <= lo and hi <= b_hi:
        pos = INSIDE
    elif lo > b_hi:
        pos = ABOVE
    elif hi < b_lo:
        pos = BELOW
    else:
        pos = INCONCLUSIVE
    return Judgement(pos, lo, hi, level)


def relative_band(drift: float) -> tuple[float, float]:
    """The band of a factor that counts as "no change" for a relative drift:
    ``[1 / (1 + drift), 1 + drift]``."""
    return 1.0 / (1.0 + drift), 1.0 + drift


def joint_level(levels: Iterable[float | None]) -> float | None:
    """The level of an interval built from several independent intervals (a ratio, a
    difference, a mean of bounds): the product of their levels, the probability that
    every one holds its true value (None when one is unknown)."""
    out = 1.0
    for lv in levels:
        if lv is None or math.isnan(lv):
            return None
        out *= lv
    return out


def combine(judgements: Iterable[Judgement], good: Iterable[str] = (INSIDE,)) -> str:
    """One position for several intervals judged alike (a claim over many cells, an
    order over many pairs): the first position that is neither ``good`` nor
    inconclusive when there is one (one cell clear of what was stated decides),
    inconclusive when one reaches both sides, else the first good position; n/a when
    none was judged."""
    ok = set(good)
    positions = [j.position for j in judgements if j.position != NA]
    bad = [p for p in positions if p not in ok and p != INCONCLUSIVE]
    if bad:
        return bad[0]
    if INCONCLUSIVE in positions:
        return INCONCLUSIVE
    return positions[0] if positions else NA
