/* record.c - the records of a run (see record.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evp.h"
#include "prov.h"
#include "record.h"

/* What ran, on what, and how often: the cipher, impl, sizes, shape and repetition. */
static void record_what(const cs_run *r, cs_buf *b, int rep, int batch)
{
    const cs_opts *o = &r->o;
    cs_json_int(b, "schema", 1);
    cs_json_str(b, "status", "ok");
    cs_json_str(b, "backend", r->be->name);
    cs_json_str(b, "impl", r->impl_name);
    cs_json_str(b, "cipher", r->cipher);
    cs_json_str(b, "mode", r->mode_name);
    if (r->key_len) /* the AEAD path keeps its key length to itself */
        cs_json_int(b, "key_bits", 8LL * r->key_len);
    else
        cs_json_null(b, "key_bits");
    cs_json_str(b, "op", o->op == CS_ENCRYPT ? "encrypt" : "decrypt");
    cs_json_bool(b, "padding", r->pad);
    cs_json_int(b, "bytes", (long long)r->plain_len);
    cs_json_int(b, "out_bytes", (long long)r->out_len);
    cs_json_int(b, "ranks", r->ranks);
    cs_json_int(b, "threads", r->threads);
    cs_json_int(b, "gpu", r->gpus);
    if (r->block_threads >= 0)
        cs_json_int(b, "block_threads", r->block_threads);
    else
        cs_json_null(b, "block_threads");
    cs_json_int(b, "rep", rep);
    cs_json_int(b, "batch", batch);
    cs_json_int(b, "warmup", o->warmup);
    if (o->input)
        cs_json_null(b, "seed");
    else
        cs_json_int(b, "seed", (long long)o->seed);
    cs_json_str(b, "input", o->input);
}

/* The timings of the repetition and how its output was verified. */
static void record_timings(const cs_run *r, cs_buf *b, const cs_timings *t)
{
#define TIMING_FIELD(f) cs_json_num(b, #f, t->f);
    CS_TIMINGS(TIMING_FIELD)
#undef TIMING_FIELD
    cs_json_str(b, "clock", r->clock);
    cs_json_bool(b, "verified", 1);
    cs_json_str(b, "verified_by", r->verified_by);
    if (r->aead)
        cs_json_int(b, "ad_bytes", (long long)r->ad_len);
    else
        cs_json_null(b, "ad_bytes");
}

/* CPU time and the share of the cores used. */
static void record_cpu(const cs_run *r, cs_buf *b, const cs_timings *t, double user, double sys,
                       double wall)
{
    cs_json_num(b, "cpu_user_s", user);
    cs_json_num(b, "cpu_sys_s", sys);
    cs_json_int(b, "cores_used", r->cores_used);
    /* the seed study's "CPU %": CPU time over the timed region's wall time (t_total, so
     * that the record alone reproduces the value) times the cores used */
    const double span = (isfinite(t->t_total) && t->t_total > 0) ? t->t_total : wall;
    cs_json_num(b, "cpu_util", span > 0 ? (user + sys) / (span * r->cores_used) : NAN);
}

/* Energy of the timed region, with its source, scope and note. */
static void record_energy(cs_buf *b, const cs_energy_reading *e)
{
    cs_json_num(b, "joules", e->joules);
    cs_json_num(b, "joules_pkg", e->joules_pkg);
    cs_json_num(b, "joules_core", e->joules_core);
    cs_json_num(b, "joules_dram", e->joules_dram);
    cs_json_num(b, "joules_gpu", e->joules_gpu);
    cs_json_num(b, "joules_h2d", e->joules_h2d);
    cs_json_num(b, "joules_kernel", e->joules_kernel);
    cs_json_num(b, "joules_d2h", e->joules_d2h);
    cs_json_str(b, "energy_source", e->source);
    cs_json_str(b, "energy_scope", e->scope[0] ? e->scope : NULL);
    if (e->source && e->nodes > 0)
        cs_json_int(b, "energy_nodes", e->nodes);
    else
        cs_json_null(b, "energy_nodes");
    cs_json_str(b, "energy_note", e->note[0] ? e->note : NULL);
}

