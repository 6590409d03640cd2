/*
 * test_median_ci.c - the order-statistic interval of the median and the calibration of
 * repetitions (src/median_ci.c).
 *
 *   test_median_ci              the checks below (ctest "median_ci")
 *   test_median_ci --ranks A B  prints "n low high coverage" for n = A..B, so that a
 *                               pytest compares the ranks with ciphersweep.stats
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "median_ci.h"

/* Exact P(B <= k), B ~ Bin(n, 1/2), for small n: binomial coefficients in doubles. */
static double exact_cdf(long k, long n)
{
    double c = 1.0, total = 0.0;
    for (long i = 0; i <= k; i++) {
        total += c;
        c = c * (double)(n - i) / (double)(i + 1);
    }
    return total / pow(2.0, (double)n);
}

static void check_ranks(void)
{
    /* textbook values (Conover): n = 10 -> x(2)..x(9), 20 -> x(6)..x(15), 100 -> x(40)..x(61) */
    const long want[][3] = {{6, 1, 6}, {10, 2, 9}, {20, 6, 15}, {100, 40, 61}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const cs_ci_ranks r = cs_median_ci_ranks(want[i][0], 0.95);
        CHECK(r.low == want[i][1] && r.high == want[i][2], "n=%ld: got %ld..%ld", want[i][0],
              r.low, r.high);
    }
    for (long n = 1; n <= 60; n++) { /* exact enumeration: largest k with coverage >= 95% */
        long k = 1;
        for (long j = 1; j <= (n + 1) / 2; j++)
            if (1.0 - 2.0 * exact_cdf(j - 1, n) >= 0.95)
                k = j;
        const cs_ci_ranks r = cs_median_ci_ranks(n, 0.95);
        CHECK(r.low == k && r.high == n - k + 1, "n=%ld: got %ld, exact %ld", n, r.low, k);
        CHECK(fabs(r.coverage - (1.0 - 2.0 * exact_cdf(k - 1, n))) < 1e-12, "n=%ld coverage", n);
    }
    /* too few for 95%: min..max with the real coverage */
    CHECK(cs_median_ci_ranks(5, 0.95).coverage == 1.0 - 2.0 / 32.0, "n=5 coverage");
    CHECK(cs_median_ci_ranks(1, 0.95).coverage == 0.0, "n=1 coverage");
    const cs_ci_ranks big = cs_median_ci_ranks(100000, 0.95);
    CHECK(big.coverage >= 0.95 && 1.0 - 2.0 * cs_binom_half_cdf(big.low, 100000) < 0.95,
          "n=100000: %ld..%ld is the tightest 95%% interval", big.low, big.high);
}

static void check_interval(void)
{
    const double xs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const cs_median_ci m = cs_median_ci_of(xs, 10, 0.95);
    CHECK(m.median == 5.5 && m.low == 2 && m.high == 9, "median %g in %g..%g", m.median, m.low,
          m.high);
    CHECK(fabs(m.rel_hw - 3.5 / 5.5) < 1e-12, "rel_hw %g", m.rel_hw);
}

/* A deterministic noise source (splitmix64) for synthetic timings. */
static double noise(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static cs_calib run(double target, long min, long max, double max_s, double spread, double dt)
{
    cs_calib c;
    unsigned long long seed = 42;
    CHECK(cs_calib_init(&c, target, min, max, max_s) == 0, "init");
    double elapsed = 0;
    for (;;) {
        const double t = 1.0 + spread * noise(&seed);
        elapsed += dt;
        if (cs_calib_add(&c, t, elapsed))
            break;
    }
    return c;
}

static void check_calibration(void)
{
    cs_calib c = run(0, 7, 1000, 0, 0.5, 0.01); /* no target: exactly min_reps */
    CHECK(c.n == 7 && c.stop == CS_STOP_FIXED, "fixed: n=%ld", c.n);
    cs_calib_free(&c);
    c = run(0.02, 5, 100000, 0, 0.2, 0.0); /* +-10% noise: tight after a few hundred */
    const cs_median_ci m = cs_calib_result(&c);
    CHECK(c.stop == CS_STOP_TARGET && m.rel_hw <= 0.02 && m.coverage >= 0.95,
          "target: n=%ld rel_hw %g", c.n, m.rel_hw);
    CHECK(c.n > 20 && c.n < 5000, "target reached after %ld repetitions", c.n);
    cs_calib_free(&c);
    c = run(0.001, 5, 50, 0, 0.5, 0.0); /* too noisy for 0.1%: stops at max_reps */
    CHECK(c.n == 50 && c.stop == CS_STOP_MAX_REPS, "max_reps: n=%ld stop %d", c.n, c.stop);
    cs_calib_free(&c);
    c = run(0.001, 5, 100000, 1.0, 0.5, 0.125); /* 1/8 s each, 1 s budget */
    CHECK(c.n == 8 && c.stop == CS_STOP_MAX_SECONDS, "max_seconds: n=%ld", c.n);
    cs_calib_free(&c);
    c = run(0.5, 3, 100, 0, 0.0, 0.0); /* identical times: n >= 6 is needed for 95% */
    CHECK(c.n == 6 && c.stop == CS_STOP_TARGET, "small n: n=%ld", c.n);
    cs_calib_free(&c);
    c = run(0.001, 20, 100, 0.5, 0.5, 0.1); /* min_reps wins over max_seconds */
    CHECK(c.n == 20 && c.stop == CS_STOP_MAX_SECONDS, "min_reps: n=%ld", c.n);
    cs_calib_free(&c);
    CHECK(strcmp(cs_stop_name(CS_STOP_MAX_SECONDS), "max_seconds") == 0, "stop name");
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--ranks") == 0) {
        const long a = atol(argv[2]), b = atol(argv[3]);
        for (long n = a; n <= b; n++) {
            const cs_ci_ranks r = cs_median_ci_ranks(n, 0.95);
            printf("%ld %ld %ld %.17g\n", n, r.low, r.high, r.coverage);
        }
        return 0;
    }
    check_ranks();
    check_interval();
    check_calibration();
    printf("median_ci: %d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
