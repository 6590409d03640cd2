/* main_seq.c - aes-seq: the whole message on one core (AES ECB/CTR through seq_rep; the
 * AEADs ascon-aead128 and aes-128-gcm through the runner's AEAD path, aead_run.c). */
#include "runner.h"

static int seq_rep(cs_run *r, cs_timings *t)
{
    cs_aes_key k;
    const char *err = "";
    const double t0 = cs_now();
    cs_aes_expand_key(&k, r->key, r->key_bytes);
    const double t1 = cs_now();
    const cs_aes_job j = cs_run_job(r, &k);
    const int rc = cs_aes_crypt(&j, r->in, r->in_len, r->out, &r->out_len, &err);
    const double t2 = cs_now();
    if (rc) {
        cs_error(r, "%s", err);
        return CS_EXIT_FAIL;
    }
    t->t_keyexp = t1 - t0;
    t->t_compute = t2 - t1;
    t->t_total = t2 - t0;
    return 0;
}

static const cs_backend seq_backend = {
    .name = "seq",
    .prog = "aes-seq",
    .flags = CS_BE_AES_IMPLS | CS_BE_AEAD,
    .rep = seq_rep,
};

int main(int argc, char **argv) { return cs_runner_main(argc, argv, &seq_backend, NULL); }
