/*
 * aes_cuda_ref.cu - gpu-ref: the reference study's CUDA design, as it describes it: the
 * host expands the key and copies the round keys and the S-box into constant memory;
 * each thread block's threads first copy their consecutive 16-byte states from global
 * into shared memory together (coalesced), each thread then runs the byte-oriented
 * FIPS-197 rounds (SubBytes, ShiftRows, MixColumns, AddRoundKey; decryption their
 * inverses, 5.3) on one state, and the block copies the results back the same way; the
 * grid is sized to the data (one thread per state).  The block function is
 * aes_block_gpu_ref.h, the code the CPU test runs.
 */
#include "aes_cuda_impl.h"

extern "C" {
#include "aes_tables.h"
}
#include "aes_block_gpu_ref.h"

__constant__ uint8_t c_sbox[256];
__constant__ uint8_t c_isbox[256];
__constant__ uint8_t c_rk8[16 * (CS_AES_MAX_ROUNDS + 1)];
__constant__ uint32_t c_iv[4];

template <int MODE>
__global__ void ref_kernel(uint4 *buf, cs_cuda_work w)
{
    extern __shared__ uint4 states[];
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    /* one pass when the grid covers the data (the study's case); strides otherwise */
    for (unsigned long long base = (unsigned long long)blockIdx.x * blockDim.x; base < w.nblocks;
         base += stride) {
        const unsigned long long i = base + threadIdx.x;
        if (i < w.nblocks) states[threadIdx.x] = buf[i]; /* coalesced, into shared memory */
        __syncthreads();
        if (i < w.nblocks) {
            const uint4 v = states[threadIdx.x];
            uint32_t x[4] = {v.x, v.y, v.z, v.w};
            const unsigned long long idx = w.first + i;
            if (MODE == CS_K_ECB_ENC && w.padv) cs_gpu_pad_le_words(idx, w.msg_len, w.padv, x);
            cs_ref_process_le_words(MODE == CS_K_ECB_DEC ? c_isbox : c_sbox, c_rk8, w.nr, MODE, c_iv,
                                    idx, x);
            states[threadIdx.x] = make_uint4(x[0], x[1], x[2], x[3]);
        }
        __syncthreads();
        if (i < w.nblocks) buf[i] = states[threadIdx.x]; /* coalesced, back to global */
        __syncthreads();
    }
}

static cudaError_t ref_init(void)
{
    cudaError_t e = cudaMemcpyToSymbol(c_sbox, cs_sbox, sizeof cs_sbox);
    return e == cudaSuccess ? cudaMemcpyToSymbol(c_isbox, cs_inv_sbox, sizeof cs_inv_sbox) : e;
}

static cudaError_t ref_set_key(const cs_aes_key *k, int kind, const uint8_t iv[16],
                               cudaStream_t st)
{
    (void)kind; /* the inverse cipher uses the encryption round keys in reverse order */
    uint32_t ivw[4];
    for (int i = 0; i < 4; i++) ivw[i] = cs_gpu_load_be32(iv + 4 * i);
    return cs_cuda_copy_key(c_rk8, c_iv, k->rk, (size_t)16 * (k->nr + 1), ivw, st);
}

static const cs_cuda_kernel_fn ref_kernels[CS_K_KINDS] = CS_CUDA_KERNELS(ref_kernel);

static size_t ref_shared(int kind, int bt)
{
    (void)kind;
    return (size_t)bt * sizeof(uint4);
}

const cs_cuda_impl cs_cuda_impl_ref = {
    "gpu-ref", 1, 1, ref_init, ref_set_key, ref_kernels, ref_shared,
};
