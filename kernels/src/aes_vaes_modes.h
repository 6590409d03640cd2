/*
 * aes_vaes_modes.h - ECB and CTR over batches of blocks held in vector registers, the
 * one driver of the two VAES impls: aes_vaes.c (zmm, four blocks a vector) and
 * aes_vaes256.c (ymm, two blocks a vector).  Each includes it once, inside its x86-64
 * part, after defining:
 *   TGT               its target attribute
 *   NV, VB, BATCH     vectors in flight, blocks per vector, BATCH = NV * VB blocks
 *   VEC               the vector type (__m512i, __m256i)
 *   V_LOAD(p), V_STORE(p, v), V_XOR(a, b), V_ADD64(a, b)
 *   V_BSWAP(v)        byte-reverse every 128-bit lane (native (lo, hi) <-> big-endian)
 *   V_BASE(hi, lo)    the 128-bit counter (hi, lo) in every lane
 *   V_INC(j)          the lane offsets of vector j: VB * j, VB * j + 1, ...
 * and the functions load_keys(sched, nr, rk), enc_batch(rk, nr, v), dec_batch(rk, nr, v)
 * (the FIPS-197 cipher, 5.1, and equivalent inverse cipher, 5.3.5, on NV vectors).
 *
 * CTR (SP 800-38A 6.5; the counter is one 128-bit big-endian integer, Appendix B.1 with
 * m = 128, like OpenSSL's aes-*-ctr): the counter is held as native (hi, lo); when the
 * low 64 bits cannot wrap inside a batch, the counter blocks come from vector 64-bit
 * adds and a byte swap, otherwise each block is built with its own carry.
 */
#ifndef CIPHERSWEEP_AES_VAES_MODES_H
#define CIPHERSWEEP_AES_VAES_MODES_H

/* ECB over whole blocks; the last partial batch goes through a stack buffer. */
TGT static void modes_ecb(const uint8_t *sched, int nr, int dec, const uint8_t *in, uint8_t *out,
                          size_t n)
{
    VEC rk[CS_AES_MAX_ROUNDS + 1], v[NV];
    load_keys(sched, nr, rk);
    size_t i = 0;
    for (; i + BATCH <= n; i += BATCH) {
        for (int j = 0; j < NV; j++)
            v[j] = V_LOAD(in + 16 * i + 16 * VB * j);
        if (dec)
            dec_batch(rk, nr, v);
        else
            enc_batch(rk, nr, v);
        for (int j = 0; j < NV; j++)
            V_STORE(out + 16 * i + 16 * VB * j, v[j]);
    }
    if (i < n) {
        uint8_t buf[16 * BATCH];
        const size_t rest = 16 * (n - i);
        memcpy(buf, in + 16 * i, rest);
        memset(buf + rest, 0, sizeof buf - rest);
        for (int j = 0; j < NV; j++)
            v[j] = V_LOAD(buf + 16 * VB * j);
        if (dec)
            dec_batch(rk, nr, v);
        else
            enc_batch(rk, nr, v);
        for (int j = 0; j < NV; j++)
            V_STORE(buf + 16 * VB * j, v[j]);
        memcpy(out + 16 * i, buf, rest);
    }
}

static void modes_ecb_encrypt(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t n)
{
    modes_ecb(k->rk, k->nr, 0, in, out, n);
}

static void modes_ecb_decrypt(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t n)
{
    modes_ecb(k->drk, k->nr, 1, in, out, n);
}

/* The BATCH counter blocks from (hi, lo), each with its own carry. */
TGT static void counters_slow(uint64_t hi, uint64_t lo, VEC v[NV])
{
    uint8_t buf[16 * BATCH];
    cs_ctr_blocks(hi, lo, BATCH, buf);
    for (int j = 0; j < NV; j++)
        v[j] = V_LOAD(buf + 16 * VB * j);
}

/* XOR the key stream v into n bytes of in (a whole batch, or the last partial one). */
TGT static inline void xor_batch(const uint8_t *in, uint8_t *out, const VEC v[NV], size_t n)
{
    if (n == 16 * BATCH) {
        for (int j = 0; j < NV; j++)
            V_STORE(out + 16 * VB * j, V_XOR(V_LOAD(in + 16 * VB * j), v[j]));
        return;
    }
    uint8_t ks[16 * BATCH];
    for (int j = 0; j < NV; j++)
        V_STORE(ks + 16 * VB * j, v[j]);
    for (size_t i = 0; i < n; i++)
        out[i] = in[i] ^ ks[i];
}

TGT static void modes_ctr(const cs_aes_key *k, const uint8_t ctr[16], const uint8_t *in,
                          uint8_t *out, size_t nbytes)
{
    VEC rk[CS_AES_MAX_ROUNDS + 1], v[NV], inc[NV];
    const int nr = k->nr;
    load_keys(k->rk, nr, rk);
    for (int j = 0; j < NV; j++)
        inc[j] = V_INC(j);
    uint64_t hi = cs_load_be64(ctr), lo = cs_load_be64(ctr + 8);
    while (nbytes > 0) {
        if (lo <= UINT64_MAX - (BATCH - 1)) {
            const VEC base = V_BASE(hi, lo);
            for (int j = 0; j < NV; j++)
                v[j] = V_BSWAP(V_ADD64(base, inc[j]));
        } else {
            counters_slow(hi, lo, v);
        }
        const uint64_t next = lo + BATCH;
        hi += next < lo;
        lo = next;
        enc_batch(rk, nr, v);
        const size_t n = nbytes < 16 * BATCH ? nbytes : 16 * BATCH;
        xor_batch(in, out, v, n);
        in += n;
        out += n;
        nbytes -= n;
    }
}

#endif
