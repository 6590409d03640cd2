/*
 * aes_cuda_lanes.cu - gpu-lanes, the default GPU impl: T-table AES (FIPS-197 5.1, the
 * equivalent inverse cipher 5.3.5) whose shared-memory reads are free of bank conflicts.
 * Every thread block builds ONE table (Te0; decryption: Td0 and a packed inverse S-box)
 * replicated 32 times and interleaved (entry x of copy L at word 32 x + L), so lane L of
 * a warp only ever reads bank L; the other three tables are byte rotations done with
 * PRMT.  Each thread takes CS_LANES_BPT blocks per step of a grid-stride loop (block j of
 * the step at i + j * blockDim.x: every 16-byte load is coalesced across the warp) and
 * interleaves their rounds.  The block function is aes_block_gpu_lanes.h, the code the
 * CPU test runs.  Shared memory: 32 KiB (encryption, CTR) or 40 KiB (decryption).
 */
#include "aes_cuda_impl.h"

extern "C" {
#include "aes_tables.h"
}
#include "aes_block_gpu_lanes.h"

#define CS_LANES_BPT 4 /* blocks per thread per step */

__constant__ uint32_t c_rk[4 * (CS_AES_MAX_ROUNDS + 1)];
__constant__ uint32_t c_iv[4];
__device__ uint32_t g_te0[256];
__device__ uint32_t g_td0[256];
__device__ uint32_t g_isb4[64]; /* inverse S-box, 4 bytes per word, little-endian */

template <int MODE>
__global__ void lanes_kernel(uint4 *buf, cs_cuda_work w)
{
    extern __shared__ uint32_t smem[];
    uint32_t *sT = smem, *sIS = smem + 256 * CS_LANES;
    const uint32_t *gT = MODE == CS_K_ECB_DEC ? g_td0 : g_te0;
    for (int i = threadIdx.x; i < 256 * CS_LANES; i += blockDim.x) sT[i] = gT[i / CS_LANES];
    if (MODE == CS_K_ECB_DEC)
        for (int i = threadIdx.x; i < 64 * CS_LANES; i += blockDim.x) sIS[i] = g_isb4[i / CS_LANES];
    __syncthreads();
    const unsigned lane = threadIdx.x & (CS_LANES - 1);
    const uint32_t *T = sT + lane, *IS = sIS + lane;

    const unsigned long long bt = blockDim.x;
    const unsigned long long step = (unsigned long long)gridDim.x * bt * CS_LANES_BPT;
    for (unsigned long long i = (unsigned long long)blockIdx.x * bt * CS_LANES_BPT + threadIdx.x;
         i < w.nblocks; i += step) {
        uint32_t x[CS_LANES_BPT][4];
        uint64_t idx[CS_LANES_BPT];
#pragma unroll
        for (int j = 0; j < CS_LANES_BPT; j++) {
            const unsigned long long b = i + j * bt;
            const uint4 v = b < w.nblocks ? buf[b] : make_uint4(0, 0, 0, 0);
            x[j][0] = v.x; x[j][1] = v.y; x[j][2] = v.z; x[j][3] = v.w;
            idx[j] = w.first + b;
            if (MODE == CS_K_ECB_ENC && w.padv) cs_gpu_pad_le_words(idx[j], w.msg_len, w.padv, x[j]);
        }
        cs_lanes_process_le_words(T, IS, c_rk, w.nr, MODE, c_iv, idx, x, CS_LANES_BPT);
#pragma unroll
        for (int j = 0; j < CS_LANES_BPT; j++) {
            const unsigned long long b = i + j * bt;
            if (b < w.nblocks) buf[b] = make_uint4(x[j][0], x[j][1], x[j][2], x[j][3]);
        }
    }
}

static cudaError_t lanes_init(void)
{
    uint32_t isb4[64];
    for (int i = 0; i < 64; i++)
        isb4[i] = (uint32_t)cs_inv_sbox[4 * i] | ((uint32_t)cs_inv_sbox[4 * i + 1] << 8) |
                  ((uint32_t)cs_inv_sbox[4 * i + 2] << 16) | ((uint32_t)cs_inv_sbox[4 * i + 3] << 24);
    cudaError_t e = cudaMemcpyToSymbol(g_te0, cs_te0, sizeof cs_te0);
    if (e == cudaSuccess) e = cudaMemcpyToSymbol(g_td0, cs_td0, sizeof cs_td0);
    if (e == cudaSuccess) e = cudaMemcpyToSymbol(g_isb4, isb4, sizeof isb4);
    /* decryption needs 40 KiB of dynamic shared memory: allow up to 48 KiB explicitly */
    const void *k[3] = {(const void *)lanes_kernel<CS_K_ECB_ENC>,
                        (const void *)lanes_kernel<CS_K_ECB_DEC>, (const void *)lanes_kernel<CS_K_CTR>};
    for (int i = 0; i < 3 && e == cudaSuccess; i++)
        e = cudaFuncSetAttribute(k[i], cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);
    return e;
}

static const cs_cuda_kernel_fn lanes_kernels[CS_K_KINDS] = CS_CUDA_KERNELS(lanes_kernel);

static size_t lanes_shared(int kind, int bt)
{
    (void)bt;
    return sizeof(uint32_t) * (256 + (kind == CS_K_ECB_DEC ? 64 : 0)) * CS_LANES;
}

const cs_cuda_impl cs_cuda_impl_lanes = {
    "gpu-lanes", 0, CS_LANES_BPT, lanes_init, cs_cuda_set_key_words<c_rk, c_iv>, lanes_kernels,
    lanes_shared,
};
