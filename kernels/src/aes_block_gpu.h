/*
 * aes_block_gpu.h - the AES block function that aes-cuda runs on the GPU, written once
 * as __host__ __device__ code so that the very same source is compiled by a C compiler
 * and tested on the CPU (tests/test_cuda_block.c) against FIPS-197 / SP 800-38A vectors
 * and OpenSSL.
 *
 * T-table formulation (Daemen & Rijmen, "The Design of Rijndael", 4.2): a round is
 *   t_c = Te0[s_c >> 24] ^ Te1[(s_{c+1} >> 16) & 255] ^ Te2[(s_{c+2} >> 8) & 255]
 *         ^ Te3[s_{c+3} & 255] ^ rk_c
 * on the state as four big-endian column words (row 0 = most significant byte), with
 * the tables of aes_tables.h (Te_i = Te0 rotated right by 8i bits). The last round,
 * which has no MixColumns, takes the S-box byte out of the T-tables (Te2 has S[x] in its
 * top byte, Te3 in the next, Te0 in the third, Te1 in the low byte), so encryption
 * needs no separate S-box table. Decryption is the equivalent inverse cipher
 * (FIPS-197 5.3.5) with the Td tables, the decryption round keys (cs_aes_key.drk) and the
 * inverse S-box for its last round.
 *
 * Everything is passed by pointer (tables, round keys), so the caller decides where they
 * live: on the GPU the tables are copied into shared memory by each thread block and the
 * round keys sit in __constant__ memory; on the CPU they are the ordinary arrays.
 * Round keys are words: w[i] = big-endian load of cs_aes_key.rk + 4i
 * (cs_gpu_round_key_words converts).
 */
#ifndef CIPHERSWEEP_AES_BLOCK_GPU_H
#define CIPHERSWEEP_AES_BLOCK_GPU_H

#include <stdint.h>

#if defined(__CUDACC__)
#define CS_HD static __host__ __device__ __forceinline__
#else
#define CS_HD static inline
#endif

/* Where the four T-tables (and, for decryption, the inverse S-box) are. */
typedef struct {
    const uint32_t *t0, *t1, *t2, *t3;
    const uint8_t *isbox; /* decryption only; may be NULL for encryption */
} cs_gpu_tables;

CS_HD uint32_t cs_gpu_bswap32(uint32_t x)
{
#if defined(__CUDA_ARCH__)
    return __byte_perm(x, 0, 0x0123);
#elif defined(__GNUC__)
    return __builtin_bswap32(x);
#else
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
#endif
}

/* Big-endian word from 4 bytes / to 4 bytes. */
CS_HD uint32_t cs_gpu_load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

CS_HD void cs_gpu_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Round keys as 4*(nr+1) big-endian words from the byte schedule of aes.h. */
CS_HD void cs_gpu_round_key_words(const uint8_t *rk_bytes, int nr, uint32_t *w)
{
    for (int i = 0; i < 4 * (nr + 1); i++) w[i] = cs_gpu_load_be32(rk_bytes + 4 * i);
}

