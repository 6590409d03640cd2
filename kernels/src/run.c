/* run.c - the functions on a run's shared state (see run.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

void cs_error(const cs_run *r, const char *fmt, ...)
{
    if (r && !r->is_root)
        return;
    va_list ap;
    fprintf(stderr, "%s: ", r ? r->prog : "ciphersweep");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

cs_aes_job cs_run_job(const cs_run *r, const cs_aes_key *k)
{
    cs_aes_job j;
    memset(&j, 0, sizeof j);
    j.impl = r->aes;
    j.key = k;
    j.mode = r->o.mode;
    j.op = r->o.op;
    j.pad = r->pad;
    memcpy(j.iv, r->iv, 16);
    return j;
}

void cs_run_init(cs_run *r, const cs_backend *be, void *ctx)
{
    memset(r, 0, sizeof *r);
    r->be = be;
    r->ctx = ctx;
    r->prog = be->prog;
    r->is_root = 1;
    r->energy_reader = 1;
    r->ranks = 1;
    r->block_threads = -1;
    r->clock = "CLOCK_MONOTONIC";
    r->verified_by = "openssl";
}

/* ---- buffers ---- */

void *cs_run_alloc(cs_run *r, size_t n)
{
    if (n == 0)
        n = 1;
    return r->be->alloc ? r->be->alloc(r, n) : malloc(n);
}

void cs_run_free(cs_run *r, void *p)
{
    if (!p)
        return;
    if (r->be->dealloc)
        r->be->dealloc(r, p);
    else
        free(p);
}

int cs_run_agree(cs_run *r, int status)
{
    return r->be->agree ? r->be->agree(r, status) : status;
}
