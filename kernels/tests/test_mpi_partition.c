/* test_mpi_partition.c - aes-mpi's shares of the message (mpi_partition.c) for every
 * shape that matters: fewer blocks than ranks (ranks with 0 bytes), sizes that are not a
 * multiple of 16 or of 16 x ranks, ECB padding on the last share, and the int limit of
 * MPI_Scatterv/MPI_Gatherv counts. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "aes.h"
#include "check.h"
#include "mpi_partition.h"

static void check_shape(uint64_t n, int p, int grow)
{
    cs_mpi_partition pt = {calloc((size_t)p, sizeof(int)), calloc((size_t)p, sizeof(int)),
                           calloc((size_t)p, sizeof(int)), calloc((size_t)p, sizeof(int)),
                           calloc((size_t)p, sizeof(uint64_t))};
    CHECK(cs_mpi_partition_fill(&pt, n, p, grow) == 0, "n=%llu p=%d refused", (unsigned long long)n, p);
    uint64_t in = 0, out = 0, lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < p; i++) {
        const uint64_t blocks = ((uint64_t)pt.cnt_in[i] + 15) / 16;
        CHECK(pt.cnt_in[i] >= 0 && pt.cnt_out[i] >= 0, "n=%llu p=%d rank %d: negative count",
              (unsigned long long)n, p, i);
        CHECK((uint64_t)pt.dsp_in[i] == in && (uint64_t)pt.dsp_out[i] == out,
              "n=%llu p=%d rank %d: share not contiguous", (unsigned long long)n, p, i);
        CHECK(pt.first_block[i] * 16 == (uint64_t)pt.dsp_in[i],
              "n=%llu p=%d rank %d: CTR block index is not its offset", (unsigned long long)n, p, i);
        CHECK(i == p - 1 || pt.cnt_in[i] % 16 == 0, "n=%llu p=%d rank %d: partial block",
              (unsigned long long)n, p, i);
        const int want_out = (grow && i == p - 1) ? (pt.cnt_in[i] / 16 + 1) * 16 : pt.cnt_in[i];
        CHECK(pt.cnt_out[i] == want_out, "n=%llu p=%d rank %d: output count %d, want %d",
              (unsigned long long)n, p, i, pt.cnt_out[i], want_out);
        in += (uint64_t)pt.cnt_in[i];
        out += (uint64_t)pt.cnt_out[i];
        lo = blocks < lo ? blocks : lo;
        hi = blocks > hi ? blocks : hi;
    }
    CHECK(in == n, "n=%llu p=%d: shares add up to %llu", (unsigned long long)n, p, (unsigned long long)in);
    CHECK(out == (grow ? cs_pkcs7_padded_len((size_t)n) : n), "n=%llu p=%d grow=%d: output %llu",
          (unsigned long long)n, p, grow, (unsigned long long)out);
    CHECK(hi - lo <= 1, "n=%llu p=%d: shares differ by %llu blocks",
          (unsigned long long)n, p, (unsigned long long)(hi - lo));
    CHECK(pt.cnt_in[p - 1] > 0, "n=%llu p=%d: the last rank has no data", (unsigned long long)n, p);
    free(pt.cnt_in);
    free(pt.dsp_in);
    free(pt.cnt_out);
    free(pt.dsp_out);
    free(pt.first_block);
}

int main(void)
{
    static const uint64_t sizes[] = {1, 15, 16, 17, 33, 511, 512, 513, 1029, 16 * 32 - 1,
                                     16 * 32 + 1, (1u << 20) + 5, (uint64_t)INT_MAX - 16};
    static const int ranks[] = {1, 2, 3, 7, 8, 16, 31, 32, 33, 64, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t r = 0; r < sizeof ranks / sizeof *ranks; r++)
            for (int grow = 0; grow <= 1; grow++)
                check_shape(sizes[s], ranks[r], grow);
    int c[1];
    uint64_t f[1];
    cs_mpi_partition one = {c, c, c, c, f};
    CHECK(cs_mpi_partition_fill(&one, (uint64_t)INT_MAX - 15, 1, 1) == -1,
          "a message whose padded output passes INT_MAX is refused");
    CHECK(cs_mpi_partition_fill(&one, 16, 0, 0) == -1, "0 ranks is refused");
    printf("mpi_partition: %d checks, %d failure(s)\n", g_pass + g_fail, g_fail);
    return g_fail != 0;
}
