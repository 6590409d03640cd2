/*
 * aes_block_gpu_lanes.h - the default GPU block function of aes-cuda (`gpu-lanes`): a
 * T-table AES (Daemen & Rijmen, "The Design of Rijndael", 4.2; FIPS-197 5.1 and the
 * equivalent inverse cipher 5.3.5) whose table reads are free of shared-memory bank
 * conflicts, written once as __host__ __device__ code so that the C compiler builds the
 * very same source for the CPU test (tests/test_cuda_block.c).
 *
 * Bank conflicts.  Shared memory has 32 banks of 4 bytes; a warp's 32 loads are served
 * in one pass only when no two lanes read different words of the same bank.  Random
 * table indices collide (measured on an H100 with four 1 KiB tables: 2.8-way on average).
 * Here ONE table (Te0, or Td0 for decryption) is replicated 32 times, interleaved so that
 * entry x of lane L's copy is word x * 32 + L: lane L only ever reads bank L, so every
 * warp-wide lookup is one pass whatever the indices (32 KiB of shared memory).  The other
 * three tables are byte rotations of the first (Te_i[x] = ror(Te0[x], 8i)), done with a
 * byte permute after the load instead of three more tables.
 *
 * Instruction count per round and column: four byte extractions (PRMT: __byte_perm with
 * a zero source zero-extends the byte), four loads, three rotations (PRMT), and the five
 * terms XORed with two three-input XORs (LOP3 0x96).  The last round of encryption takes
 * S[x] from the table (Te0[x] = (2S, S, S, 3S) big-endian, so S[x] is its byte 1) and
 * assembles the word with three byte permutes; decryption's last round reads a packed,
 * equally replicated inverse S-box (64 words of 4 bytes per lane, 8 KiB).
 *
 * Several blocks per thread: the functions take nb independent states and interleave
 * their rounds, so a GPU thread has nb table loads in flight per step.
 *
 * Tables are passed as the lane's base pointer (table + lane) and read with a stride of
 * CS_LANES words; on the CPU the test passes any lane of a host copy built the same way.
 */
#ifndef CIPHERSWEEP_AES_BLOCK_GPU_LANES_H
#define CIPHERSWEEP_AES_BLOCK_GPU_LANES_H

#include "aes_block_gpu.h" /* CS_HD, big-endian helpers, CTR counter, PKCS#7 tail */

#define CS_LANES 32       /* copies of the table = shared-memory banks = warp lanes */
#define CS_LANES_MAX_NB 4 /* most blocks one call interleaves */

/* __byte_perm(x, y, s): result byte i = byte ((s >> 4i) & 7) of the 8 bytes y:x (x is
 * bytes 0..3, least significant first).  The same semantics on the CPU. */
CS_HD uint32_t cs_perm(uint32_t x, uint32_t y, uint32_t s)
{
#if defined(__CUDA_ARCH__)
    return __byte_perm(x, y, s);
#else
    const uint64_t v = ((uint64_t)y << 32) | x;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) r |= (uint32_t)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
#endif
}

/* a ^ b ^ c in one LOP3 on the GPU. */
CS_HD uint32_t cs_xor3(uint32_t a, uint32_t b, uint32_t c)
{
#if defined(__CUDA_ARCH__)
    uint32_t r;
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return a ^ b ^ c;
#endif
}

/* Byte k (0 = least significant) of x, zero-extended. */
#define CS_BYTE(x, k) cs_perm((x), 0u, 0x4440u | (k))
/* Rotations right by 8, 16, 24 bits. */
#define CS_ROR8(x) cs_perm((x), (x), 0x0321u)
#define CS_ROR16(x) cs_perm((x), (x), 0x1032u)
#define CS_ROR24(x) cs_perm((x), (x), 0x2103u)
/* Entry x of the lane's copy. */
#define CS_LT(T, x) ((T)[(x) * CS_LANES])

/* One full round on a column: T0[b3(a)] ^ T1[b2(b)] ^ T2[b1(c)] ^ T3[b0(d)] ^ k, with
 * T_i = ror(T0, 8i) and b3 the most significant byte (row 0 of the column). */
