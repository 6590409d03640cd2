/*
 * median_ci.h - the distribution-free confidence interval of the median and the
 * calibration of repetitions built on it (median_ci.c).
 *
 * The number of timed repetitions below the true median is Binomial(n, 1/2), so the
 * order statistics x_(k) <= median <= x_(n-k+1) hold with probability
 * 1 - 2 P(B <= k-1) (e.g. Conover, Practical Nonparametric Statistics, 3.2).  k is the
 * largest rank whose coverage still reaches the confidence asked for; below 6
 * repetitions no rank reaches 95%, the interval is min..max and its real coverage
 * 1 - 2^(1-n) is reported.  The workflow's statistics (ciphersweep.stats) use the same
 * rule and a test compares the two.
 *
 * Calibration, as pyperf, Criterion or Google Benchmark do it: after at least min_reps
 * timed repetitions, stop as soon as the interval's relative half-width
 * (high - low) / 2 / median is within target with >= 95% coverage, or when max_reps
 * repetitions or max_seconds of timed repetitions are reached.  Without a target the
 * count is fixed at min_reps.  No global state: everything is in cs_calib.
 */
#ifndef CIPHERSWEEP_MEDIAN_CI_H
#define CIPHERSWEEP_MEDIAN_CI_H

#define CS_CI_CONFIDENCE 0.95

/* 1-based ranks of the order statistics bounding the median, and their coverage. */
typedef struct {
    long low, high;
    double coverage;
} cs_ci_ranks;

/* P(B <= k) for B ~ Binomial(n, 1/2), summed in log space. */
double cs_binom_half_cdf(long k, long n);
/* The ranks for n >= 1 repetitions at the given confidence (e.g. 0.95). */
cs_ci_ranks cs_median_ci_ranks(long n, double confidence);

/* Median of n >= 1 values sorted ascending, with its interval. */
typedef struct {
    double median, low, high;
    double coverage;
    double rel_hw;            /* (high - low) / 2 / median; INFINITY when median <= 0 */
    long n;
} cs_median_ci;
cs_median_ci cs_median_ci_of(const double *sorted, long n, double confidence);

/* Why the timed repetitions stopped (record "stop_reason"). */
typedef enum { CS_STOP_NONE, CS_STOP_FIXED, CS_STOP_TARGET, CS_STOP_MAX_REPS,
               CS_STOP_MAX_SECONDS } cs_stop;
const char *cs_stop_name(cs_stop s); /* fixed, target, max_reps, max_seconds */

typedef struct {
    double target;            /* relative half-width; <= 0: fixed count (min_reps) */
    long min_reps, max_reps;
    double max_seconds;       /* budget of the timed repetitions; <= 0: none */
    double *t;                /* the t_total of every timed repetition so far */
    long n, cap;
    long next_check;          /* n at which the interval is computed next */
    cs_median_ci last;        /* the interval at the last check (n = 0: none yet) */
    cs_stop stop;
} cs_calib;

/* 0, or -1 when out of memory. */
int cs_calib_init(cs_calib *c, double target, long min_reps, long max_reps, double max_seconds);
/* Add one repetition's time; elapsed: seconds since the first timed repetition began.
 * Returns 1 when the repetitions should stop (c->stop says why), 0 to go on, -1 when
 * out of memory.  The interval is recomputed on a geometric schedule (every n/16
 * repetitions), so 100,000 repetitions cost a few dozen sorts. */
int cs_calib_add(cs_calib *c, double t_total, double elapsed);
/* The final interval over every repetition added (sorts once more). */
cs_median_ci cs_calib_result(cs_calib *c);
void cs_calib_free(cs_calib *c);

#endif