/* Encrypts one block given as four big-endian column words, in place. */
CS_HD void cs_gpu_encrypt_words(const cs_gpu_tables *T, const uint32_t *rk, int nr,
                                uint32_t s[4])
{
    const uint32_t *T0 = T->t0, *T1 = T->t1, *T2 = T->t2, *T3 = T->t3;
    uint32_t s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3];
    uint32_t t0, t1, t2, t3;
    for (int r = 1; r < nr; r++) {
        const uint32_t *k = rk + 4 * r;
        t0 = T0[s0 >> 24] ^ T1[(s1 >> 16) & 255] ^ T2[(s2 >> 8) & 255] ^ T3[s3 & 255] ^ k[0];
        t1 = T0[s1 >> 24] ^ T1[(s2 >> 16) & 255] ^ T2[(s3 >> 8) & 255] ^ T3[s0 & 255] ^ k[1];
        t2 = T0[s2 >> 24] ^ T1[(s3 >> 16) & 255] ^ T2[(s0 >> 8) & 255] ^ T3[s1 & 255] ^ k[2];
        t3 = T0[s3 >> 24] ^ T1[(s0 >> 16) & 255] ^ T2[(s1 >> 8) & 255] ^ T3[s2 & 255] ^ k[3];
        s0 = t0; s1 = t1; s2 = t2; s3 = t3;
    }
    const uint32_t *k = rk + 4 * nr;
    s[0] = (T2[s0 >> 24] & 0xff000000u) ^ (T3[(s1 >> 16) & 255] & 0x00ff0000u) ^
           (T0[(s2 >> 8) & 255] & 0x0000ff00u) ^ (T1[s3 & 255] & 0x000000ffu) ^ k[0];
    s[1] = (T2[s1 >> 24] & 0xff000000u) ^ (T3[(s2 >> 16) & 255] & 0x00ff0000u) ^
           (T0[(s3 >> 8) & 255] & 0x0000ff00u) ^ (T1[s0 & 255] & 0x000000ffu) ^ k[1];
    s[2] = (T2[s2 >> 24] & 0xff000000u) ^ (T3[(s3 >> 16) & 255] & 0x00ff0000u) ^
           (T0[(s0 >> 8) & 255] & 0x0000ff00u) ^ (T1[s1 & 255] & 0x000000ffu) ^ k[2];
    s[3] = (T2[s3 >> 24] & 0xff000000u) ^ (T3[(s0 >> 16) & 255] & 0x00ff0000u) ^
           (T0[(s1 >> 8) & 255] & 0x0000ff00u) ^ (T1[s2 & 255] & 0x000000ffu) ^ k[3];
}

/* Decrypts one block (equivalent inverse cipher: Td tables, drk words, inverse S-box). */
CS_HD void cs_gpu_decrypt_words(const cs_gpu_tables *T, const uint32_t *drk, int nr,
                                uint32_t s[4])
{
    const uint32_t *T0 = T->t0, *T1 = T->t1, *T2 = T->t2, *T3 = T->t3;
    const uint8_t *is = T->isbox;
    uint32_t s0 = s[0] ^ drk[0], s1 = s[1] ^ drk[1], s2 = s[2] ^ drk[2], s3 = s[3] ^ drk[3];
    uint32_t t0, t1, t2, t3;
    for (int r = 1; r < nr; r++) {
        const uint32_t *k = drk + 4 * r;
        t0 = T0[s0 >> 24] ^ T1[(s3 >> 16) & 255] ^ T2[(s2 >> 8) & 255] ^ T3[s1 & 255] ^ k[0];
        t1 = T0[s1 >> 24] ^ T1[(s0 >> 16) & 255] ^ T2[(s3 >> 8) & 255] ^ T3[s2 & 255] ^ k[1];
        t2 = T0[s2 >> 24] ^ T1[(s1 >> 16) & 255] ^ T2[(s0 >> 8) & 255] ^ T3[s3 & 255] ^ k[2];
        t3 = T0[s3 >> 24] ^ T1[(s2 >> 16) & 255] ^ T2[(s1 >> 8) & 255] ^ T3[s0 & 255] ^ k[3];
        s0 = t0; s1 = t1; s2 = t2; s3 = t3;
    }
    const uint32_t *k = drk + 4 * nr;
    s[0] = ((uint32_t)is[s0 >> 24] << 24) ^ ((uint32_t)is[(s3 >> 16) & 255] << 16) ^
           ((uint32_t)is[(s2 >> 8) & 255] << 8) ^ (uint32_t)is[s1 & 255] ^ k[0];
    s[1] = ((uint32_t)is[s1 >> 24] << 24) ^ ((uint32_t)is[(s0 >> 16) & 255] << 16) ^
           ((uint32_t)is[(s3 >> 8) & 255] << 8) ^ (uint32_t)is[s2 & 255] ^ k[1];
    s[2] = ((uint32_t)is[s2 >> 24] << 24) ^ ((uint32_t)is[(s1 >> 16) & 255] << 16) ^
           ((uint32_t)is[(s0 >> 8) & 255] << 8) ^ (uint32_t)is[s3 & 255] ^ k[2];
    s[3] = ((uint32_t)is[s3 >> 24] << 24) ^ ((uint32_t)is[(s2 >> 16) & 255] << 16) ^
           ((uint32_t)is[(s1 >> 8) & 255] << 8) ^ (uint32_t)is[s0 & 255] ^ k[3];
}

