/*
 * aes_block_gpu_ref.h - the reference study's GPU block function (`gpu-ref`):
 * byte-oriented AES rounds exactly as FIPS-197 writes them, on one 16-byte state per
 * thread:
 *   Cipher (5.1): AddRoundKey, then Nr-1 rounds of SubBytes (5.1.1), ShiftRows (5.1.2),
 *   MixColumns (5.1.3, xtime of 4.2.1), AddRoundKey (5.1.4), and a last round without
 *   MixColumns.
 *   InvCipher (5.3): the same steps inverted (InvShiftRows 5.3.1, InvSubBytes 5.3.2,
 *   InvMixColumns 5.3.3) with the round keys in reverse order.
 * The S-box (and inverse S-box) and the round keys are passed by pointer: aes-cuda puts
 * them in __constant__ memory, as the study did; the CPU test passes ordinary arrays.
 * The state is the column-major byte array of FIPS-197 3.4 (byte r + 4c = row r, column
 * c), i.e. the 16 input bytes in order.  Written once as __host__ __device__ code, so the
 * same source runs in the CPU test against OpenSSL (tests/test_cuda_block.c).
 */
#ifndef CIPHERSWEEP_AES_BLOCK_GPU_REF_H
#define CIPHERSWEEP_AES_BLOCK_GPU_REF_H

#include "aes_block_gpu.h" /* CS_HD, CTR counter, PKCS#7 tail */

/* Multiplication by x in GF(2^8) mod x^8 + x^4 + x^3 + x + 1 (FIPS-197 4.2.1). */
CS_HD uint8_t cs_ref_xtime(uint8_t b)
{
    return (uint8_t)((b << 1) ^ ((b & 0x80) ? 0x1b : 0x00));
}

CS_HD void cs_ref_add_round_key(uint8_t st[16], const uint8_t *rk)
{
    for (int i = 0; i < 16; i++) st[i] ^= rk[i];
}

/* SubBytes and ShiftRows together: row r of the result is row r rotated left by r. */
CS_HD void cs_ref_sub_shift(uint8_t st[16], const uint8_t *sbox)
{
    uint8_t t[16];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) t[r + 4 * c] = sbox[st[r + 4 * ((c + r) & 3)]];
    for (int i = 0; i < 16; i++) st[i] = t[i];
}

/* InvShiftRows and InvSubBytes together (row r rotated right by r). */
CS_HD void cs_ref_inv_sub_shift(uint8_t st[16], const uint8_t *isbox)
{
    uint8_t t[16];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) t[r + 4 * ((c + r) & 3)] = isbox[st[r + 4 * c]];
    for (int i = 0; i < 16; i++) st[i] = t[i];
}

/* MixColumns: each column times {03}x^3 + {01}x^2 + {01}x + {02} (FIPS-197 5.1.3). */
CS_HD void cs_ref_mix_columns(uint8_t st[16])
{
    for (int c = 0; c < 4; c++) {
        uint8_t *p = st + 4 * c;
        const uint8_t a0 = p[0], a1 = p[1], a2 = p[2], a3 = p[3], all = a0 ^ a1 ^ a2 ^ a3;
        p[0] = (uint8_t)(a0 ^ all ^ cs_ref_xtime(a0 ^ a1));
        p[1] = (uint8_t)(a1 ^ all ^ cs_ref_xtime(a1 ^ a2));
        p[2] = (uint8_t)(a2 ^ all ^ cs_ref_xtime(a2 ^ a3));
        p[3] = (uint8_t)(a3 ^ all ^ cs_ref_xtime(a3 ^ a0));
    }
}

/* InvMixColumns: {0b}x^3 + {0d}x^2 + {09}x + {0e} (FIPS-197 5.3.3), as a preprocessing
 * step u = 4 a0 ^ 4 a2, v = 4 a1 ^ 4 a3 added to the columns, then MixColumns. */
CS_HD void cs_ref_inv_mix_columns(uint8_t st[16])
{
    for (int c = 0; c < 4; c++) {
        uint8_t *p = st + 4 * c;
        const uint8_t u = cs_ref_xtime(cs_ref_xtime((uint8_t)(p[0] ^ p[2])));
        const uint8_t v = cs_ref_xtime(cs_ref_xtime((uint8_t)(p[1] ^ p[3])));
        p[0] ^= u;
        p[1] ^= v;
        p[2] ^= u;
        p[3] ^= v;
    }
    cs_ref_mix_columns(st);
}

/* Cipher (FIPS-197 5.1) on the state; rk = the 16 (nr + 1) round-key bytes. */
CS_HD void cs_ref_encrypt_state(const uint8_t *sbox, const uint8_t *rk, int nr, uint8_t st[16])
{
    cs_ref_add_round_key(st, rk);
    for (int r = 1; r < nr; r++) {
        cs_ref_sub_shift(st, sbox);
        cs_ref_mix_columns(st);
        cs_ref_add_round_key(st, rk + 16 * r);
    }
    cs_ref_sub_shift(st, sbox);
    cs_ref_add_round_key(st, rk + 16 * nr);
}

/* InvCipher (FIPS-197 5.3) with the same (encryption) round keys, last one first. */
CS_HD void cs_ref_decrypt_state(const uint8_t *isbox, const uint8_t *rk, int nr, uint8_t st[16])
{
    cs_ref_add_round_key(st, rk + 16 * nr);
    for (int r = nr - 1; r > 0; r--) {
        cs_ref_inv_sub_shift(st, isbox);
        cs_ref_add_round_key(st, rk + 16 * r);
        cs_ref_inv_mix_columns(st);
    }
    cs_ref_inv_sub_shift(st, isbox);
    cs_ref_add_round_key(st, rk);
}

/* The per-thread work of the gpu-ref kernel on its block, held as four words in memory
 * byte order (as loaded from the shared-memory tile):
 *   mode 0 ECB encrypt, 1 ECB decrypt: w is the block, replaced by its result
 *   mode 2 CTR: w is the input block, XORed with E(iv + index)
 * box: the S-box (modes 0, 2) or the inverse S-box (mode 1); rk: the encryption round
 * keys as bytes (cs_aes_key.rk) in every mode. */
CS_HD void cs_ref_process_le_words(const uint8_t *box, const uint8_t *rk, int nr, int mode,
                                   const uint32_t iv[4], uint64_t index, uint32_t w[4])
{
    uint8_t st[16];
    if (mode == 2) {
        uint32_t c[4];
        cs_gpu_ctr_block(iv, index, c);
        for (int i = 0; i < 4; i++) cs_gpu_store_be32(st + 4 * i, c[i]);
        cs_ref_encrypt_state(box, rk, nr, st);
    } else {
        for (int i = 0; i < 16; i++) st[i] = (uint8_t)(w[i >> 2] >> (8 * (i & 3)));
        if (mode == 0) cs_ref_encrypt_state(box, rk, nr, st);
        else cs_ref_decrypt_state(box, rk, nr, st);
    }
    for (int c = 0; c < 4; c++) {
        const uint32_t v = (uint32_t)st[4 * c] | ((uint32_t)st[4 * c + 1] << 8) |
                           ((uint32_t)st[4 * c + 2] << 16) | ((uint32_t)st[4 * c + 3] << 24);
        w[c] = mode == 2 ? w[c] ^ v : v;
    }
}

#endif