CS_HD uint32_t cs_lanes_col(const uint32_t *T, uint32_t a, uint32_t b, uint32_t c, uint32_t d,
                            uint32_t k)
{
    const uint32_t e0 = CS_LT(T, CS_BYTE(a, 3)), e1 = CS_LT(T, CS_BYTE(b, 2));
    const uint32_t e2 = CS_LT(T, CS_BYTE(c, 1)), e3 = CS_LT(T, CS_BYTE(d, 0));
    return cs_xor3(cs_xor3(e0, CS_ROR8(e1), CS_ROR16(e2)), CS_ROR24(e3), k);
}

/* Last encryption round on a column: S[b3(a)], S[b2(b)], S[b1(c)], S[b0(d)] from byte 1
 * of the Te0 entries, assembled with three byte permutes, then AddRoundKey. */
CS_HD uint32_t cs_lanes_last_enc(const uint32_t *T, uint32_t a, uint32_t b, uint32_t c,
                                 uint32_t d, uint32_t k)
{
    const uint32_t e0 = CS_LT(T, CS_BYTE(a, 3)), e1 = CS_LT(T, CS_BYTE(b, 2));
    const uint32_t e2 = CS_LT(T, CS_BYTE(c, 1)), e3 = CS_LT(T, CS_BYTE(d, 0));
    const uint32_t lo = cs_perm(e3, e2, 0x0051u); /* byte 0 = S(d), byte 1 = S(c) */
    const uint32_t hi = cs_perm(e1, e0, 0x5100u); /* byte 2 = S(b), byte 3 = S(a) */
    return cs_perm(lo, hi, 0x7610u) ^ k;
}

/* Inverse S-box byte of x from the packed copy (word x/4 holds IS[4w .. 4w+3]). */
CS_HD uint32_t cs_lanes_isb(const uint32_t *IS, uint32_t x)
{
    return cs_perm(CS_LT(IS, x >> 2), 0u, 0x4440u | (x & 3u));
}

/* Last decryption round on a column (InvShiftRows is in the choice of a, b, c, d). */
CS_HD uint32_t cs_lanes_last_dec(const uint32_t *IS, uint32_t a, uint32_t b, uint32_t c,
                                 uint32_t d, uint32_t k)
{
    return ((cs_lanes_isb(IS, CS_BYTE(a, 3)) << 24) | (cs_lanes_isb(IS, CS_BYTE(b, 2)) << 16) |
            (cs_lanes_isb(IS, CS_BYTE(c, 1)) << 8) | cs_lanes_isb(IS, CS_BYTE(d, 0))) ^ k;
}

/* Encrypts nb (1..CS_LANES_MAX_NB) blocks, each four big-endian column words, in place;
 * T = the lane's copy of Te0, rk = 4 (nr + 1) round-key words. */
CS_HD void cs_lanes_encrypt_words(const uint32_t *T, const uint32_t *rk, int nr,
                                  uint32_t s[][4], int nb)
{
    for (int j = 0; j < nb; j++)
        for (int c = 0; c < 4; c++) s[j][c] ^= rk[c];
    for (int r = 1; r < nr; r++) {
        const uint32_t *k = rk + 4 * r;
        for (int j = 0; j < nb; j++) {
            const uint32_t s0 = s[j][0], s1 = s[j][1], s2 = s[j][2], s3 = s[j][3];
            s[j][0] = cs_lanes_col(T, s0, s1, s2, s3, k[0]);
            s[j][1] = cs_lanes_col(T, s1, s2, s3, s0, k[1]);
            s[j][2] = cs_lanes_col(T, s2, s3, s0, s1, k[2]);
            s[j][3] = cs_lanes_col(T, s3, s0, s1, s2, k[3]);
        }
    }
    const uint32_t *k = rk + 4 * nr;
    for (int j = 0; j < nb; j++) {
        const uint32_t s0 = s[j][0], s1 = s[j][1], s2 = s[j][2], s3 = s[j][3];
        s[j][0] = cs_lanes_last_enc(T, s0, s1, s2, s3, k[0]);
        s[j][1] = cs_lanes_last_enc(T, s1, s2, s3, s0, k[1]);
        s[j][2] = cs_lanes_last_enc(T, s2, s3, s0, s1, k[2]);
        s[j][3] = cs_lanes_last_enc(T, s3, s0, s1, s2, k[3]);
    }
}

