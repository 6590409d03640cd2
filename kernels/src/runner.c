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

/* Options, cipher, impl, the backend's setup and the data (every rank agrees). */
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
    if ((status = cs_resolve_cipher(r, evp)) != 0)
        return status;
    r->evp = *evp;
    if ((status = cs_resolve_impl(r)) != 0)
        return status;
    if (be->setup && (status = be->setup(r)) != 0)
        return status;
    if (!r->cores_used)
        r->cores_used = r->threads * r->ranks;
    status = r->is_root ? (r->aead ? cs_aead_prepare_data(r) : cs_prepare_data(r)) : 0;
    return cs_run_agree(r, status);
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
