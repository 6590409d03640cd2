/* timings.h - the timings of one repetition (run.h, batch.h). */
#ifndef CIPHERSWEEP_TIMINGS_H
#define CIPHERSWEEP_TIMINGS_H

/* Seconds; NAN = does not apply (written as null). */
typedef struct {
    double t_total, t_compute, t_keyexp, t_h2d, t_d2h, t_bcast, t_scatter, t_gather;
} cs_timings;

#endif
