/*
 * main_omp.c - aes-omp: --threads T OpenMP threads, each encrypting one contiguous
 * chunk of whole blocks (the reference study's split).  CTR: a thread's counter starts
 * at iv + its first block index.  ECB padding is added by the thread holding the last
 * chunk; on decryption the padding is checked once the threads have joined.
 */
#include <omp.h>

#include "runner.h"

static int omp_setup(cs_run *r)
{
    omp_set_dynamic(0); /* exactly --threads threads, or an error */
    r->threads = r->o.threads;
    return 0;
}

static int omp_rep(cs_run *r, cs_timings *t)
{
    cs_aes_key k;
    const double t0 = cs_now();
    cs_aes_expand_key(&k, r->key, r->key_bytes);
    const double t1 = cs_now();
    const cs_aes_job j = cs_run_job(r, &k);
    const size_t n = r->in_len;
    const uint64_t nblocks = (n + 15) / 16;
    size_t out_len = 0;
    int bad = 0, team = 0;
#pragma omp parallel num_threads(r->threads) default(none) \
    shared(j, r, n, nblocks, out_len, team) reduction(| : bad)
    {
        const uint64_t id = (uint64_t)omp_get_thread_num(), nt = (uint64_t)omp_get_num_threads();
        const uint64_t b0 = nblocks * id / nt, b1 = nblocks * (id + 1) / nt;
        const size_t off = (size_t)(16 * b0);
        const size_t end = (size_t)(16 * b1) < n ? (size_t)(16 * b1) : n;
        const int last = id == nt - 1;
        const size_t w = cs_aes_chunk(&j, b0, r->in + off, end > off ? end - off : 0, r->out + off, last);
        if (w == (size_t)-1)
            bad = 1;
        else if (last) {
            out_len = off + w;
            team = (int)nt;
        }
    }
    if (!bad && r->o.mode == CS_ECB && r->o.op == CS_DECRYPT && r->pad &&
        cs_pkcs7_check(r->out, out_len, &out_len) != 0) {
        cs_error(r, "bad decrypt: wrong PKCS#7 padding");
        return CS_EXIT_FAIL;
    }
    const double t2 = cs_now();
    if (bad) {
        cs_error(r, "input length is not a multiple of 16 bytes (ECB without padding)");
        return CS_EXIT_FAIL;
    }
    if (team != r->threads) {
        cs_error(r, "OpenMP gave %d threads instead of %d", team, r->threads);
        return CS_EXIT_FAIL;
    }
    r->out_len = out_len;
    t->t_keyexp = t1 - t0;
    t->t_compute = t2 - t1;
    t->t_total = t2 - t0;
    return 0;
}

static const cs_backend omp_backend = {
    .name = "omp",
    .prog = "aes-omp",
    .flags = CS_BE_AES_IMPLS | CS_BE_THREADS,
    .setup = omp_setup,
    .rep = omp_rep,
};

int main(int argc, char **argv) { return cs_runner_main(argc, argv, &omp_backend, NULL); }
