/*
 * gcm_mode.h - the Galois/Counter Mode of NIST SP 800-38D over any AES-128 block
 * implementation and any multiplication by H, written once for the portable GCM impls
 * (gcm_ref.c: T-table AES + 4-bit-table GHASH; gcm_byte.c: byte-oriented AES + bitwise
 * GHASH):
 *
 *   GCM-AE (section 7.1) with a 96-bit IV: H = E_K(0^128), J0 = IV || 0^31 || 1,
 *   C = GCTR_K(inc32(J0), P), S = GHASH_H(A || 0^v || C || 0^u || [len(A)]64 || [len(C)]64),
 *   T = E_K(J0) ^ S (t = 128).  GCM-AD (7.2) recomputes T before releasing the plaintext.
 *
 * Static inline, so each impl file holds its own copy of the mode with its block and
 * multiply called directly: each impl's object file is the whole of its GCM (the
 * binary-size tables), and no call goes through a pointer that the impl itself would
 * not make.
 */
#ifndef CIPHERSWEEP_GCM_MODE_H
#define CIPHERSWEEP_GCM_MODE_H

#include <string.h>

#include "aead.h"

/* nblocks whole 16-byte blocks of in encrypted with the forward cipher into out. */
typedef void (*cs_gcm_blocks_fn)(const cs_aes_key *k, const uint8_t *in, uint8_t *out,
                                 size_t nblocks);
/* y = y * H in GF(2^128) (section 6.3), H and its tables in the prepared key. */
typedef void (*cs_gcm_mul_fn)(const cs_aead_key *k, uint8_t y[16]);

/* The two parts an impl brings: its block cipher and its GHASH multiplication. */
typedef struct {
    cs_gcm_blocks_fn blocks;
    cs_gcm_mul_fn mul_h;
} cs_gcm_parts;

static inline void cs_gcm_put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* The key, its AES-128 round keys (FIPS-197 5.2) and H = E_K(0^128) (7.1 step 1). */
static inline void cs_gcm_setup(const cs_gcm_parts *g, cs_aead_key *k, const uint8_t key[16])
{
    static const uint8_t zero[16] = {0};
    memcpy(k->key, key, 16);
    cs_aes_expand_key(&k->aes, key, 16);
    g->blocks(&k->aes, zero, k->h, 1);
    k->wide = 0;
}

/* GHASH (section 6.4) over data padded with zeros to a multiple of 16 bytes. */
static inline void cs_gcm_ghash(const cs_gcm_parts *g, const cs_aead_key *k, uint8_t y[16],
                                const uint8_t *p, size_t n)
{
    while (n > 0) {
        const size_t len = n < 16 ? n : 16;
        for (size_t i = 0; i < len; i++)
            y[i] ^= p[i];
        g->mul_h(k, y);
        p += len;
        n -= len;
    }
}

/* GCTR (section 6.5) from counter block cb, incrementing its last 32 bits (inc32, 6.2);
 * up to 16 counter blocks handed to the block cipher at a time. */
static inline void cs_gcm_gctr(const cs_gcm_parts *g, const cs_aead_key *k, const uint8_t cb[16],
                               const uint8_t *in, uint8_t *out, size_t n)
{
    enum { B = 16 };
    uint8_t ctr[16 * B], ks[16 * B];
    uint32_t c = (uint32_t)cs_load_be64(cb + 8);
    while (n > 0) {
        const size_t len = n < sizeof ks ? n : sizeof ks, nb = (len + 15) / 16;
        for (size_t b = 0; b < nb; b++, c++) {
            memcpy(ctr + 16 * b, cb, 12);
            for (int i = 0; i < 4; i++)
                ctr[16 * b + 12 + i] = (uint8_t)(c >> (24 - 8 * i));
        }
        g->blocks(&k->aes, ctr, ks, nb);
        for (size_t i = 0; i < len; i++)
            out[i] = in[i] ^ ks[i];
        in += len;
        out += len;
        n -= len;
    }
}

/* The tag over A and C (section 7.1 steps 5-6). */
static inline void cs_gcm_tag(const cs_gcm_parts *g, const cs_aead_key *k, const uint8_t j0[16],
                              const uint8_t *ad, size_t ad_len, const uint8_t *c, size_t n,
                              uint8_t t[16])
{
    uint8_t y[16] = {0}, len[16];
    cs_gcm_ghash(g, k, y, ad, ad_len);
    cs_gcm_ghash(g, k, y, c, n);
    cs_gcm_put_be64(len, (uint64_t)ad_len * 8);
    cs_gcm_put_be64(len + 8, (uint64_t)n * 8);
    cs_gcm_ghash(g, k, y, len, 16);
    cs_gcm_gctr(g, k, j0, y, t, 16);
}

/* J0 = IV || 0^31 || 1 (7.1 step 2) and the first data counter block inc32(J0). */
static inline void cs_gcm_j0(const uint8_t *iv, uint8_t j0[16], uint8_t cb[16])
{
    memcpy(j0, iv, 12);
    j0[12] = j0[13] = j0[14] = 0;
    j0[15] = 1;
    memcpy(cb, j0, 16);
    cb[15] = 2;
}

/* GCM-AE (7.1): out = C || T. */
static inline void cs_gcm_encrypt(const cs_gcm_parts *g, const cs_aead_key *k, const uint8_t *iv,
                                  const uint8_t *ad, size_t ad_len, const uint8_t *in, size_t n,
                                  uint8_t *out)
{
    uint8_t j0[16], cb[16];
    cs_gcm_j0(iv, j0, cb);
    cs_gcm_gctr(g, k, cb, in, out, n);
    cs_gcm_tag(g, k, j0, ad, ad_len, out, n, out + n);
}

/* GCM-AD (7.2): in = C || T (n >= 16); the plaintext only when T matches (0), else
 * out is zeroed (-1). */
static inline int cs_gcm_decrypt(const cs_gcm_parts *g, const cs_aead_key *k, const uint8_t *iv,
                                 const uint8_t *ad, size_t ad_len, const uint8_t *in, size_t n,
                                 uint8_t *out)
{
    uint8_t j0[16], cb[16], t[16];
    const size_t m = n - 16;
    cs_gcm_j0(iv, j0, cb);
    cs_gcm_tag(g, k, j0, ad, ad_len, in, m, t);
    if (cs_aead_tag_differs(t, in + m)) {
        memset(out, 0, m);
        return -1;
    }
    cs_gcm_gctr(g, k, cb, in, out, m);
    return 0;
}

#endif