/* Decrypts nb blocks in place: T = the lane's copy of Td0, IS = the lane's packed
 * inverse S-box, drk = the equivalent inverse cipher's round-key words. */
CS_HD void cs_lanes_decrypt_words(const uint32_t *T, const uint32_t *IS, const uint32_t *drk,
                                  int nr, uint32_t s[][4], int nb)
{
    for (int j = 0; j < nb; j++)
        for (int c = 0; c < 4; c++) s[j][c] ^= drk[c];
    for (int r = 1; r < nr; r++) {
        const uint32_t *k = drk + 4 * r;
        for (int j = 0; j < nb; j++) {
            const uint32_t s0 = s[j][0], s1 = s[j][1], s2 = s[j][2], s3 = s[j][3];
            s[j][0] = cs_lanes_col(T, s0, s3, s2, s1, k[0]);
            s[j][1] = cs_lanes_col(T, s1, s0, s3, s2, k[1]);
            s[j][2] = cs_lanes_col(T, s2, s1, s0, s3, k[2]);
            s[j][3] = cs_lanes_col(T, s3, s2, s1, s0, k[3]);
        }
    }
    const uint32_t *k = drk + 4 * nr;
    for (int j = 0; j < nb; j++) {
        const uint32_t s0 = s[j][0], s1 = s[j][1], s2 = s[j][2], s3 = s[j][3];
        s[j][0] = cs_lanes_last_dec(IS, s0, s3, s2, s1, k[0]);
        s[j][1] = cs_lanes_last_dec(IS, s1, s0, s3, s2, k[1]);
        s[j][2] = cs_lanes_last_dec(IS, s2, s1, s0, s3, k[2]);
        s[j][3] = cs_lanes_last_dec(IS, s3, s2, s1, s0, k[3]);
    }
}

/* The per-thread work of the gpu-lanes kernel on nb blocks held as four words in memory
 * byte order (uint4 loads), block j being message block idx[j]:
 *   mode 0 ECB encrypt, 1 ECB decrypt: w[j] is the block, replaced by its result
 *   mode 2 CTR: w[j] is the input block, XORed with E(iv + idx[j])
 * T: the lane's Te0 (modes 0, 2) or Td0 (mode 1) copy; IS: the lane's packed inverse
 * S-box (mode 1 only); rk: encryption (modes 0, 2) or decryption (mode 1) key words. */
CS_HD void cs_lanes_process_le_words(const uint32_t *T, const uint32_t *IS, const uint32_t *rk,
                                     int nr, int mode, const uint32_t iv[4],
                                     const uint64_t *idx, uint32_t w[][4], int nb)
{
    uint32_t s[CS_LANES_MAX_NB][4];
    for (int j = 0; j < nb; j++) {
        if (mode == 2) cs_gpu_ctr_block(iv, idx[j], s[j]);
        else
            for (int c = 0; c < 4; c++) s[j][c] = cs_gpu_bswap32(w[j][c]);
    }
    if (mode == 1) cs_lanes_decrypt_words(T, IS, rk, nr, s, nb);
    else cs_lanes_encrypt_words(T, rk, nr, s, nb);
    for (int j = 0; j < nb; j++)
        for (int c = 0; c < 4; c++)
            w[j][c] = mode == 2 ? w[j][c] ^ cs_gpu_bswap32(s[j][c]) : cs_gpu_bswap32(s[j][c]);
}

/* Host side: the replicated table (256 * CS_LANES words) from a 256-entry table, and
 * the packed, replicated inverse S-box (64 * CS_LANES words) from the 256-byte one. */
CS_HD void cs_lanes_fill_table(const uint32_t *t, uint32_t *out)
{
    for (int i = 0; i < 256 * CS_LANES; i++) out[i] = t[i / CS_LANES];
}

CS_HD void cs_lanes_fill_isbox(const uint8_t *isbox, uint32_t *out)
{
    for (int i = 0; i < 64 * CS_LANES; i++) {
        const uint8_t *p = isbox + 4 * (i / CS_LANES);
        out[i] = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                 ((uint32_t)p[3] << 24);
    }
}

#endif
