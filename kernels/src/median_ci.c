/* median_ci.c - order-statistic interval of the median and calibration (median_ci.h). */
#include "median_ci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double cs_binom_half_cdf(long k, long n)
{
    if (k < 0)
        return 0.0;
    if (k >= n)
        return 1.0;
    const double ln2n = (double)n * log(2.0);
    const double lfn = lgamma((double)n + 1.0);
    double acc = 0.0;
    for (long i = k; i >= 0; i--) { /* largest term first; the rest fall off geometrically */
        const double term =
            exp(lfn - lgamma((double)i + 1.0) - lgamma((double)(n - i) + 1.0) - ln2n);
        acc += term;
        if (term < acc * 1e-17)
            break;
    }
    return acc;
}

cs_ci_ranks cs_median_ci_ranks(long n, double confidence)
{
    const double alpha = 1.0 - confidence;
    /* start near the normal approximation, then step to the exact boundary */
    long k = (long)floor((double)n / 2.0 - 0.5 * sqrt((double)n) * 1.959963984540054);
    if (k < 1)
        k = 1;
    while (k > 1 && 2.0 * cs_binom_half_cdf(k - 1, n) > alpha)
        k--;
    while (k + 1 <= (n + 1) / 2 && 2.0 * cs_binom_half_cdf(k, n) <= alpha)
        k++;
    const cs_ci_ranks r = {k, n - k + 1, 1.0 - 2.0 * cs_binom_half_cdf(k - 1, n)};
    return r;
}

cs_median_ci cs_median_ci_of(const double *sorted, long n, double confidence)
{
    cs_median_ci m;
    memset(&m, 0, sizeof m);
    m.n = n;
    if (n < 1) {
        m.median = m.low = m.high = NAN;
        m.rel_hw = INFINITY;
        return m;
    }
    const cs_ci_ranks r = cs_median_ci_ranks(n, confidence);
    m.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    m.low = sorted[r.low - 1];
    m.high = sorted[r.high - 1];
    m.coverage = r.coverage;
    m.rel_hw = m.median > 0 ? (m.high - m.low) / 2.0 / m.median : INFINITY;
    return m;
}

const char *cs_stop_name(cs_stop s)
{
    switch (s) {
    case CS_STOP_FIXED: return "fixed";
    case CS_STOP_TARGET: return "target";
    case CS_STOP_MAX_REPS: return "max_reps";
    case CS_STOP_MAX_SECONDS: return "max_seconds";
    default: return NULL;
    }
}

int cs_calib_init(cs_calib *c, double target, long min_reps, long max_reps, double max_seconds)
{
    memset(c, 0, sizeof *c);
    c->target = target;
    c->min_reps = min_reps < 1 ? 1 : min_reps;
    c->max_reps = (target > 0 && max_reps > c->min_reps) ? max_reps : c->min_reps;
    c->max_seconds = max_seconds;
    c->next_check = c->min_reps;
    c->cap = c->min_reps < 1024 ? c->min_reps : 1024;
    c->t = malloc((size_t)c->cap * sizeof *c->t);
    return c->t ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

cs_median_ci cs_calib_result(cs_calib *c)
{
    double *s = malloc((size_t)(c->n ? c->n : 1) * sizeof *s);
    if (!s) {
        cs_median_ci none = {NAN, NAN, NAN, 0.0, INFINITY, c->n};
        return none;
    }
    memcpy(s, c->t, (size_t)c->n * sizeof *s);
    qsort(s, (size_t)c->n, sizeof *s, cmp_double);
    const cs_median_ci m = cs_median_ci_of(s, c->n, CS_CI_CONFIDENCE);
    free(s);
    return m;
}

static int tight_enough(cs_calib *c)
{
    c->last = cs_calib_result(c);
    const long step = c->n / 16;
    c->next_check = c->n + (step > 0 ? step : 1);
    return c->last.coverage >= CS_CI_CONFIDENCE - 1e-12 && c->last.rel_hw <= c->target;
}

int cs_calib_add(cs_calib *c, double t_total, double elapsed)
{
    if (c->n == c->cap) {
        const long cap = c->cap * 2;
        double *t = realloc(c->t, (size_t)cap * sizeof *t);
        if (!t)
            return -1;
        c->t = t;
        c->cap = cap;
    }
    c->t[c->n++] = t_total;
    if (c->n < c->min_reps)
        return 0;
    if (c->target <= 0) {
        c->stop = CS_STOP_FIXED;
        return 1;
    }
    const int out_of_reps = c->n >= c->max_reps;
    const int out_of_time = c->max_seconds > 0 && elapsed >= c->max_seconds;
    if ((c->n >= c->next_check || out_of_reps || out_of_time) && tight_enough(c))
        c->stop = CS_STOP_TARGET;
    else if (out_of_reps)
        c->stop = CS_STOP_MAX_REPS;
    else if (out_of_time)
        c->stop = CS_STOP_MAX_SECONDS;
    return c->stop != CS_STOP_NONE;
}

void cs_calib_free(cs_calib *c)
{
    free(c->t);
    c->t = NULL;
    c->n = c->cap = 0;
}
