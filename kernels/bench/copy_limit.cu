/*
 * copy_limit.cu - aes-cuda-copylimit: the host<->device copy limit of this machine, the
 * bound aes-cuda's end-to-end throughput is compared with (bench/gpu_bench.py).
 *
 * SIZE bytes (default 1 GiB) of pinned host memory (cudaMallocHost) are copied the way
 * the overlapped pipeline copies them: in chunks of cs_chunk_default(SIZE) bytes
 * (cuda_chunks.h, 32 MiB for 1 GiB) queued round-robin on STREAMS streams (default 4,
 * as aes-cuda --streams 4), and, for comparison, as one whole copy on one stream.  For
 * each way it times (CUDA events, best of 5 after a warm-up):
 *   h2d alone, d2h alone      one direction at a time
 *   h2d and d2h at once       both directions queued together, on streams of their own
 * and reports, in GB/s (10^9 bytes per second):
 *   h2d_alone_gbs, d2h_alone_gbs, h2d_gbs, d2h_gbs   the best of the two ways
 *   limit_gbps    8 x min(best h2d, best d2h): every byte crosses each link once, and no
 *                 link was seen faster, so no schedule beats it (copy_bound.h)
 *   mix_gbps      8 x the best mix of the measured modes (an estimate, not a bound)
 *   how           one line saying how it was measured
 * One JSON object.  No CUDA device: one line on stderr, exit 3 (as aes-cuda).
 *   aes-cuda-copylimit [SIZE_BYTES [STREAMS]]
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_bound.h"
#include "cuda_chunks.h"

#define CKX(call)                                                                       \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "aes-cuda-copylimit: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define MAX_STREAMS 16

typedef struct {
    void *h_in, *h_out, *d_a, *d_b;
    size_t n;
    cudaStream_t up[MAX_STREAMS], down[MAX_STREAMS];
} buffers;

/* Seconds from the first copy queued to the last one done, in each listed direction
 * (h2d, d2h), the n bytes in pieces of `piece` bytes over `streams` streams each. */
static void timed(const buffers *b, int h2d, int d2h, size_t piece, int streams,
                  double *t_h2d, double *t_d2h)
{
    cudaEvent_t start[2], done[MAX_STREAMS][2];
    for (int d = 0; d < 2; d++) CKX(cudaEventCreate(&start[d]));
    for (int s = 0; s < streams; s++)
        for (int d = 0; d < 2; d++) CKX(cudaEventCreate(&done[s][d]));
    CKX(cudaDeviceSynchronize());
    if (h2d) CKX(cudaEventRecord(start[0], b->up[0]));
    if (d2h) CKX(cudaEventRecord(start[1], b->down[0]));
    for (int s = 1; s < streams; s++) { /* every stream starts after the start event */
        if (h2d) CKX(cudaStreamWaitEvent(b->up[s], start[0], 0));
        if (d2h) CKX(cudaStreamWaitEvent(b->down[s], start[1], 0));
    }
    for (size_t off = 0, i = 0; off < b->n; off += piece, i++) {
        const size_t len = b->n - off < piece ? b->n - off : piece;
        const int s = (int)(i % (size_t)streams);
        if (h2d)
            CKX(cudaMemcpyAsync((char *)b->d_a + off, (char *)b->h_in + off, len,
                                cudaMemcpyHostToDevice, b->up[s]));
        if (d2h)
            CKX(cudaMemcpyAsync((char *)b->h_out + off, (char *)b->d_b + off, len,
                                cudaMemcpyDeviceToHost, b->down[s]));
    }
    for (int s = 0; s < streams; s++) {
        if (h2d) CKX(cudaEventRecord(done[s][0], b->up[s]));
        if (d2h) CKX(cudaEventRecord(done[s][1], b->down[s]));
    }
    CKX(cudaDeviceSynchronize());
    for (int d = 0; d < 2; d++) {
        if (!(d ? d2h : h2d)) continue;
        float longest = 0;
        for (int s = 0; s < streams; s++) {
            float ms = 0;
            CKX(cudaEventElapsedTime(&ms, start[d], done[s][d]));
            if (ms > longest) longest = ms;
        }
        *(d ? t_d2h : t_h2d) = longest * 1e-3;
    }
    for (int d = 0; d < 2; d++) cudaEventDestroy(start[d]);
    for (int s = 0; s < streams; s++)
        for (int d = 0; d < 2; d++) cudaEventDestroy(done[s][d]);
}

