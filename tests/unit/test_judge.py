"""The one judgement rule (ciphersweep.verdict.judge) and the intervals it is given
(ciphersweep.core.stats, from SciPy where SciPy has them)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ciphersweep.core import stats
from ciphersweep.verdict import judge as j
from scipy import stats as sps


@pytest.mark.parametrize(
    ("low", "high", "band", "position"),
    [
        (0.95, 1.05, (0.9, 1.1), j.INSIDE),
        (1.2, 1.5, (0.9, 1.1), j.ABOVE),
        (0.5, 0.8, (0.9, 1.1), j.BELOW),
        (0.86, 2.22, (0.9, 1.1), j.INCONCLUSIVE),  # reaches both sides
        (1.05, 1.5, (0.9, 1.1), j.INCONCLUSIVE),  # inside and above
        (1.1, 1.5, (0.9, 1.1), j.INCONCLUSIVE),  # touches the band's end
        (2.0, 3.0, (1.5, math.inf), j.INSIDE),  # an "at least" band
        (1.0, 1.4, (1.5, math.inf), j.BELOW),
        (None, 1.0, (0.9, 1.1), j.NA),
        (math.nan, 1.0, (0.9, 1.1), j.NA),
    ],
)
def test_four_outcomes_and_no_interval(low, high, band, position) -> None:
    got = j.judge(low, high, band, 0.9)
    assert got.position == position
    if position != j.NA:
        assert got.shown(j.REGRESSION_WORDS).endswith("at level 90%")


def test_each_caller_words_the_same_positions() -> None:
    above = j.judge(1.2, 1.3, j.relative_band(0.1), 0.9025)
    assert above.word(j.REGRESSION_WORDS) == "regression"
    assert above.word(j.CLAIM_WORDS) == "does not hold"
    assert above.word(j.REFERENCE_WORDS) == "above"
    assert above.shown(j.REGRESSION_WORDS, "x") == (
        "regression: [1.2, 1.3]x at level 90.2%"
    )
    unsure = j.judge(0.8, 1.3, j.relative_band(0.1))
    assert {unsure.word(w) for w in (j.REGRESSION_WORDS, j.CLAIM_WORDS)} == {
        "inconclusive"
    }
    assert unsure.shown(j.CLAIM_WORDS).endswith("at an unknown level")


def test_several_intervals_combine_worst_first() -> None:
    inside, unsure = j.judge(1, 1, (0, 2)), j.judge(1, 3, (0, 2))
    beyond = j.judge(3, 4, (0, 2))
    assert j.combine([inside, inside]) == j.INSIDE
    assert j.combine([inside, unsure]) == j.INCONCLUSIVE
    assert j.combine([unsure, beyond, inside]) == j.ABOVE
    assert j.combine([]) == j.NA
    assert j.joint_level([0.95, 0.95]) == pytest.approx(0.9025)
    assert j.joint_level([0.95, None]) is None


@pytest.mark.parametrize("n", [6, 7, 11, 30, 64, 101])
def test_intervals_are_scipys(n: int) -> None:
    """The median's and the mean's intervals are SciPy's quantile_test and
    ttest_1samp intervals for every n they give one."""
    xs = np.random.default_rng(n).lognormal(size=n)
    med = stats.median_ci(xs)
    ci = sps.quantile_test(xs, q=float(np.median(xs)), p=0.5).confidence_interval()
    assert (med.low, med.high) == pytest.approx((ci.low, ci.high))
    assert med.level >= 0.95
    mean = stats.mean_ci(xs)
    t = sps.ttest_1samp(xs, 0.0).confidence_interval(0.95)
    assert (mean.low, mean.high) == pytest.approx((max(t.low, 0.0), t.high))


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_the_small_n_fallback_says_its_real_level(n: int) -> None:
    """Below 6 repetitions SciPy has no 95% interval of the median: min..max, with
    its real coverage 1 - 2^(1-n) (75% for 3), never 95%."""
    xs = list(range(1, n + 1))
    ci = sps.quantile_test(xs, q=1.0, p=0.5).confidence_interval()
    assert math.isnan(ci.low) or math.isnan(ci.high)
    med = stats.median_ci(xs)
    assert (med.low, med.high) == (1, n)
    assert med.level == pytest.approx(1 - 2.0 ** (1 - n))
