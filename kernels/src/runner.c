/*
 * runner.c - the driver shared by every kernel binary (see runner.h): options, cipher,
 * impl, the backend's set-up and the data on every rank, then the measurement.
 */
#include <stdlib.h>

#include "aead_run.h"
#include "dataset.h"
#include "measure.h"
#include "resolve.h"
#include "runner.h"

/* Cipher, impl, the backend's setup and the data.  A rank that fails a step (e.g. an
 * impl its node lacks) does not leave the others waiting: every rank reaches the one
 * agreement at the end, and the root names a failure it did not see itself. */
static int resolve_and_load(cs_run *r, void **evp)
{
    const cs_backend *be = r->be;
    int status = cs_resolve_cipher(r, evp);
    r->evp = *evp;
    if (status == 0)
        status = cs_resolve_impl(r);
    if (status == 0 && be->setup)
        status = be->setup(r);
    if (status == 0 && !r->cores_used)
        r->cores_used = r->threads * r->ranks;
    if (status == 0 && r->is_root)
        status = r->aead ? cs_aead_prepare_data(r) : cs_prepare_data(r);
    const int all = cs_run_agree(r, status);
    if (all && !status)
        cs_error(r, "another rank could not set the run up (its own checks failed: e.g. an "
                    "impl its CPU lacks)");
    return all;
}

/* Options (identical on every rank), then the run's set-up (every rank agrees). */
static int prepare(cs_run *r, int argc, char **argv, void **evp)
{
    const cs_backend *be = r->be;
    const cs_prog_info info = {be->prog, be->version, be->flags, be->impls, be->impls_auto,
                               be->help};
    int status = cs_parse_options(argc, argv, &info, &r->o, !r->is_root);
    if (status)
        return status;
    r->threads = r->o.threads;
    if (r->o.gen_input)
        return cs_write_generated_input(r) ? CS_EXIT_FAIL : -1;
    return resolve_and_load(r, evp);
}

int cs_runner_main(int argc, char **argv, const cs_backend *be, void *ctx)
{
    cs_run run, *r = &run;
    cs_run_init(r, be, ctx);
    void *evp = NULL;
    int status = be->init ? be->init(r) : 0;
    if (status)
        return status;
    status = prepare(r, argc, argv, &evp);
    if (status == 0)
        status = cs_measure(r);
    else if (status == -1) /* --help, --version, --gen-input done */
        status = 0;
    if (be->finish)
        be->finish(r);
    free(r->plain);
    cs_run_free(r, r->in);
    cs_run_free(r, r->out);
    free(r->ref);
    free(r->ad);
    cs_evp_free(evp);
    return status;
}
