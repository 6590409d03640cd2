/*
 * copy_limit.cu - aes-cuda-copylimit: the host<->device copy limit of this machine, as
 * the GPU benchmark compares aes-cuda's end-to-end throughput with it.  Pinned host
 * memory (cudaMallocHost), SIZE bytes each way (default 1 GiB):
 *   h2d_alone_gbs, d2h_alone_gbs   one direction at a time
 *   h2d_gbs, d2h_gbs               both directions at once, on two streams
 *   limit_gbps                     data through an end-to-end encryption when both
 *                                  directions run at once: min(h2d, d2h) x 8 Gbit/GB
 * Best of 5 of each (GB = 10^9 bytes).  Prints one JSON object.  No CUDA device: one
 * line on stderr, exit 3 (as aes-cuda).
 *   aes-cuda-copylimit [SIZE_BYTES]
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define CKX(call)                                                                       \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "aes-cuda-copylimit: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* Seconds for one copy in each listed direction (h2d, d2h), started together. */
static void timed(int h2d, int d2h, size_t n, void *h_in, void *h_out, void *d_a, void *d_b,
                  cudaStream_t s[2], double *t_h2d, double *t_d2h)
{
    cudaEvent_t e[4];
    for (int i = 0; i < 4; i++) CKX(cudaEventCreate(&e[i]));
    CKX(cudaDeviceSynchronize());
    if (h2d) {
        CKX(cudaEventRecord(e[0], s[0]));
        CKX(cudaMemcpyAsync(d_a, h_in, n, cudaMemcpyHostToDevice, s[0]));
        CKX(cudaEventRecord(e[1], s[0]));
    }
    if (d2h) {
        CKX(cudaEventRecord(e[2], s[1]));
        CKX(cudaMemcpyAsync(h_out, d_b, n, cudaMemcpyDeviceToHost, s[1]));
        CKX(cudaEventRecord(e[3], s[1]));
    }
    CKX(cudaDeviceSynchronize());
    float ms = 0;
    if (h2d && cudaEventElapsedTime(&ms, e[0], e[1]) == cudaSuccess) *t_h2d = ms * 1e-3;
    if (d2h && cudaEventElapsedTime(&ms, e[2], e[3]) == cudaSuccess) *t_d2h = ms * 1e-3;
    for (int i = 0; i < 4; i++) cudaEventDestroy(e[i]);
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : ((size_t)1 << 30);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
        fprintf(stderr, "aes-cuda-copylimit: no CUDA device: %s\n",
                cudaGetErrorString(e != cudaSuccess ? e : cudaErrorNoDevice));
        return 3;
    }
    void *h_in, *h_out, *d_a, *d_b;
    CKX(cudaMallocHost(&h_in, n));
    CKX(cudaMallocHost(&h_out, n));
    CKX(cudaMalloc(&d_a, n));
    CKX(cudaMalloc(&d_b, n));
    cudaStream_t s[2];
    for (int i = 0; i < 2; i++) CKX(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    double best[4] = {1e30, 1e30, 1e30, 1e30}; /* h2d alone, d2h alone, h2d both, d2h both */
    for (int rep = 0; rep < 6; rep++) {        /* the first is a warm-up */
        double t[4] = {1e30, 1e30, 1e30, 1e30};
        timed(1, 0, n, h_in, h_out, d_a, d_b, s, &t[0], &t[1]);
        timed(0, 1, n, h_in, h_out, d_a, d_b, s, &t[0], &t[1]);
        timed(1, 1, n, h_in, h_out, d_a, d_b, s, &t[2], &t[3]);
        for (int i = 0; rep > 0 && i < 4; i++)
            if (t[i] < best[i]) best[i] = t[i];
    }
    const double gb = (double)n * 1e-9;
    const double h2d = gb / best[2], d2h = gb / best[3];
    printf("{\"bytes\": %zu, \"h2d_alone_gbs\": %.2f, \"d2h_alone_gbs\": %.2f, \"h2d_gbs\": %.2f, "
           "\"d2h_gbs\": %.2f, \"limit_gbps\": %.1f}\n",
           n, gb / best[0], gb / best[1], h2d, d2h, 8 * (h2d < d2h ? h2d : d2h));
    return 0;
}
