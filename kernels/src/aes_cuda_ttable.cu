/*
 * aes_cuda_ttable.cu - gpu-ttable: the four 1 KiB T-tables (decryption: the Td tables
 * and the inverse S-box) copied into shared memory by every thread block, round keys in
 * __constant__ memory, one 16-byte block per thread at a time over a capped grid
 * (grid-stride), the block staged through shared memory with 16-byte loads.  The block
 * function is aes_block_gpu.h (FIPS-197 5.1 / 5.3.5 as T-table lookups), the code the
 * CPU test runs.  Random table indices make a warp's loads collide in the shared-memory
 * banks (2.8-way on average, measured on an H100); gpu-lanes avoids that.
 */
#include "aes_cuda_impl.h"

extern "C" {
#include "aes_tables.h"
}
#include "aes_block_gpu.h"

__constant__ uint32_t c_rk[4 * (CS_AES_MAX_ROUNDS + 1)];
__constant__ uint32_t c_iv[4];
__device__ uint32_t g_te[4 * 256];
__device__ uint32_t g_td[4 * 256];
__device__ uint8_t g_isbox[256];

template <int MODE>
__global__ void ttable_kernel(uint4 *buf, cs_cuda_work w)
{
    __shared__ uint32_t sT[4 * 256];
    __shared__ uint8_t sIS[256];
    extern __shared__ uint4 tile[];

    const uint32_t *gT = MODE == CS_K_ECB_DEC ? g_td : g_te;
    for (int i = threadIdx.x; i < 4 * 256; i += blockDim.x) sT[i] = gT[i];
    if (MODE == CS_K_ECB_DEC)
        for (int i = threadIdx.x; i < 256; i += blockDim.x) sIS[i] = g_isbox[i];
    __syncthreads();
    const cs_gpu_tables T = {sT, sT + 256, sT + 512, sT + 768, sIS};

    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < w.nblocks; i += stride) {
        const unsigned long long idx = w.first + i;
        /* Each thread owns tile[threadIdx.x]: no barrier is needed around it. */
        tile[threadIdx.x] = buf[i];
        uint4 v = tile[threadIdx.x];
        uint32_t x[4] = {v.x, v.y, v.z, v.w};
        if (MODE == CS_K_ECB_ENC && w.padv) cs_gpu_pad_le_words(idx, w.msg_len, w.padv, x);
        cs_gpu_process_le_words(&T, c_rk, w.nr, MODE, c_iv, idx, x);
        tile[threadIdx.x] = make_uint4(x[0], x[1], x[2], x[3]);
        buf[i] = tile[threadIdx.x];
    }
}

static cudaError_t ttable_init(void)
{
    const uint32_t *te[4] = {cs_te0, cs_te1, cs_te2, cs_te3};
    const uint32_t *td[4] = {cs_td0, cs_td1, cs_td2, cs_td3};
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 4 && e == cudaSuccess; i++) {
        e = cudaMemcpyToSymbol(g_te, te[i], sizeof cs_te0, i * sizeof cs_te0);
        if (e == cudaSuccess) e = cudaMemcpyToSymbol(g_td, td[i], sizeof cs_td0, i * sizeof cs_td0);
    }
    return e == cudaSuccess ? cudaMemcpyToSymbol(g_isbox, cs_inv_sbox, sizeof cs_inv_sbox) : e;
}

static const cs_cuda_kernel_fn ttable_kernels[CS_K_KINDS] = CS_CUDA_KERNELS(ttable_kernel);

static size_t ttable_shared(int kind, int bt)
{
    (void)kind;
    return (size_t)bt * sizeof(uint4);
}

const cs_cuda_impl cs_cuda_impl_ttable = {
    "gpu-ttable", 0, 1, ttable_init, cs_cuda_set_key_words<c_rk, c_iv>, ttable_kernels,
    ttable_shared,
};
