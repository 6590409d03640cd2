/*
 * aes_cuda_impl.h - the GPU block implementations of aes-cuda, one file each:
 *   gpu-lanes   aes_cuda_lanes.cu   (default) one T-table replicated per warp lane:
 *               no shared-memory bank conflicts, several blocks per thread
 *   gpu-ttable  aes_cuda_ttable.cu  four T-tables in shared memory, one block per thread
 *   gpu-ref     aes_cuda_ref.cu     the reference study's design: byte-oriented rounds,
 *               S-box and round keys in constant memory, one thread per 16-byte state
 *               staged through shared memory, grid sized to the data
 * Each keeps its tables and round keys in its own device symbols and lists its kernel
 * for each kind; aes_cuda.cu only sees this table and launches the kernels itself
 * (one launch for every impl).  A kernel processes the blocks
 * [first, first + nblocks) of the message, held at buf (block `first` at buf[0]): CTR
 * block j uses counter iv + j; ECB encryption with padding writes the PKCS#7 bytes into
 * the block(s) past msg_len.
 */
#ifndef CIPHERSWEEP_AES_CUDA_IMPL_H
#define CIPHERSWEEP_AES_CUDA_IMPL_H

#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "aes.h"
}

enum { CS_K_ECB_ENC = 0, CS_K_ECB_DEC = 1, CS_K_CTR = 2, CS_K_KINDS = 3 };

typedef struct {
    unsigned long long first, nblocks, msg_len;
    int nr;
    unsigned padv;            /* PKCS#7 pad value (ECB encryption with padding), else 0 */
} cs_cuda_work;

/* A kernel of one kind (the three instantiations of an impl's kernel template). */
typedef void (*cs_cuda_kernel_fn)(uint4 *buf, cs_cuda_work w);

typedef struct {
    const char *name;
    int grid_to_data;         /* 1: one thread per block, grid = ceil(blocks / threads) */
    int blocks_per_thread;    /* blocks one thread takes per step of its loop */
    /* once per process: tables to device memory */
    cudaError_t (*init)(void);
    /* per repetition: the key schedule (and IV) to constant memory, on stream st */
    cudaError_t (*set_key)(const cs_aes_key *k, int kind, const uint8_t iv[16], cudaStream_t st);
    /* the kernel of each kind (CS_K_*) and its dynamic shared memory */
    const cs_cuda_kernel_fn *kernels;
    size_t (*shared_bytes)(int kind, int block_threads);
} cs_cuda_impl;

/* The round-key words a T-table kernel uses (the decryption schedule for ECB
 * decryption) and the IV as four big-endian words (aes_block_gpu.h's layout). */
static inline void cs_cuda_key_words(const cs_aes_key *k, int kind, const uint8_t iv[16],
                                     uint32_t *w, uint32_t ivw[4])
{
    const uint8_t *sched = kind == CS_K_ECB_DEC ? k->drk : k->rk;
    for (int i = 0; i < 4 * (k->nr + 1); i++)
        w[i] = ((uint32_t)sched[4 * i] << 24) | ((uint32_t)sched[4 * i + 1] << 16) |
               ((uint32_t)sched[4 * i + 2] << 8) | sched[4 * i + 3];
    for (int i = 0; i < 4; i++)
        ivw[i] = ((uint32_t)iv[4 * i] << 24) | ((uint32_t)iv[4 * i + 1] << 16) |
                 ((uint32_t)iv[4 * i + 2] << 8) | iv[4 * i + 3];
}

/* The round keys (rk_bytes from rk) and the IV words to an impl's own __constant__
 * symbols, on stream st. */
template <typename RK, typename IV>
static cudaError_t cs_cuda_copy_key(const RK &rk_symbol, const IV &iv_symbol, const void *rk,
                                    size_t rk_bytes, const uint32_t ivw[4], cudaStream_t st)
{
    cudaError_t e = cudaMemcpyToSymbolAsync(rk_symbol, rk, rk_bytes, 0, cudaMemcpyHostToDevice, st);
    return e == cudaSuccess ? cudaMemcpyToSymbolAsync(iv_symbol, ivw, 4 * sizeof(uint32_t), 0,
                                                      cudaMemcpyHostToDevice, st)
                            : e;
}

/* The T-table impls' set_key: cs_cuda_key_words into their own symbols RK and IV. */
template <const uint32_t (&RK)[4 * (CS_AES_MAX_ROUNDS + 1)], const uint32_t (&IV)[4]>
static cudaError_t cs_cuda_set_key_words(const cs_aes_key *k, int kind, const uint8_t iv[16],
                                         cudaStream_t st)
{
    uint32_t w[4 * (CS_AES_MAX_ROUNDS + 1)], ivw[4];
    cs_cuda_key_words(k, kind, iv, w, ivw);
    return cs_cuda_copy_key(RK, IV, w, sizeof(uint32_t) * 4 * (k->nr + 1), ivw, st);
}

/* An impl's kernel table: the three instantiations of its kernel template. */
#define CS_CUDA_KERNELS(tmpl) {tmpl<CS_K_ECB_ENC>, tmpl<CS_K_ECB_DEC>, tmpl<CS_K_CTR>}

extern const cs_cuda_impl cs_cuda_impl_lanes;
extern const cs_cuda_impl cs_cuda_impl_ttable;
extern const cs_cuda_impl cs_cuda_impl_ref;

#endif
