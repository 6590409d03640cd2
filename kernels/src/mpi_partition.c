/* mpi_partition.c - aes-mpi's shares of the message (see mpi_partition.h). */
#include <limits.h>

#include "mpi_partition.h"

int cs_mpi_partition_fill(cs_mpi_partition *pt, uint64_t n, int p, int grow)
{
    if (p < 1 || n > (uint64_t)INT_MAX - 16)
        return -1;
    const uint64_t nb = (n + 15) / 16, np = (uint64_t)p;
    for (uint64_t i = 0; i < np; i++) {
        const uint64_t b0 = nb * i / np, b1 = nb * (i + 1) / np;
        const uint64_t off = 16 * b0, end = 16 * b1 < n ? 16 * b1 : n;
        const uint64_t len = end > off ? end - off : 0;
        pt->first_block[i] = b0;
        pt->dsp_in[i] = (int)off;
        pt->cnt_in[i] = (int)len;
        pt->dsp_out[i] = (int)off;
        /* the last share of an ECB encryption with padding grows by the pad block */
        pt->cnt_out[i] = (int)((grow && i == np - 1) ? (len / 16 + 1) * 16 : len);
    }
    return 0;
}
