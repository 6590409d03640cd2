/*
 * gcm_ref.c - AES-128-GCM (NIST SP 800-38D), portable C: the block cipher is the
 * project's T-table AES (aes_ttable.c, FIPS-197), GHASH uses the 4-bit table of
 * Shoup's method (the multiples 0..15 of H, precomputed once per key; section 6.3's
 * multiplication processed four bits at a time, with the reduction table of the field
 * polynomial x^128 + x^7 + x^2 + x + 1).  The table lookups depend on the data, so this
 * impl is not constant-time; it is the portable baseline.
 *
 * GCM-AE (section 7.1) with a 96-bit IV: H = E_K(0^128), J0 = IV || 0^31 || 1,
 * C = GCTR_K(inc32(J0), P), S = GHASH_H(A || 0^v || C || 0^u || [len(A)]64 || [len(C)]64),
 * T = E_K(J0) ^ S (t = 128).  GCM-AD (7.2) recomputes T before releasing the plaintext.
 */
#include <string.h>

#include "aead.h"

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* htab[i] = i * H for the 4-bit polynomials i (bit 3 of i is the coefficient of x^0). */
static void ref_setup(cs_aead_key *k, const uint8_t key[16])
{
    static const uint8_t zero[16] = {0};
    memcpy(k->key, key, 16);
    cs_aes_expand_key(&k->aes, key, 16);
    cs_aes_impl_ttable.ecb_encrypt(&k->aes, zero, k->h, 1);
    uint64_t hi = be64(k->h), lo = be64(k->h + 8);
    memset(k->htab, 0, sizeof k->htab);
    k->htab[8][0] = hi;
    k->htab[8][1] = lo;
    for (int i = 4; i > 0; i >>= 1) { /* multiply by x: shift right, reduce */
        const uint64_t r = (lo & 1) ? 0xe100000000000000ull : 0;
        lo = (hi << 63) | (lo >> 1);
        hi = (hi >> 1) ^ r;
        k->htab[i][0] = hi;
        k->htab[i][1] = lo;
    }
    for (int i = 2; i <= 8; i *= 2)
        for (int j = 1; j < i; j++) {
            k->htab[i + j][0] = k->htab[i][0] ^ k->htab[j][0];
            k->htab[i + j][1] = k->htab[i][1] ^ k->htab[j][1];
        }
    k->wide = 0;
}

/* x^4 * (bits shifted out) reduced modulo the field polynomial. */
static const uint64_t LAST4[16] = {
    0x0000, 0x1c20, 0x3840, 0x2460, 0x7080, 0x6ca0, 0x48c0, 0x54e0,
    0xe100, 0xfd20, 0xd940, 0xc560, 0x9180, 0x8da0, 0xa9c0, 0xb5e0,
};

/* Z = Z * x^4 (four shifts right in GCM's bit order), then Z ^= htab[nibble]. */
#define SHIFT4_ADD(zh, zl, k, nib)                                                        \
    do {                                                                                  \
        const unsigned rem_ = (unsigned)((zl) & 0xf);                                     \
        (zl) = ((zh) << 60) | ((zl) >> 4);                                                \
        (zh) = ((zh) >> 4) ^ (LAST4[rem_] << 48) ^ (k)->htab[nib][0];                     \
        (zl) ^= (k)->htab[nib][1];                                                        \
    } while (0)

/* y = y * H (section 6.3), four bits at a time from the last byte to the first
 * (Horner's rule on the nibbles: Z = (Z x^4) ^ nibble * H). */
static void gf_mul_h(const cs_aead_key *k, uint8_t y[16])
{
    unsigned lo = y[15] & 0xfu, hi = y[15] >> 4;
    uint64_t zh = k->htab[lo][0], zl = k->htab[lo][1];
    SHIFT4_ADD(zh, zl, k, hi);
    for (int i = 14; i >= 0; i--) {
        lo = y[i] & 0xfu;
        hi = y[i] >> 4;
        SHIFT4_ADD(zh, zl, k, lo);
        SHIFT4_ADD(zh, zl, k, hi);
    }
    put_be64(y, zh);
    put_be64(y + 8, zl);
}

/* GHASH (section 6.4) over data padded with zeros to a multiple of 16 bytes. */
static void ghash(const cs_aead_key *k, uint8_t y[16], const uint8_t *p, size_t n)
{
    for (; n > 0;) {
        const size_t len = n < 16 ? n : 16;
        for (size_t i = 0; i < len; i++)
            y[i] ^= p[i];
        gf_mul_h(k, y);
        p += len;
        n -= len;
    }
}

/* GCTR (section 6.5) from counter block cb, incrementing the last 32 bits (inc32),
 * 16 counter blocks encrypted per call of the T-table impl. */
static void gctr(const cs_aead_key *k, const uint8_t cb[16], const uint8_t *in, uint8_t *out,
                 size_t n)
{
    enum { B = 16 };
    uint8_t ctr[16 * B], ks[16 * B];
    uint32_t c = (uint32_t)be64(cb + 8);
    while (n > 0) {
        const size_t len = n < sizeof ks ? n : sizeof ks, nb = (len + 15) / 16;
        for (size_t b = 0; b < nb; b++, c++) {
            memcpy(ctr + 16 * b, cb, 12);
            for (int i = 0; i < 4; i++)
                ctr[16 * b + 12 + i] = (uint8_t)(c >> (24 - 8 * i));
        }
        cs_aes_impl_ttable.ecb_encrypt(&k->aes, ctr, ks, nb);
        for (size_t i = 0; i < len; i++)
            out[i] = in[i] ^ ks[i];
        in += len;
        out += len;
        n -= len;
    }
}

/* The tag over A and C (section 7.1 steps 5-6). */
static void tag(const cs_aead_key *k, const uint8_t j0[16], const uint8_t *ad, size_t ad_len,
                const uint8_t *c, size_t n, uint8_t t[16])
{
    uint8_t y[16] = {0}, len[16];
    ghash(k, y, ad, ad_len);
    ghash(k, y, c, n);
    put_be64(len, (uint64_t)ad_len * 8);
    put_be64(len + 8, (uint64_t)n * 8);
    ghash(k, y, len, 16);
    gctr(k, j0, y, t, 16);
}

static void j0_of(const uint8_t *iv, uint8_t j0[16], uint8_t cb[16])
{
    memcpy(j0, iv, 12);
    j0[12] = j0[13] = j0[14] = 0;
    j0[15] = 1;
    memcpy(cb, j0, 16);
    cb[15] = 2; /* inc32(J0) */
}

static void ref_encrypt(const cs_aead_key *k, const uint8_t *iv, const uint8_t *ad,
                        size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    uint8_t j0[16], cb[16];
    j0_of(iv, j0, cb);
    gctr(k, cb, in, out, n);
    tag(k, j0, ad, ad_len, out, n, out + n);
}

static int ref_decrypt(const cs_aead_key *k, const uint8_t *iv, const uint8_t *ad,
                       size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    uint8_t j0[16], cb[16], t[16];
    const size_t m = n - 16;
    j0_of(iv, j0, cb);
    tag(k, j0, ad, ad_len, in, m, t);
    if (cs_aead_tag_differs(t, in + m)) {
        memset(out, 0, m);
        return -1;
    }
    gctr(k, cb, in, out, m);
    return 0;
}

static int always(void) { return 1; }

const cs_aead_impl cs_aead_gcm_ref = {
    "gcm-ref", "aes-128-gcm", CS_GCM_IV, always, "nothing",
    ref_setup, ref_encrypt, ref_decrypt,
};
