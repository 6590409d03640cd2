/*
 * copy_bound.h - the copy limit of aes-cuda's end-to-end throughput, from copy rates
 * measured on the machine (bench/copy_limit.cu measures them in the chunks the
 * overlapped pipeline copies, cuda_chunks.h).
 *
 * Every byte of a message crosses the host->device link once and the device->host link
 * once.  Whatever the schedule (one direction at a time, both at once, any mix), the
 * host->device link carries all N bytes in the time T at no more than the best rate it
 * was ever seen to reach, alone or beside the other direction, and so does the other
 * link: N / T <= min(best h2d, best d2h).  That is the limit (cs_copy_limit): no
 * pipeline beats it, so end to end <= limit.
 *
 * How close a schedule can come with the rates measured (cs_copy_mix): the best mix of
 * the three ways the links run, both at once (rates h2d_both, d2h_both) and either one
 * alone, found as the linear programme max N/T over the fractions of time spent in
 * each: its optimum sits on a vertex, so the candidates are each mode alone, both at
 * once, and "both at once, topped up by the slower direction alone" in balance.  It is
 * an estimate, not a bound: a real pipeline's copies at once may run faster than the
 * measured pair.
 *
 * Plain C (no CUDA), unit-tested on any machine (tests/test_copy_bound.c).  Rates in
 * GB/s (10^9 bytes per second); a rate <= 0 is one that was not measured.
 */
#ifndef CIPHERSWEEP_COPY_BOUND_H
#define CIPHERSWEEP_COPY_BOUND_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double h2d_alone, d2h_alone; /* best rate of each direction on its own */
    double h2d_both, d2h_both;   /* best rates while both directions run at once */
} cs_copy_rates;

/* The best rate each link was seen to reach, alone or at once. */
double cs_copy_best_h2d(const cs_copy_rates *r);
double cs_copy_best_d2h(const cs_copy_rates *r);

/* The limit of end-to-end data throughput, GB/s: min(best h2d, best d2h); 0 when a
 * direction has no measured rate. */
double cs_copy_limit(const cs_copy_rates *r);

/* The best throughput a mix of the measured modes reaches, GB/s (<= cs_copy_limit). */
double cs_copy_mix(const cs_copy_rates *r);

#ifdef __cplusplus
}
#endif
#endif
