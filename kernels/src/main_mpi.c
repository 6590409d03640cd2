/*
 * main_mpi.c - aes-mpi, the reference study's distribution:
 *   rank 0 has the input and expands the key; MPI_Bcast of the round keys (t_bcast);
 *   MPI_Scatterv of contiguous runs of whole blocks, sizes need not divide evenly
 *   (t_scatter); every rank encrypts its share, CTR counter = iv + its first block
 *   index, ECB padding on the last rank's share (t_compute = max over ranks,
 *   MPI_Reduce MAX); MPI_Gatherv back to rank 0 (t_gather; on rank 0 this includes
 *   waiting for the slowest rank).  t_total: MPI_Wtime on rank 0 from just after a
 *   barrier to the end of the gather (and the padding check on decryption).
 *   Rank 0 keeps its own share in place (MPI_IN_PLACE) instead of copying it.
 * Energy: one rank per node (MPI_Comm_split_type shared, local rank 0) reads the node's
 * counters; readings are summed on rank 0.  CPU time is summed over all ranks.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi_partition.h"
#include "runner.h"
#include "sockets_nodelay.h"

typedef struct {
    int rank, size, local_rank, nodes;
    MPI_Comm node;
    int ready;             /* partition computed (first repetition) */
    uint64_t n;            /* message length (bytes) */
    cs_mpi_partition pt;   /* every rank's share (mpi_partition.h) */
    uint8_t *lin, *lout;   /* this rank's share (ranks != 0) */
} mpi_ctx;

