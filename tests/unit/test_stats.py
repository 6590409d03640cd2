"""The statistics module: order-statistic intervals of the median (checked against an
exact binomial enumeration), small-n behaviour, t intervals, ratio intervals and the
flagging of cells whose interval is wider than the precision target."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from fractions import Fraction

import pandas as pd
import pytest
from ciphersweep.analysis import render, report
from ciphersweep.analysis.plots import speedup, timing
from ciphersweep.analysis.tables import generic, layout_tables
from ciphersweep.analysis.tables import model as tables
from ciphersweep.core import stats
from support import KERNELS, ROOT, make_point


def _exact_ranks(
    n: int, conf: Fraction = Fraction(95, 100)
) -> tuple[int, int, Fraction]:
    """Largest k with P(x_(k) <= median <= x_(n-k+1)) >= conf, by enumerating the
    binomial distribution in exact fractions (no library)."""
    pmf = [Fraction(math.comb(n, i), 2**n) for i in range(n + 1)]
    best = None
    for k in range(1, (n + 1) // 2 + 1):
        cover = 1 - 2 * sum(pmf[:k])  # P(k <= #below <= n-k)
        if cover >= conf:
            best = (k, n - k + 1, cover)
    if best is None:
        return 1, n, 1 - 2 * pmf[0]
    return best


@pytest.mark.parametrize("n", list(range(1, 80)) + [99, 100, 250, 511])
def test_median_ranks_match_exact_binomial(n: int) -> None:
    lo, hi, cover = _exact_ranks(n)
    r = stats.median_ci_ranks(n)
    assert (r.low, r.high) == (lo, hi)
    assert r.coverage == pytest.approx(float(cover), abs=1e-12)


def test_published_ranks() -> None:
    # the usual tables (e.g. Conover, Practical Nonparametric Statistics)
    assert (stats.median_ci_ranks(10).low, stats.median_ci_ranks(10).high) == (2, 9)
    assert (stats.median_ci_ranks(20).low, stats.median_ci_ranks(20).high) == (6, 15)
    assert (stats.median_ci_ranks(100).low, stats.median_ci_ranks(100).high) == (40, 61)


def test_a_run_s_intervals_need_no_scipy() -> None:
    """Up to EXACT_N repetitions a median's interval comes from exact integer tails,
    and up to EXACT_DF degrees of freedom a mean's t quantile from exact sums: a run's
    gather step (every timing has both) never pays SciPy's import (a quarter of a
    second); a mean of more repetitions does import it."""
    code = (
        "import sys\nfrom ciphersweep.core import stats\n"
        "e = stats.median_ci([1.0 + i / 100 for i in range(4145)])\n"
        "m = stats.mean_ci([1.0, 2.0, 3.0, 5.0, 8.0])\n"
        "s = stats.summarize([1.0 + i / 7 for i in range(stats.EXACT_DF + 1)])\n"
        "print(e.level > 0.95, m.low < 3.8 < m.high, 'scipy' in sys.modules)\n"
        "stats.mean_ci([1.0 + i / 7 for i in range(stats.EXACT_DF + 2)])\n"
        "print('scipy' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT / "workflow")},
    ).stdout.split()
    assert out == ["True", "True", "False", "True"], out


def test_exact_t_quantiles_agree_with_scipy() -> None:
    """The t quantiles from the exact sums agree with SciPy's stdtrit (the path above
    EXACT_DF) to 1e-10, over the degrees of freedom and levels a campaign uses and
    well into the tails; where the exact range ends SciPy takes over."""
    special = stats.scipy_special()
    levels = (0.55, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9995, 0.99999)
    for df in [*range(1, 120), 255, 256, 999, stats.EXACT_DF]:
        for p in (*levels, *(1 - q for q in levels)):
            assert stats.t_quantile(p, df) == pytest.approx(
                float(special.stdtrit(df, p)), rel=1e-10
            ), (p, df)
    assert stats.t_quantile(0.5, 7) == 0.0
    above = stats.EXACT_DF + 1
    assert stats.t_quantile(0.975, above) == float(special.stdtrit(above, 0.975))
    # the central probability itself, against SciPy's t distribution function
    for df in (1, 2, 3, 10, 51):
        for theta in (0.01, 0.4, 1.0, 1.5):
            t = math.sqrt(df) * math.tan(theta)
            both = 2 * float(special.stdtr(df, t)) - 1
            assert stats.t_central(theta, df) == pytest.approx(both, rel=1e-12)


def test_exact_tails_agree_with_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The integer tails and SciPy's bdtr (used above EXACT_N) give the same
    probabilities and the same ranks, up to the exact range's top."""
    n = stats.EXACT_N
    special = stats.scipy_special()
    for k in (n // 2 - 300, n // 2 - 98, n // 2, n // 2 + 150):
        assert stats.binom_half_cdf(k, n) == pytest.approx(
            float(special.bdtr(k, n, 0.5)), rel=1e-9
        )
    sizes = (6, 7, 40, 1001, 4145, n)
    exact = [stats.median_ci_ranks(m) for m in sizes]
    stats.median_ci_ranks.cache_clear()
    monkeypatch.setattr(stats, "EXACT_N", 0)
    try:
        by_scipy = [stats.median_ci_ranks(m) for m in sizes]
    finally:
        stats.median_ci_ranks.cache_clear()
    for e, s in zip(exact, by_scipy, strict=True):
        assert (e.low, e.high) == (s.low, s.high)
        assert e.coverage == pytest.approx(s.coverage, abs=1e-12)


def test_large_n_log_space_agrees_with_exact_sum() -> None:
    n = 2600  # summed in integers (SciPy's bdtr above EXACT_N)
    for k in (1200, 1250, 1249, 1300):
        exact = Fraction(sum(math.comb(n, i) for i in range(k + 1)), 2**n)
        assert stats.binom_half_cdf(k, n) == pytest.approx(float(exact), rel=1e-9)
    r = stats.median_ci_ranks(100_000)
    assert r.coverage >= 0.95 and r.high == 100_001 - r.low
    # one rank tighter would fall below 95%
    assert 1 - 2 * stats.binom_half_cdf(r.low, 100_000) < 0.95


@pytest.mark.parametrize("n,cover", [(1, 0.0), (2, 0.5), (5, 0.9375)])
def test_too_few_reps_give_min_max_with_actual_coverage(n: int, cover: float) -> None:
    xs = [1.0 + 0.001 * i for i in range(n)]
    e = stats.median_ci(xs)
    assert (e.low, e.high) == (min(xs), max(xs))
    assert e.level == pytest.approx(cover)
    # however narrow, such an interval is flagged (it is not a 95% interval)
    assert e.wide(0.5)
    assert "too few for a 95% interval" in stats.wide_note(e, 0.02)
    assert stats.median_ci([1.0] * 6).level == pytest.approx(1 - 2 / 64)


def test_median_interval_covers_as_promised() -> None:
    """Skewed (exponential) timings: the interval covers the true median in >= 95% of
    runs, within the binomial noise of 3,000 trials (seeded, deterministic)."""
    rng = random.Random(7)
    true_median = math.log(2)
    trials, hits = 3000, 0
    for _ in range(trials):
        e = stats.median_ci([rng.expovariate(1.0) for _ in range(20)])
        hits += e.low <= true_median <= e.high
    cover = stats.median_ci_ranks(20).coverage  # 0.9586
    assert hits / trials >= cover - 3 * math.sqrt(cover * (1 - cover) / trials)


def test_t_quantiles_and_mean_interval() -> None:
    assert stats.t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    assert stats.t_quantile(0.975, 4) == pytest.approx(2.7764, abs=1e-4)
    assert stats.t_quantile(0.975, 29) == pytest.approx(2.0452, abs=1e-4)
    e = stats.mean_ci([1, 2, 3, 4, 5])
    half = 2.776445 * math.sqrt(2.5) / math.sqrt(5)
    assert (e.value, e.low, e.high) == pytest.approx(
        (3.0, 3 - half, 3 + half), rel=1e-5
    )
    assert stats.mean_ci([2.0]).level == 0.0


def test_summarize_columns_and_spread() -> None:
    xs = [3.0, 1.0, 2.0, 5.0, 4.0, 9.0, 7.0]
    s = stats.summarize(xs)
    ser = pd.Series(xs)
    assert s["t_total_median"] == 4.0
    assert (s["t_total_ci_low"], s["t_total_ci_high"]) == (1.0, 9.0)  # n = 7: k = 1
    assert s["t_total_ci_level"] == pytest.approx(1 - 2 / 128)
    assert s["t_total_rel_hw"] == pytest.approx((9 - 1) / 2 / 4)
    assert s["t_total_q1"] == ser.quantile(0.25) and s["t_total_q3"] == ser.quantile(
        0.75
    )
    assert s["t_total_std"] == pytest.approx(ser.std())
    assert s["t_total_n"] == 7


def test_ratio_interval_by_interval_division() -> None:
    ts = stats.Estimate(10.0, 9.0, 11.0, 0.95, 20)
    tp = stats.Estimate(5.0, 4.0, 6.0, 0.95, 20)
    r = stats.ratio(ts, tp)
    assert (r.value, r.low, r.high) == pytest.approx((2.0, 1.5, 2.75))
    assert r.level == pytest.approx(0.9025)
    e = stats.ratio(ts, tp, scale=2.0)  # efficiency = speedup / P
    assert (e.value, e.low, e.high) == pytest.approx((1.0, 0.75, 1.375))
    assert stats.ratio(ts, stats.Estimate(0.0, 0.0, 0.0, 0.95, 20)) is None


def _speedup_table(seq: list[float], mpi1: list[float], target: float = 0.02):
    seq_p, mpi_p = (
        make_point(size="1MiB", backend="seq"),
        make_point(size="1MiB", backend="mpi", ranks=1),
    )
    rows = []
    for p, xs in ((seq_p, seq), (mpi_p, mpi1)):
        rows.append(
            {"point": p.id, "status": "ok", "n": len(xs), **stats.summarize(xs)}
        )
    cfg = {"baseline": {"backend": "seq"}, "precision": {"target": target}}
    ctx = tables.Context(cfg, [seq_p, mpi_p], pd.DataFrame(rows))
    return generic.build_speedup(ctx), generic.build_time(ctx)


def test_noisy_one_rank_speedup_is_flagged() -> None:
    """The default campaign on a busy 2-core machine once showed mpi (1 rank) 1.36x
    faster than seq: with 5 noisy repetitions each, that cell must carry its interval
    and be flagged, not printed as a plain speedup."""
    rng = random.Random(3)
    seq = [0.136 * (1 + rng.uniform(0, 0.6)) for _ in range(5)]
    mpi1 = [0.100 * (1 + rng.uniform(0, 0.6)) for _ in range(5)]
    sp, tt = _speedup_table(seq, mpi1)
    key = ("mpi (1 rank)", "1MiB")
    lo, hi = sp.intervals[key]
    assert lo < sp.value(*key) < hi
    assert key in sp.notes and "too few for a 95% interval" in sp.notes[key]
    assert ("seq", "1MiB") in tt.notes and "±" in tt.notes[("seq", "1MiB")]
    md = render.render_markdown(sp)
    fmt = render.table_format(sp)
    assert f"[{fmt(lo)}..{fmt(hi)}]" in md


def test_wide_interval_flagged_even_with_many_reps() -> None:
    rng = random.Random(4)
    seq = [0.136 * (1 + rng.uniform(0, 0.5)) for _ in range(200)]
    mpi1 = [0.136 * (1 + rng.uniform(0, 0.02)) for _ in range(200)]
    sp, _ = _speedup_table(seq, mpi1, target=0.02)
    note = sp.notes[("mpi (1 rank)", "1MiB")]
    assert "target ±2%" in note


def test_tight_equal_kernels_are_not_flagged_and_cover_one() -> None:
    """Same kernel, enough quiet repetitions: speedup ~1, interval holds 1, no flag."""
    rng = random.Random(5)
    seq = [0.1 * (1 + rng.gauss(0, 0.01)) for _ in range(101)]
    mpi1 = [0.1 * (1 + rng.gauss(0, 0.01)) for _ in range(101)]
    sp, tt = _speedup_table(seq, mpi1)
    key = ("mpi (1 rank)", "1MiB")
    lo, hi = sp.intervals[key]
    assert lo <= 1.0 <= hi
    assert key not in sp.notes and ("seq", "1MiB") not in tt.notes


def test_mean_statistic_is_used_when_chosen() -> None:
    row = {
        "point": "x",
        "status": "ok",
        **stats.summarize([1.0, 1.0, 1.0, 1.0, 6.0, 1.0]),
    }
    assert stats.row_estimate(row, "median").value == 1.0
    assert stats.row_estimate(row, "mean").value == pytest.approx(11 / 6)
    assert stats.statistic_of({"statistic": "mean"}) == "mean"
    assert stats.target_of({}) == stats.DEFAULT_TARGET


def test_plots_draw_intervals_and_hollow_wide_points() -> None:
    rng = random.Random(3)
    seq_p, mpi_p = (
        make_point(size="1MiB", backend="seq"),
        make_point(size="1MiB", backend="mpi", ranks=1),
    )
    noisy = [rng.uniform(1, 2) for _ in range(5)]  # 5 reps: flagged
    tight = [1.0 + 1e-4 * i for i in range(11)]  # +-0.03%: not flagged
    rows = [
        {"point": seq_p.id, "status": "ok", **stats.summarize(tight)},
        {"point": mpi_p.id, "status": "ok", **stats.summarize(noisy)},
    ]
    cfg = {"baseline": {"backend": "seq"}}
    ctx = tables.Context(cfg, [seq_p, mpi_p], pd.DataFrame(rows))

    def hollow_x(ax) -> list:
        return [
            list(ln.get_xdata())
            for ln in ax.get_lines()
            if ln.get_markerfacecolor() == "white"
        ]

    fig = timing.plot_time(ctx)
    assert hollow_x(fig.axes[0]) == [[1 << 20]]  # the mpi point only
    assert any("hollow" in t.get_text() for t in fig.texts)
    assert hollow_x(timing.plot_throughput(ctx).axes[0]) == [[0]]
    assert hollow_x(speedup.plot_speedup(ctx).axes[0]) == [[1]]  # its speedup too
    ((_pt_mpi, s, (lo, hi), _, wide),) = speedup.speedup_points(ctx)["mpi"]
    assert wide and lo < s < hi
    same = [{**rows[0], "point": p.id} for p in (seq_p, mpi_p)]
    ctx_ok = tables.Context(cfg, [seq_p, mpi_p], pd.DataFrame(same))
    assert hollow_x(timing.plot_time(ctx_ok).axes[0]) == []


def test_c_calibration_uses_the_same_ranks() -> None:
    """kernels/src/median_ci.c (the kernels' calibration) and this module agree on the
    order-statistic ranks and their coverage, exact and log-space ranges alike."""
    prog = KERNELS / "tests" / "test_median_ci"
    if not prog.exists():
        pytest.fail(
            f"kernels not built (scripts/build-kernels.sh build/kernels): {prog}"
        )
    for a, b in ((1, 400), (1990, 2010), (99_990, 100_000)):
        out = subprocess.run(
            [str(prog), "--ranks", str(a), str(b)],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.split("\n")
        for line in filter(None, out):
            n, lo, hi, cover = line.split()
            r = stats.median_ci_ranks(int(n))
            assert (r.low, r.high) == (int(lo), int(hi)), line
            assert r.coverage == pytest.approx(float(cover), abs=1e-9), line


def _calibrate(target, lo, hi, max_s, spread, dt):
    rng = random.Random(42)
    c = stats.Calibration(target, lo, hi, max_s)
    elapsed = 0.0
    while True:
        elapsed += dt
        if c.add(1.0 + spread * rng.random(), elapsed):
            return c


def test_python_calibration_stops_like_the_kernels() -> None:
    c = _calibrate(None, 7, 1000, 0, 0.5, 0.01)
    assert len(c.times) == 7 and c.fields()["stop_reason"] == "fixed"
    c = _calibrate(0.02, 5, 100_000, 0, 0.2, 0.0)
    f = c.fields()
    assert f["stop_reason"] == "target" and f["ci_rel_hw"] <= 0.02
    assert f["ci_level"] >= 0.95 and 20 < f["reps_run"] < 5000
    assert _calibrate(0.001, 5, 50, 0, 0.5, 0.0).fields()["reps_run"] == 50
    c = _calibrate(0.001, 5, 100_000, 1.0, 0.5, 0.125)
    assert (len(c.times), c.stop) == (8, "max_seconds")
    c = _calibrate(0.5, 3, 100, 0, 0.0, 0.0)  # identical times: 6 needed for 95%
    assert (len(c.times), c.stop) == (6, "target")


def test_layout_tables_flag_wide_cells_too() -> None:
    seq_p, mpi_p = (
        make_point(size="1MiB", backend="seq"),
        make_point(size="1MiB", backend="mpi", ranks=2),
    )
    rng = random.Random(9)
    rows = [
        {"point": seq_p.id, "status": "ok", **stats.summarize([2.0] * 11)},
        {
            "point": mpi_p.id,
            "status": "ok",
            **stats.summarize([rng.uniform(0.5, 1.5) for _ in range(11)]),
        },
    ]
    cfg = {
        "baseline": {"backend": "seq"},
        "tables": [
            {"name": "lt", "value": "t_total", "unit": "ms", "rows": ["backend"]},
            {"name": "ls", "value": "speedup", "rows": ["backend"]},
        ],
    }
    ctx = tables.Context(cfg, [seq_p, mpi_p], pd.DataFrame(rows))
    built = {t.name: t for t in layout_tables.build(ctx)}
    lt, ls = built["lt"], built["ls"]
    assert ("seq", "1MiB") not in lt.notes  # 11 equal reps: tight
    assert "wider than the ±2% target" in lt.notes[("mpi", "1MiB")]
    lo, hi = lt.intervals[("mpi", "1MiB")]
    assert lo < lt.value("mpi", "1MiB") < hi  # in ms, like the cell
    assert "target ±2%" in ls.notes[("mpi", "1MiB")]
    # a summary without intervals (written before they existed) is not flagged
    old = tables.Context(
        cfg,
        [seq_p],
        pd.DataFrame([{"point": seq_p.id, "status": "ok", "t_total_median": 1.0}]),
    )
    assert generic.build_time(old).notes == {}


def test_headline_speedup_carries_its_interval_and_flag() -> None:
    rng = random.Random(3)
    seq = [0.136 * (1 + rng.uniform(0, 0.6)) for _ in range(5)]
    mpi1 = [0.100 * (1 + rng.uniform(0, 0.6)) for _ in range(5)]
    sp, _ = _speedup_table(seq, mpi1)
    (line,) = report.headline_speedups([sp])
    lo, hi = sp.intervals[("mpi (1 rank)", "1MiB")]
    fmt = render.table_format(sp)
    assert f"x [{fmt(lo)}..{fmt(hi)}] at 1MiB" in line
    assert line.endswith("(interval wider than the target)")


def test_mean_statistic_in_the_tables() -> None:
    xs = [1.0] * 10 + [12.0]
    seq_p = make_point(size="1MiB", backend="seq")
    rows = [{"point": seq_p.id, "status": "ok", **stats.summarize(xs)}]
    ctx = tables.Context({"statistic": "mean"}, [seq_p], pd.DataFrame(rows))
    t = generic.build_time(ctx)
    assert t.value("seq", "1MiB") == pytest.approx(2.0) and "mean" in t.title
    assert "95% CI of the mean" in t.notes[("seq", "1MiB")]  # 12.0 makes it wide


def test_mean_interval_of_times_never_goes_below_zero() -> None:
    e = stats.mean_ci([0.001, 0.001, 0.002, 0.9])  # one huge outlier, 4 reps
    assert e.low == 0.0 and e.high > e.value > 0
    signed = stats.mean_ci([-1.0, 0.5, 2.0, -3.0])
    assert signed.low < 0  # values that may be negative keep the plain t interval


def test_processes_are_the_unit_of_the_interval() -> None:
    # six processes, each tight inside but shifted from one to the next (+-10%)
    shifts = [0.9, 1.0, 1.1, 0.95, 1.05, 1.0]
    values, procs = [], []
    for i, f in enumerate(shifts):
        for j in range(50):
            values.append(f * (1.0 + 0.001 * (j % 5)))
            procs.append(i)
    one = stats.summarize(values, "t_total")  # as if one process ran them all
    per = stats.summarize(values, "t_total", procs)
    assert per["t_total_processes"] == 6 and one["t_total_processes"] == 1
    assert per["t_total_n"] == one["t_total_n"] == 300
    # the process-level interval spans the shifts; the pooled one hides them
    assert per["t_total_ci_low"] < 0.91 and per["t_total_ci_high"] > 1.1
    assert one["t_total_rel_hw"] < 0.05 < per["t_total_rel_hw"]
    assert per["t_total_min"] == min(values)
