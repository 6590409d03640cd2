/* measure.h - the warm-ups and timed repetitions of a run with their instruments
 * (clock, CPU time, energy, likwid markers), verification of every repetition, and the
 * records written once all have verified (measure.c). */
#ifndef CIPHERSWEEP_MEASURE_H
#define CIPHERSWEEP_MEASURE_H

#include "run.h"

/* Every rank: the repetitions; the root writes --output and the records.  Returns the
 * status every rank agrees on. */
int cs_measure(cs_run *r);

#endif
