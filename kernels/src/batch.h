/* batch.h - records that summarise a batch of timed repetitions (--batch K).
 *
 * Tiny messages repeated 10,000 or 100,000 times would otherwise give one ~1.5 KB
 * record per repetition.  Every repetition is still run, timed and verified on its own;
 * a batch record carries the per-repetition MEAN of each timing, CPU time and energy
 * over K consecutive repetitions (the batch-means method), and "batch": K. A quantity
 * that is NAN (unmeasured) in any repetition of the batch is NAN for the batch. */
#ifndef CIPHERSWEEP_BATCH_H
#define CIPHERSWEEP_BATCH_H

#include "energy.h"
#include "timings.h"

typedef struct {
    int size;                 /* repetitions per record */
    int n;                    /* repetitions in the open batch */
    cs_timings t;             /* sums */
    cs_energy_reading e;      /* sums of the joules fields; source, scope, note: last */
    double user, sys, wall;   /* sums */
} cs_batch;

void cs_batch_reset(cs_batch *b, int size);
void cs_batch_add(cs_batch *b, const cs_timings *t, const cs_energy_reading *e, double user,
                  double sys, double wall);
int cs_batch_full(const cs_batch *b);
/* The open batch as per-repetition means (b->n must be > 0). */
void cs_batch_mean(const cs_batch *b, cs_timings *t, cs_energy_reading *e, double *user,
                   double *sys, double *wall);

#endif
