/* timings.h - the timings of one repetition (run.h, batch.h, record.c). */
#ifndef CIPHERSWEEP_TIMINGS_H
#define CIPHERSWEEP_TIMINGS_H

#include <math.h>

/* The one list of the timings, in the order of the record schema's t_* fields
 * (workflow/schemas/record.schema.yaml; tests/unit/test_record_fields.py holds the two
 * equal): X(field) for each. The struct, the record's fields and the batch means are
 * made from it. Seconds; NAN = does not apply (written as null). */
#define CS_TIMINGS(X) \
    X(t_total) X(t_compute) X(t_keyexp) X(t_h2d) X(t_d2h) X(t_bcast) X(t_scatter) X(t_gather)

typedef struct {
#define CS_TIMING_MEMBER(f) double f;
    CS_TIMINGS(CS_TIMING_MEMBER)
#undef CS_TIMING_MEMBER
} cs_timings;

/* Every timing NAN (a repetition sets those it measures). */
static inline void cs_timings_unset(cs_timings *t)
{
#define CS_TIMING_UNSET(f) t->f = NAN;
    CS_TIMINGS(CS_TIMING_UNSET)
#undef CS_TIMING_UNSET
}

#endif