/* Where and with what it was built and run. */
static void record_provenance(const cs_run *r, const cs_prov *p, cs_buf *b, const char *ts)
{
    cs_json_str(b, "host", p->host);
    cs_json_str(b, "cpu_model", p->cpu_model[0] ? p->cpu_model : NULL);
    cs_json_int(b, "cpu_cores", p->cpu_cores);
    cs_json_str(b, "gpu_model", r->gpu_model[0] ? r->gpu_model : NULL);
    cs_json_str(b, "gpu_driver", r->gpu_driver[0] ? r->gpu_driver : NULL);
    cs_json_str(b, "compiler", cs_compiler());
    cs_json_str(b, "cflags", cs_cflags());
    cs_json_str(b, "mpi_version", r->mpi_version[0] ? r->mpi_version : NULL);
    cs_json_str(b, "openssl_version", cs_openssl_version());
    cs_json_str(b, "timestamp", ts);
    cs_json_str(b, "slurm_job_id", getenv("SLURM_JOB_ID"));
    cs_json_str(b, "slurm_nodelist", getenv("SLURM_JOB_NODELIST"));
    const cs_fp_shape shape = {
        .ranks = r->ranks,
        .threads = r->threads,
        .gpus = r->gpus,
        .cipher = r->cipher,
        .impl = r->impl_name,
        .mode = r->mode_name,
        .op = r->o.op == CS_ENCRYPT ? "encrypt" : "decrypt",
        .openssl = (r->be->flags & CS_BE_EVP) ? cs_openssl_version() : NULL,
    };
    cs_fingerprint_json(b, &r->fp, &shape);
    if (r->be->record_fields)
        r->be->record_fields(r, b);
}

void cs_record(const cs_run *r, const cs_prov *p, cs_buf *b, int rep, int batch,
               const cs_timings *t, const cs_energy_reading *e, double user, double sys,
               double wall)
{
    char ts[64];
    cs_timestamp(ts, sizeof ts);
    cs_json_begin(b);
    record_what(r, b, rep, batch);
    record_timings(r, b, t);
    record_cpu(r, b, t, user, sys, wall);
    record_energy(b, e);
    record_provenance(r, p, b, ts);
    cs_json_end(b);
}

/* Fields every record gets once the repetitions are done: how many ran, why they
 * stopped, and the interval of the median t_total they reached. */
void cs_calib_trailer(cs_buf *b, cs_calib *c)
{
    const cs_median_ci m = cs_calib_result(c);
    cs_buf_printf(b, ", \"reps_run\": %ld, \"stop_reason\": \"%s\"", c->n,
                  cs_stop_name(c->stop) ? cs_stop_name(c->stop) : "fixed");
    if (isfinite(m.rel_hw))
        cs_buf_printf(b, ", \"ci_rel_hw\": %.6g, \"ci_level\": %.6g", m.rel_hw, m.coverage);
    else
        cs_buf_printf(b, ", \"ci_rel_hw\": null, \"ci_level\": %.6g", m.coverage);
    if (c->target > 0)
        cs_buf_printf(b, ", \"target_ci\": %.6g", c->target);
    else
        cs_buf_printf(b, ", \"target_ci\": null");
}

/* The records with the trailer added before each closing brace (one object a line). */
int cs_records_with_trailer(const cs_buf *in, const cs_buf *trailer, cs_buf *out)
{
    size_t start = 0;
    for (size_t i = 0; i < in->len; i++) {
        if (in->p[i] != '\n')
            continue;
        if (i == start || in->p[i - 1] != '}')
            return -1;
        cs_buf_printf(out, "%.*s%.*s}\n", (int)(i - 1 - start), in->p + start,
                      (int)trailer->len, trailer->p);
        start = i + 1;
    }
    return start == in->len ? 0 : -1;
}

int cs_write_records(cs_run *r, const cs_buf *b)
{
    FILE *f = stdout;
    if (r->o.json) {
        f = fopen(r->o.json, "w");
        if (!f) {
            cs_error(r, "--json: cannot write '%s': %s", r->o.json, strerror(errno));
            return CS_EXIT_FAIL;
        }
    }
    const size_t put = b->len ? fwrite(b->p, 1, b->len, f) : 0;
    const int rc = (f == stdout) ? fflush(f) : fclose(f);
    if (put != b->len || rc != 0) {
        cs_error(r, "writing the records failed");
        return CS_EXIT_FAIL;
    }
    return 0;
}
