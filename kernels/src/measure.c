/* measure.c - the repetitions of a run (see measure.h).
 *
 * Verification: every repetition's output (warm-ups included) is compared in full with
 * the expected output, outside the timed region; records are kept in memory and printed
 * only after the last repetition has verified, so a failing run prints no record.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aead_run.h"
#include "batch.h"
#include "input.h"
#include "likwid_marker.h"
#include "measure.h"
#include "median_ci.h"
#include "prov.h"
#include "record.h"
#include "verify.h"

/* What the timed loop measures with, besides the clock. */
typedef struct {
    cs_energy energy;
    int energy_open;
    cs_marker marker;         /* likwid's markers (marker mode only) */
    cs_prov prov;
    cs_buf records;           /* held until every repetition has verified */
    cs_batch batch;           /* timed repetitions not yet in a record (--batch) */
    int nrecords;             /* records so far: the next record's "rep" */
    cs_calib calib;           /* timed repetitions so far; when to stop (root) */
    double t_total;           /* t_total of the last repetition */
} instruments;

static void instruments_open(cs_run *r, instruments *m)
{
    memset(m, 0, sizeof *m);
    cs_batch_reset(&m->batch, r->o.batch);
    if (r->energy_reader) {
        cs_energy_open(&m->energy, r->o.energy);
        m->energy_open = 1;
    }
    cs_marker_open(&m->marker);
    cs_hostname(m->prov.host, sizeof m->prov.host);
    cs_cpu_model(m->prov.cpu_model, sizeof m->prov.cpu_model);
    m->prov.cpu_cores = cs_cpu_count();
}

static void instruments_close(instruments *m)
{
    cs_marker_close(&m->marker);
    cs_buf_free(&m->records);
    cs_calib_free(&m->calib);
}

/* Root: the record of the open batch (per-repetition means), if it has repetitions. */
static void flush_batch(cs_run *r, instruments *m)
{
    if (m->batch.n == 0)
        return;
    cs_timings t;
    cs_energy_reading e;
    double user, sys, wall;
    cs_batch_mean(&m->batch, &t, &e, &user, &sys, &wall);
    cs_record(r, &m->prov, &m->records, m->nrecords++, m->batch.n, &t, &e, user, sys, wall);
    cs_batch_reset(&m->batch, r->o.batch);
}

/* Root: compare repetition i's output with the reference; keep its record if timed. */
static int check_rep(cs_run *r, instruments *m, int i, const cs_timings *t,
                     const cs_energy_reading *e, double user, double sys, double wall)
{
    size_t bad = 0;
    if (r->o.inject_fault && r->out_len > 0)
        r->out[r->out_len / 2] ^= 0x01;
    if (cs_verify_output(r, &bad) != 0) {
        cs_error(r, "verification FAILED: first differing block %zu (byte offset %zu)%s",
                 bad / 16, bad, i < r->o.warmup ? " in a warm-up repetition" : "");
        return CS_EXIT_FAIL;
    }
    if (i >= r->o.warmup) {
        cs_batch_add(&m->batch, t, e, user, sys, wall);
        if (cs_batch_full(&m->batch))
            flush_batch(r, m);
    }
    return 0;
}

/* One repetition (warm-up or timed): run, read the instruments, verify. */
static int one_rep(cs_run *r, instruments *m, int i)
{
    cs_timings t;
    cs_timings_unset(&t);
    cs_energy_reading e;
    double u0, s0, u1, s1;
    r->out_len = 0;
    cs_cpu_times(&u0, &s0);
    const double w0 = cs_now();
    if (m->energy_open)
        cs_energy_begin(&m->energy);
    cs_marker_start(&m->marker);
    int status = r->aead ? cs_aead_rep(r, &t) : r->be->rep(r, &t);
    cs_marker_stop(&m->marker);
    if (m->energy_open)
        cs_energy_end(&m->energy, &e);
    else
        cs_energy_reading_none(&e, "energy is read by one rank per node");
    const double wall = cs_now() - w0;
    m->t_total = t.t_total;
    cs_cpu_times(&u1, &s1);
    if ((status = cs_run_agree(r, status)) != 0)
        return status;
    double user = u1 - u0, sys = s1 - s0;
    if (r->be->after_rep)
        r->be->after_rep(r, &e, &user, &sys);
    if (r->is_root)
        status = check_rep(r, m, i, &t, &e, user, sys, wall);
    return cs_run_agree(r, status);
}

/* Root: the last output (--output) and the records, once everything has verified. */
static int write_results(cs_run *r, instruments *m)
{
    if (r->o.output && cs_write_file(r->o.output, r->out, r->out_len) != 0) {
        cs_error(r, "--output: cannot write '%s': %s", r->o.output, strerror(errno));
        return CS_EXIT_FAIL;
    }
    cs_buf trailer = {0}, all = {0};
    cs_calib_trailer(&trailer, &m->calib);
    int status = cs_records_with_trailer(&m->records, &trailer, &all);
    if (status != 0)
        cs_error(r, "internal error: a record is not one JSON object a line");
    else
        status = cs_write_records(r, &all);
    cs_buf_free(&trailer);
    cs_buf_free(&all);
    return status ? CS_EXIT_FAIL : 0;
}

/* Timed repetitions until the calibration says stop (fixed count without --target-ci);
 * the root decides, every rank agrees. */
static int timed_reps(cs_run *r, instruments *m)
{
    const cs_opts *o = &r->o;
    const int ok = cs_calib_init(&m->calib, o->target_ci, o->reps, o->max_reps,
                                 o->max_seconds) == 0;
    if (cs_run_agree(r, ok ? 0 : CS_EXIT_FAIL) != 0) {
        cs_error(r, "out of memory");
        return CS_EXIT_FAIL;
    }
    const double t0 = cs_now();
    for (long i = 0;; i++) {
        int status = one_rep(r, m, o->warmup + (int)i);
        if (status != 0)
            return status;
        int flag = 0; /* 0: go on, 1: stop, 2: out of memory; the root decides */
        if (r->is_root) {
            const int stop = cs_calib_add(&m->calib, m->t_total, cs_now() - t0);
            flag = stop < 0 ? 2 : stop;
        }
        flag = cs_run_agree(r, flag);
        if (flag == 2) {
            cs_error(r, "out of memory");
            return CS_EXIT_FAIL;
        }
        if (flag)
            return 0;
    }
}

int cs_measure(cs_run *r)
{
    instruments m;
    instruments_open(r, &m);
    int status = 0;
    for (int i = 0; i < r->o.warmup && status == 0; i++)
        status = one_rep(r, &m, i);
    if (status == 0)
        status = timed_reps(r, &m);
    if (status == 0 && r->is_root)
        flush_batch(r, &m); /* a last, shorter batch (--target-ci stopped early) */
    if (status == 0) {
        status = r->is_root ? write_results(r, &m) : 0;
        status = cs_run_agree(r, status);
    }
    instruments_close(&m);
    return status;
}
