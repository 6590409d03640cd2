/*
 * aes_ttable.c - 32-bit T-table implementation (Daemen & Rijmen, "The Design of
 * Rijndael", section 4.2; the approach of OpenSSL's aes_core.c and BearSSL's aes_big).
 * One round of FIPS-197 5.1 (SubBytes, ShiftRows, MixColumns, AddRoundKey) on a column
 * is four table look-ups and four XORs; decryption uses the equivalent inverse cipher
 * (FIPS-197 5.3.5) with the Td tables and the InvMixColumns'ed schedule (cs_aes_key.drk).
 * Portable C, no special instructions.  Not constant time (table look-ups depend on
 * the data), like every T-table implementation.
 */
#include <string.h>

#include "aes.h"
#include "aes_tables.h"

static inline uint32_t load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Round keys as big-endian words (loaded once per call, not per block). */
static void load_schedule(const uint8_t *bytes, int nr, uint32_t *w)
{
    for (int i = 0; i < 4 * (nr + 1); i++)
        w[i] = load_be32(bytes + 4 * i);
}

#define B0(x) ((x) >> 24)
#define B1(x) (((x) >> 16) & 0xff)
#define B2(x) (((x) >> 8) & 0xff)
#define B3(x) ((x) & 0xff)

/* Encrypt the state s[0..3] (columns as big-endian words) in place. */
static inline void enc_words(const uint32_t *rk, int nr, uint32_t s[4])
{
    uint32_t s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3];
    uint32_t t0, t1, t2, t3;
    for (int r = 1; r < nr; r++) {
        rk += 4;
        t0 = cs_te0[B0(s0)] ^ cs_te1[B1(s1)] ^ cs_te2[B2(s2)] ^ cs_te3[B3(s3)] ^ rk[0];
        t1 = cs_te0[B0(s1)] ^ cs_te1[B1(s2)] ^ cs_te2[B2(s3)] ^ cs_te3[B3(s0)] ^ rk[1];
        t2 = cs_te0[B0(s2)] ^ cs_te1[B1(s3)] ^ cs_te2[B2(s0)] ^ cs_te3[B3(s1)] ^ rk[2];
        t3 = cs_te0[B0(s3)] ^ cs_te1[B1(s0)] ^ cs_te2[B2(s1)] ^ cs_te3[B3(s2)] ^ rk[3];
        s0 = t0;
        s1 = t1;
        s2 = t2;
        s3 = t3;
    }
    rk += 4;
    /* last round: no MixColumns, plain S-box */
#define LAST(a, b, c, d, k)                                                                  \
    (((uint32_t)cs_sbox[B0(a)] << 24) ^ ((uint32_t)cs_sbox[B1(b)] << 16) ^                 \
     ((uint32_t)cs_sbox[B2(c)] << 8) ^ (uint32_t)cs_sbox[B3(d)] ^ (k))
    s[0] = LAST(s0, s1, s2, s3, rk[0]);
    s[1] = LAST(s1, s2, s3, s0, rk[1]);
    s[2] = LAST(s2, s3, s0, s1, rk[2]);
    s[3] = LAST(s3, s0, s1, s2, rk[3]);
#undef LAST
}

static inline void dec_words(const uint32_t *rk, int nr, uint32_t s[4])
{
    uint32_t s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3];
    uint32_t t0, t1, t2, t3;
    for (int r = 1; r < nr; r++) {
        rk += 4;
        t0 = cs_td0[B0(s0)] ^ cs_td1[B1(s3)] ^ cs_td2[B2(s2)] ^ cs_td3[B3(s1)] ^ rk[0];
        t1 = cs_td0[B0(s1)] ^ cs_td1[B1(s0)] ^ cs_td2[B2(s3)] ^ cs_td3[B3(s2)] ^ rk[1];
        t2 = cs_td0[B0(s2)] ^ cs_td1[B1(s1)] ^ cs_td2[B2(s0)] ^ cs_td3[B3(s3)] ^ rk[2];
        t3 = cs_td0[B0(s3)] ^ cs_td1[B1(s2)] ^ cs_td2[B2(s1)] ^ cs_td3[B3(s0)] ^ rk[3];
        s0 = t0;
        s1 = t1;
        s2 = t2;
        s3 = t3;
    }
    rk += 4;
#define LAST(a, b, c, d, k)                                                                  \
    (((uint32_t)cs_inv_sbox[B0(a)] << 24) ^ ((uint32_t)cs_inv_sbox[B1(b)] << 16) ^         \
     ((uint32_t)cs_inv_sbox[B2(c)] << 8) ^ (uint32_t)cs_inv_sbox[B3(d)] ^ (k))
    s[0] = LAST(s0, s3, s2, s1, rk[0]);
    s[1] = LAST(s1, s0, s3, s2, rk[1]);
    s[2] = LAST(s2, s1, s0, s3, rk[2]);
    s[3] = LAST(s3, s2, s1, s0, rk[3]);
#undef LAST
}

static int tt_available(void) { return 1; }

static void tt_ecb(const uint8_t *sched, int nr, int dec, const uint8_t *in, uint8_t *out,
                   size_t nblocks)
{
    uint32_t rk[4 * (CS_AES_MAX_ROUNDS + 1)];
    load_schedule(sched, nr, rk);
    for (size_t b = 0; b < nblocks; b++, in += 16, out += 16) {
        uint32_t s[4] = {load_be32(in), load_be32(in + 4), load_be32(in + 8), load_be32(in + 12)};
        if (dec)
            dec_words(rk, nr, s);
        else
            enc_words(rk, nr, s);
        for (int i = 0; i < 4; i++)
            store_be32(out + 4 * i, s[i]);
    }
}

static void tt_ecb_encrypt(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t n)
{
    tt_ecb(k->rk, k->nr, 0, in, out, n);
}

static void tt_ecb_decrypt(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t n)
{
    tt_ecb(k->drk, k->nr, 1, in, out, n);
}

/* CTR: the counter is kept as four big-endian words; +1 carries from c[3] up to c[0]. */
static void tt_ctr(const cs_aes_key *k, const uint8_t ctr[16], const uint8_t *in, uint8_t *out,
                   size_t nbytes)
{
    uint32_t rk[4 * (CS_AES_MAX_ROUNDS + 1)];
    load_schedule(k->rk, k->nr, rk);
    uint32_t c[4] = {load_be32(ctr), load_be32(ctr + 4), load_be32(ctr + 8), load_be32(ctr + 12)};
    while (nbytes >= 16) {
        uint32_t s[4] = {c[0], c[1], c[2], c[3]};
        enc_words(rk, k->nr, s);
        for (int i = 0; i < 4; i++)
            store_be32(out + 4 * i, load_be32(in + 4 * i) ^ s[i]);
        if (++c[3] == 0 && ++c[2] == 0 && ++c[1] == 0)
            ++c[0];
        in += 16;
        out += 16;
        nbytes -= 16;
    }
    if (nbytes) {
        uint32_t s[4] = {c[0], c[1], c[2], c[3]};
        uint8_t ks[16];
        enc_words(rk, k->nr, s);
        for (int i = 0; i < 4; i++)
            store_be32(ks + 4 * i, s[i]);
        for (size_t i = 0; i < nbytes; i++)
            out[i] = in[i] ^ ks[i];
    }
}

const cs_aes_impl cs_aes_impl_ttable = {
    "ttable", tt_available, "nothing", tt_ecb_encrypt, tt_ecb_decrypt, tt_ctr,
};