/* Best rates (GB/s) of the n bytes copied in pieces of `piece` over `streams` streams:
 * h2d alone, d2h alone, h2d at once, d2h at once. */
static void best_rates(const buffers *b, size_t piece, int streams, double rate[4])
{
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    for (int rep = 0; rep < 6; rep++) { /* the first is a warm-up */
        double t[4] = {1e30, 1e30, 1e30, 1e30};
        timed(b, 1, 0, piece, streams, &t[0], &t[1]);
        timed(b, 0, 1, piece, streams, &t[0], &t[1]);
        timed(b, 1, 1, piece, streams, &t[2], &t[3]);
        for (int i = 0; rep > 0 && i < 4; i++)
            if (t[i] < best[i]) best[i] = t[i];
    }
    for (int i = 0; i < 4; i++) rate[i] = (double)b->n * 1e-9 / best[i];
}

static double max2(double a, double b) { return a > b ? a : b; }

int main(int argc, char **argv)
{
    buffers b;
    memset(&b, 0, sizeof b);
    b.n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : ((size_t)1 << 30);
    const int streams = argc > 2 ? atoi(argv[2]) : 4;
    if (b.n < 16 || streams < 1 || streams > MAX_STREAMS) {
        fprintf(stderr, "aes-cuda-copylimit: SIZE_BYTES >= 16 and STREAMS in 1..%d "
                        "(usage: aes-cuda-copylimit [SIZE_BYTES [STREAMS]])\n", MAX_STREAMS);
        return 2;
    }
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
        fprintf(stderr, "aes-cuda-copylimit: no CUDA device: %s\n",
                cudaGetErrorString(e != cudaSuccess ? e : cudaErrorNoDevice));
        return 3;
    }
    CKX(cudaMallocHost(&b.h_in, b.n));
    CKX(cudaMallocHost(&b.h_out, b.n));
    CKX(cudaMalloc(&b.d_a, b.n));
    CKX(cudaMalloc(&b.d_b, b.n));
    for (int i = 0; i < streams; i++) {
        CKX(cudaStreamCreateWithFlags(&b.up[i], cudaStreamNonBlocking));
        CKX(cudaStreamCreateWithFlags(&b.down[i], cudaStreamNonBlocking));
    }
    const size_t chunk = cs_chunk_default(b.n);
    double chunked[4], whole[4];
    best_rates(&b, chunk, streams, chunked);
    best_rates(&b, b.n, 1, whole);
    const cs_copy_rates r = {max2(chunked[0], whole[0]), max2(chunked[1], whole[1]),
                             max2(chunked[2], whole[2]), max2(chunked[3], whole[3])};
    printf("{\"bytes\": %zu, \"chunk\": %zu, \"streams\": %d, "
           "\"h2d_alone_gbs\": %.2f, \"d2h_alone_gbs\": %.2f, \"h2d_gbs\": %.2f, "
           "\"d2h_gbs\": %.2f, \"chunked_gbs\": [%.2f, %.2f, %.2f, %.2f], "
           "\"whole_gbs\": [%.2f, %.2f, %.2f, %.2f], \"limit_gbps\": %.1f, \"mix_gbps\": %.1f, "
           "\"how\": \"best of 5, pinned, %zu MiB chunks on %d streams and one whole copy; "
           "limit = 8 x min(best H2D, best D2H), alone or at once\"}\n",
           b.n, chunk, streams, r.h2d_alone, r.d2h_alone, r.h2d_both, r.d2h_both, chunked[0],
           chunked[1], chunked[2], chunked[3], whole[0], whole[1], whole[2], whole[3],
           8 * cs_copy_limit(&r), 8 * cs_copy_mix(&r), chunk >> 20, streams);
    return 0;
}