static int mpi_init(cs_run *r)
{
    mpi_ctx *c = r->ctx;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &c->node);
    MPI_Comm_rank(c->node, &c->local_rank);
    const int leader = c->local_rank == 0;
    MPI_Allreduce(&leader, &c->nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    r->is_root = c->rank == 0;
    r->energy_reader = leader;
    r->ranks = c->size;
    r->clock = "MPI_Wtime";
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    v[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = 0;
    v[strcspn(v, "\n")] = 0;
    for (int i = (int)strlen(v) - 1; i >= 0 && (v[i] == ' ' || v[i] == ',' || v[i] == '\t'); i--)
        v[i] = 0;
    snprintf(r->mpi_version, sizeof r->mpi_version, "%s", v);
    return 0;
}

static int mpi_agree(cs_run *r, int status)
{
    (void)r;
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* Every rank computes the same partition of ceil(n/16) blocks over the ranks. */
static int partition(cs_run *r, mpi_ctx *c)
{
    uint64_t n = r->in_len;
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    c->n = n;
    cs_mpi_partition *pt = &c->pt;
    pt->cnt_in = calloc((size_t)c->size, sizeof(int));
    pt->dsp_in = calloc((size_t)c->size, sizeof(int));
    pt->cnt_out = calloc((size_t)c->size, sizeof(int));
    pt->dsp_out = calloc((size_t)c->size, sizeof(int));
    pt->first_block = calloc((size_t)c->size, sizeof(uint64_t));
    if (!pt->cnt_in || !pt->dsp_in || !pt->cnt_out || !pt->dsp_out || !pt->first_block)
        return CS_EXIT_FAIL;
    const int grow = r->o.mode == CS_ECB && r->o.op == CS_ENCRYPT && r->pad;
    if (cs_mpi_partition_fill(pt, n, c->size, grow) != 0) {
        cs_error(r, "%llu bytes is more than MPI_Scatterv's int counts can address",
                 (unsigned long long)n);
        return CS_EXIT_FAIL;
    }
    if (c->rank != 0) {
        c->lin = malloc((size_t)pt->cnt_in[c->rank] + 1);
        c->lout = malloc((size_t)pt->cnt_out[c->rank] + 1);
        if (!c->lin || !c->lout)
            return CS_EXIT_FAIL;
    }
    c->ready = 1;
    return 0;
}

/* Root, after the gather: the output's length, and on ECB decryption whether its PKCS#7
 * padding is right (*badpad = 1 when not). */
static size_t gathered_len(cs_run *r, const mpi_ctx *c, int *badpad)
{
    size_t out_len = (size_t)c->pt.dsp_out[c->size - 1] + (size_t)c->pt.cnt_out[c->size - 1];
    if (r->o.mode == CS_ECB && r->o.op == CS_DECRYPT && r->pad)
        *badpad = cs_pkcs7_check(r->out, out_len, &out_len) != 0;
    return out_len;
}

static int mpi_rep(cs_run *r, cs_timings *t)
{
    mpi_ctx *c = r->ctx;
    if (!c->ready) {
        int st = partition(r, c);
        MPI_Allreduce(MPI_IN_PLACE, &st, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (st) {
            cs_error(r, "cannot distribute the input");
            return CS_EXIT_FAIL;
        }
    }
    const int me = c->rank, root = me == 0, last = me == c->size - 1;
    cs_aes_key k;
    memset(&k, 0, sizeof k);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (root)
        cs_aes_expand_key(&k, r->key, r->key_bytes);
    const double t1 = MPI_Wtime();
    MPI_Bcast(&k, (int)sizeof k, MPI_BYTE, 0, MPI_COMM_WORLD);
    const double t2 = MPI_Wtime();
    if (root)
        MPI_Scatterv(r->in, c->pt.cnt_in, c->pt.dsp_in, MPI_BYTE, MPI_IN_PLACE, 0, MPI_BYTE, 0,
                     MPI_COMM_WORLD);
    else
        MPI_Scatterv(NULL, NULL, NULL, MPI_BYTE, c->lin, c->pt.cnt_in[me], MPI_BYTE, 0, MPI_COMM_WORLD);
    const double t3 = MPI_Wtime();
    const cs_aes_job j = cs_run_job(r, &k);
    const uint8_t *in = root ? r->in + c->pt.dsp_in[0] : c->lin;
    uint8_t *out = root ? r->out + c->pt.dsp_out[0] : c->lout;
    const size_t w = cs_aes_chunk(&j, c->pt.first_block[me], in, (size_t)c->pt.cnt_in[me], out, last);
    const double t4 = MPI_Wtime();
    int bad = w == (size_t)-1 || (w != (size_t)c->pt.cnt_out[me]);
    if (root)
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_BYTE, r->out, c->pt.cnt_out, c->pt.dsp_out, MPI_BYTE, 0,
                    MPI_COMM_WORLD);
    else
        MPI_Gatherv(c->lout, c->pt.cnt_out[me], MPI_BYTE, NULL, NULL, NULL, MPI_BYTE, 0, MPI_COMM_WORLD);
    int badpad = 0;
    const size_t out_len = root ? gathered_len(r, c, &badpad) : 0;
    const double t5 = MPI_Wtime();
    double tc = t4 - t3, tc_max = 0;
    MPI_Reduce(&tc, &tc_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        cs_error(r, "input length is not a multiple of 16 bytes (ECB without padding)");
        return CS_EXIT_FAIL;
    }
    if (badpad) {
        cs_error(r, "bad decrypt: wrong PKCS#7 padding");
        return CS_EXIT_FAIL;
    }
    r->out_len = out_len;
    t->t_keyexp = t1 - t0;
    t->t_bcast = t2 - t1;
    t->t_scatter = t3 - t2;
    t->t_compute = tc_max;
    t->t_gather = t5 - t4;
    t->t_total = t5 - t0;
    return 0;
}

/* Energy: sum of the node leaders' readings; CPU time: sum over all ranks. */
static void mpi_after_rep(cs_run *r, cs_energy_reading *e, double *user, double *sys)
{
    mpi_ctx *c = r->ctx;
    double v[6] = {0, 0, 0, 0, 0, 0}, s[6];
    double miss[4] = {0, 0, 0, 0}, ms[4];
    const double vals[4] = {e->joules, e->joules_pkg, e->joules_core, e->joules_dram};
    if (r->energy_reader) {
        for (int i = 0; i < 4; i++) {
            if (isnan(vals[i]))
                miss[i] = 1;
            else
                v[i] = vals[i];
        }
    }
    v[4] = *user;
    v[5] = *sys;
    MPI_Reduce(v, s, 6, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(miss, ms, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (c->rank != 0)
        return;
    *user = s[4];
    *sys = s[5];
    e->joules = ms[0] > 0 ? NAN : s[0];
    e->joules_pkg = ms[1] > 0 ? NAN : s[1];
    e->joules_core = ms[2] > 0 ? NAN : s[2];
    e->joules_dram = ms[3] > 0 ? NAN : s[3];
    if (isnan(e->joules)) {
        e->source = NULL;
        e->scope[0] = 0;
    }
    e->nodes = c->nodes;
    char note[sizeof e->note + 160]; /* e->note, then the node-wide caveat: cut below */
    snprintf(note, sizeof note, "%s%snode-wide energy of %d node(s), one reader rank per node: "
             "meaningful only on exclusive nodes", e->note, e->note[0] ? "; " : "", c->nodes);
    note[sizeof e->note - 1] = 0;
    memcpy(e->note, note, sizeof e->note);
}

static void mpi_finish(cs_run *r)
{
    mpi_ctx *c = r->ctx;
    free(c->pt.cnt_in);
    free(c->pt.dsp_in);
    free(c->pt.cnt_out);
    free(c->pt.dsp_out);
    free(c->pt.first_block);
    free(c->lin);
    free(c->lout);
    if (c->node != MPI_COMM_NULL)
        MPI_Comm_free(&c->node);
}

static const cs_backend mpi_backend = {
    .name = "mpi",
    .prog = "aes-mpi",
    .flags = CS_BE_AES_IMPLS,
    .help = "Ranks: the processes mpirun or srun starts (e.g. mpirun -np 4 aes-mpi ...); rank 0\n"
            "holds the data and scatters a contiguous share of whole blocks to every rank.",
    .init = mpi_init,
    .rep = mpi_rep,
    .after_rep = mpi_after_rep,
    .agree = mpi_agree,
    .finish = mpi_finish,
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mpi_ctx c;
    memset(&c, 0, sizeof c);
    c.node = MPI_COMM_NULL;
    const int rc = cs_runner_main(argc, argv, &mpi_backend, &c);
    cs_sockets_nodelay(); /* the launcher hears the finalization at once (sockets_nodelay.c) */
    MPI_Finalize();
    return rc;
}
