/* batch.c - per-repetition means over a batch of timed repetitions (see batch.h). */
#include "batch.h"

#include <math.h>
#include <string.h>

#define ENERGY_FIELDS(X) X(joules) X(joules_pkg) X(joules_core) X(joules_dram) X(joules_gpu) \
    X(joules_h2d) X(joules_kernel) X(joules_d2h)

void cs_batch_reset(cs_batch *b, int size)
{
    memset(b, 0, sizeof *b);
    b->size = size > 0 ? size : 1;
}

void cs_batch_add(cs_batch *b, const cs_timings *t, const cs_energy_reading *e, double user,
                  double sys, double wall)
{
#define ADD_T(f) b->t.f += t->f;
#define ADD_E(f) b->e.f += e->f;
    CS_TIMINGS(ADD_T)
    ENERGY_FIELDS(ADD_E)
#undef ADD_T
#undef ADD_E
    b->e.source = e->source;
    memcpy(b->e.scope, e->scope, sizeof b->e.scope);
    memcpy(b->e.note, e->note, sizeof b->e.note);
    b->e.nodes = e->nodes;
    b->user += user;
    b->sys += sys;
    b->wall += wall;
    b->n++;
}

int cs_batch_full(const cs_batch *b) { return b->n >= b->size; }

void cs_batch_mean(const cs_batch *b, cs_timings *t, cs_energy_reading *e, double *user,
                   double *sys, double *wall)
{
    const double n = b->n > 0 ? (double)b->n : NAN;
    *t = b->t;
    *e = b->e;
#define MEAN_T(f) t->f /= n;
#define MEAN_E(f) e->f /= n;
    CS_TIMINGS(MEAN_T)
    ENERGY_FIELDS(MEAN_E)
#undef MEAN_T
#undef MEAN_E
    *user = b->user / n;
    *sys = b->sys / n;
    *wall = b->wall / n;
}
