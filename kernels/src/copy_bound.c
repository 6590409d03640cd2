/*
 * copy_bound.c - the copy limit and the best mix of the measured copy modes
 * (copy_bound.h).
 */
#include "copy_bound.h"

static double max2(double a, double b) { return a > b ? a : b; }
static double min2(double a, double b) { return a < b ? a : b; }

double cs_copy_best_h2d(const cs_copy_rates *r) { return max2(max2(r->h2d_alone, r->h2d_both), 0.0); }

double cs_copy_best_d2h(const cs_copy_rates *r) { return max2(max2(r->d2h_alone, r->d2h_both), 0.0); }

double cs_copy_limit(const cs_copy_rates *r) { return min2(cs_copy_best_h2d(r), cs_copy_best_d2h(r)); }

/* Both at once for a fraction x of the time, the direction that falls behind (rate
 * `behind` at once, `alone` on its own) alone for the rest, the other at `ahead` at
 * once: the data through is min(behind x + alone (1 - x), ahead x), largest where the
 * two are equal, x = alone / (ahead - behind + alone). */
static double balanced(double behind, double ahead, double alone)
{
    if (behind <= 0 || ahead <= behind || alone <= 0) return 0.0;
    const double x = alone / (ahead - behind + alone);
    return x <= 1.0 ? ahead * x : 0.0;
}

double cs_copy_mix(const cs_copy_rates *r)
{
    double best = 0.0;
    if (r->h2d_alone > 0 && r->d2h_alone > 0) /* one direction after the other */
        best = 1.0 / (1.0 / r->h2d_alone + 1.0 / r->d2h_alone);
    if (r->h2d_both > 0 && r->d2h_both > 0) {
        best = max2(best, min2(r->h2d_both, r->d2h_both));
        best = max2(best, balanced(r->h2d_both, r->d2h_both, r->h2d_alone));
        best = max2(best, balanced(r->d2h_both, r->h2d_both, r->d2h_alone));
    }
    return min2(best, cs_copy_limit(r));
}