/* Byte-level wrappers (what the CPU test calls; the kernel works on words). */
CS_HD void cs_gpu_encrypt_block(const cs_gpu_tables *T, const uint32_t *rk, int nr,
                                const uint8_t in[16], uint8_t out[16])
{
    uint32_t s[4];
    for (int c = 0; c < 4; c++) s[c] = cs_gpu_load_be32(in + 4 * c);
    cs_gpu_encrypt_words(T, rk, nr, s);
    for (int c = 0; c < 4; c++) cs_gpu_store_be32(out + 4 * c, s[c]);
}

CS_HD void cs_gpu_decrypt_block(const cs_gpu_tables *T, const uint32_t *drk, int nr,
                                const uint8_t in[16], uint8_t out[16])
{
    uint32_t s[4];
    for (int c = 0; c < 4; c++) s[c] = cs_gpu_load_be32(in + 4 * c);
    cs_gpu_decrypt_words(T, drk, nr, s);
    for (int c = 0; c < 4; c++) cs_gpu_store_be32(out + 4 * c, s[c]);
}

/* CTR: the counter block of block index i is iv + i as one 128-bit big-endian integer
 * (carry across all 16 bytes, mod 2^128), like OpenSSL's aes-*-ctr. iv as four
 * big-endian words; result in ctr[4]. */
CS_HD void cs_gpu_ctr_block(const uint32_t iv[4], uint64_t i, uint32_t ctr[4])
{
    uint64_t lo = ((uint64_t)iv[2] << 32) | iv[3];
    uint64_t hi = ((uint64_t)iv[0] << 32) | iv[1];
    uint64_t nlo = lo + i;
    hi += (nlo < lo) ? 1u : 0u;
    ctr[0] = (uint32_t)(hi >> 32);
    ctr[1] = (uint32_t)hi;
    ctr[2] = (uint32_t)(nlo >> 32);
    ctr[3] = (uint32_t)nlo;
}

/* ECB encryption with PKCS#7 padding: in the block at index `index` (four words in
 * memory byte order), every byte at a message offset >= msg_len becomes padv (the pad
 * length, 1..16). The host copies only the msg_len message bytes to the device; the
 * thread(s) holding the tail fill in the padding, so padding is part of the timed work
 * as on the CPU backends. */
CS_HD void cs_gpu_pad_le_words(uint64_t index, uint64_t msg_len, uint32_t padv, uint32_t w[4])
{
    if ((index + 1) * 16 <= msg_len) return;
    for (int j = 0; j < 16; j++) {
        if (index * 16 + (uint64_t)j < msg_len) continue;
        const unsigned sh = 8u * (unsigned)(j & 3);
        w[j >> 2] = (w[j >> 2] & ~(0xffu << sh)) | (padv << sh);
    }
}

/* The per-block work of the kernel on a block held as four words in memory byte order
 * (a uint4 load: each word is the little-endian view of 4 message bytes).
 *   mode 0 ECB encrypt, 1 ECB decrypt: w is the block, replaced by its result
 *   mode 2 CTR: w is the input block, XORed with E(iv + index)
 * This is exactly what each GPU thread does after loading its 16 bytes. */
CS_HD void cs_gpu_process_le_words(const cs_gpu_tables *T, const uint32_t *rk, int nr,
                                   int mode, const uint32_t iv[4], uint64_t index,
                                   uint32_t w[4])
{
    uint32_t s[4];
    if (mode == 2) {
        cs_gpu_ctr_block(iv, index, s);
        cs_gpu_encrypt_words(T, rk, nr, s);
        for (int c = 0; c < 4; c++) w[c] ^= cs_gpu_bswap32(s[c]);
        return;
    }
    for (int c = 0; c < 4; c++) s[c] = cs_gpu_bswap32(w[c]);
    if (mode == 0) cs_gpu_encrypt_words(T, rk, nr, s);
    else cs_gpu_decrypt_words(T, rk, nr, s);
    for (int c = 0; c < 4; c++) w[c] = cs_gpu_bswap32(s[c]);
}

#endif
