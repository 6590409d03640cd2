/*
 * gcm_ref.c - AES-128-GCM (NIST SP 800-38D), portable C: the block cipher is the
 * project's T-table AES (aes_ttable.c, FIPS-197), GHASH uses the 4-bit table of
 * Shoup's method (the multiples 0..15 of H, precomputed once per key; section 6.3's
 * multiplication processed four bits at a time, with the reduction table of the field
 * polynomial x^128 + x^7 + x^2 + x + 1).  The table lookups depend on the data, so this
 * impl is not constant-time; it is the portable table baseline.  The mode itself
 * (GCTR, GHASH, GCM-AE and GCM-AD, sections 6.4-7.2) is gcm_mode.h's.
 */
#include <string.h>

#include "gcm_mode.h"

static void ttable_blocks(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t n)
{
    cs_aes_impl_ttable.ecb_encrypt(k, in, out, n);
}

static void gf_mul_h(const cs_aead_key *k, uint8_t y[16]);

static const cs_gcm_parts PARTS = {ttable_blocks, gf_mul_h};

/* htab[i] = i * H for the 4-bit polynomials i (bit 3 of i is the coefficient of x^0). */
static void ref_setup(cs_aead_key *k, const uint8_t key[16])
{
    cs_gcm_setup(&PARTS, k, key);
    uint64_t hi = cs_load_be64(k->h), lo = cs_load_be64(k->h + 8);
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
    cs_gcm_put_be64(y, zh);
    cs_gcm_put_be64(y + 8, zl);
}

static void ref_encrypt(const cs_aead_key *k, const uint8_t *iv, const uint8_t *ad,
                        size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    cs_gcm_encrypt(&PARTS, k, iv, ad, ad_len, in, n, out);
}

static int ref_decrypt(const cs_aead_key *k, const uint8_t *iv, const uint8_t *ad,
                       size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    return cs_gcm_decrypt(&PARTS, k, iv, ad, ad_len, in, n, out);
}

static int always(void) { return 1; }

const cs_aead_impl cs_aead_gcm_ref = {
    "gcm-ref", "aes-128-gcm", CS_GCM_IV, always, "nothing",
    ref_setup, ref_encrypt, ref_decrypt,
};
