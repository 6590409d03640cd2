/*
 * gcm_byte.c - AES-128-GCM (NIST SP 800-38D) over the byte-oriented AES of aes_ref.c
 * (FIPS-197 section 5.1 as written: a 4x4 byte state, S-box lookups, xtime
 * MixColumns), one block at a time, in the manner of tiny-AES-c: the small portable
 * AES library whose GCM the study it stands in for (Aguado et al. 2024, "tinyaes")
 * measured.  It costs what the byte-oriented `ref` CTR costs per block, plus GHASH.
 *
 * GHASH's multiplication is SP 800-38D's Algorithm 1 (section 6.3) as written: for
 * each of the 128 bits of X, Z ^= V where the bit is set, then V = V * x (one shift
 * right, reduced with R = 11100001 || 0^120); the 128-bit values are held as two
 * 64-bit words, and the bit tests are masks, not branches.  No table is precomputed:
 * tiny-AES-c has no tables beyond its S-boxes and no GCM of its own, so the GHASH a
 * GCM built on it carries is the standard's bitwise one; the 4-bit tables of gcm-ref
 * (Shoup's method) are the technique of a table implementation, which this is not.
 * The mode itself (GCTR, GHASH, GCM-AE, GCM-AD, sections 6.4-7.2) is gcm_mode.h's.
 */
#include "gcm_mode.h"

/* The byte-oriented block cipher, called once per block as tiny-AES-c's CTR does. */
static void byte_blocks(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t n)
{
    for (size_t b = 0; b < n; b++)
        cs_aes_ref_encrypt_block(k, in + 16 * b, out + 16 * b);
}

/* y = y * H (section 6.3, Algorithm 1); bit 0 of a block is the leftmost bit. */
static void gf_mul_h(const cs_aead_key *k, uint8_t y[16])
{
    uint64_t zh = 0, zl = 0, vh = cs_load_be64(k->h), vl = cs_load_be64(k->h + 8);
    for (int w = 0; w < 2; w++) {
        uint64_t x = cs_load_be64(y + 8 * w); /* bits x_64w .. x_64w+63, x_64w on top */
        for (int i = 0; i < 64; i++, x <<= 1) {
            const uint64_t xi = 0 - (x >> 63);  /* x_i set: all ones */
            const uint64_t lsb = 0 - (vl & 1); /* LSB1(V) set: all ones */
            zh ^= vh & xi;
            zl ^= vl & xi;
            vl = (vh << 63) | (vl >> 1);
            vh = (vh >> 1) ^ (lsb & 0xe100000000000000ull);
        }
    }
    cs_gcm_put_be64(y, zh);
    cs_gcm_put_be64(y + 8, zl);
}

static const cs_gcm_parts PARTS = {byte_blocks, gf_mul_h};

static void byte_setup(cs_aead_key *k, const uint8_t key[16]) { cs_gcm_setup(&PARTS, k, key); }

static void byte_encrypt(const cs_aead_key *k, const uint8_t *iv, const uint8_t *ad,
                         size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    cs_gcm_encrypt(&PARTS, k, iv, ad, ad_len, in, n, out);
}

static int byte_decrypt(const cs_aead_key *k, const uint8_t *iv, const uint8_t *ad,
                        size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    return cs_gcm_decrypt(&PARTS, k, iv, ad, ad_len, in, n, out);
}

static int always(void) { return 1; }

const cs_aead_impl cs_aead_gcm_byte = {
    "gcm-byte", "aes-128-gcm", CS_GCM_IV, always, "nothing",
    byte_setup, byte_encrypt, byte_decrypt,
};
