/*
 * ascon_ref.c - Ascon-AEAD128 as NIST SP 800-232 (August 2025) describes it, written for
 * reading, not for speed.
 *
 * The state S is five 64-bit words S0..S4 (SP 800-232 section 3, Fig. 1).  Bytes enter
 * and leave the state little-endian: byte i of a 64-bit word is bits 8i..8i+7 (section
 * 2.1, the functions "parse"/"pad"; this is one of the changes from Ascon-128 v1.2).
 *
 * The permutation Ascon-p[rnd] (section 3) applies rnd rounds of
 *   p_C  constant addition   (3.2): S2 ^= c_i, c_i from Table 5
 *   p_S  substitution layer  (3.3): the 5-bit S-box of Table 6 on every bit column
 *                                   (S0 bit j is the most significant input bit),
 *                                   computed bitsliced as in Fig. 4
 *   p_L  linear layer        (3.4): Si ^= (Si >>> r1) ^ (Si >>> r2)
 * Ascon-AEAD128 (section 4, Algorithms 3 and 4): rate 128 bits, 12 initialisation and
 * finalisation rounds, 8 rounds per block.
 */
#include <string.h>

#include "aead.h"

/* Table 5: the round constants c_0 .. c_15; Ascon-p[rnd] uses c_{16-rnd} .. c_15. */
static const uint8_t ROUND_CONSTANT[16] = {
    0x3c, 0x2d, 0x1e, 0x0f, 0xf0, 0xe1, 0xd2, 0xc3,
    0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b,
};

/* Section 4.1: IV of Ascon-AEAD128 = 0x00001000808c0001 (k = 128, r = 128, a = 12, b = 8). */
static const uint64_t ASCON_AEAD128_IV = 0x00001000808c0001ull;

typedef struct {
    uint64_t s[5];
} state;

static uint64_t rotr(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

/* 3.2: p_C. */
static void constant_addition(state *S, int i) { S->s[2] ^= ROUND_CONSTANT[i]; }

/* 3.3: p_S, the 5-bit S-box of Table 6 applied to all 64 bit columns (S0, ..., S4)_j at
 * once, with the bitsliced instruction sequence of SP 800-232 Fig. 4 (an affine map, the
 * Keccak chi step, another affine map). The known-answer tests check it against the
 * standard's vectors. */
static void substitution_layer(state *S)
{
    uint64_t *x = S->s, t[5];
    x[0] ^= x[4];
    x[4] ^= x[3];
    x[2] ^= x[1];
    for (int w = 0; w < 5; w++)
        t[w] = ~x[w] & x[(w + 1) % 5];
    for (int w = 0; w < 5; w++)
        x[w] ^= t[(w + 1) % 5];
    x[1] ^= x[0];
    x[0] ^= x[4];
    x[3] ^= x[2];
    x[2] = ~x[2];
}

/* 3.4: p_L. */
static void linear_layer(state *S)
{
    static const int R[5][2] = {{19, 28}, {61, 39}, {1, 6}, {10, 17}, {7, 41}};
    for (int w = 0; w < 5; w++)
        S->s[w] ^= rotr(S->s[w], R[w][0]) ^ rotr(S->s[w], R[w][1]);
}

/* Ascon-p[rnd]: rounds i = 16 - rnd .. 15 (equation (3.1)). */
static void ascon_p(state *S, int rnd)
{
    for (int i = 16 - rnd; i < 16; i++) {
        constant_addition(S, i);
        substitution_layer(S);
        linear_layer(S);
    }
}

/* 2.1: the little-endian conversion between bytes and 64-bit words. */
static uint64_t load_le(const uint8_t *p, size_t n)
{
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++)
        x |= (uint64_t)p[i] << (8 * i);
    return x;
}

static void store_le(uint8_t *p, uint64_t x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

/* A block of up to 16 bytes as the two rate words (S0, S1); pad = 1 appends the padding
 * of Algorithm 3 (a 1 bit right after the data, then zeros) when n < 16. */
static void block_words(const uint8_t *p, size_t n, int pad, uint64_t w[2])
{
    uint8_t b[16] = {0};
    memcpy(b, p, n);
    if (pad && n < 16)
        b[n] = 0x01;
    w[0] = load_le(b, 8);
    w[1] = load_le(b + 8, 8);
}

/* Algorithm 3 steps 1-3: S = IV || K || N, Ascon-p[12], S ^= 0^192 || K. */
static void initialize(state *S, const uint8_t *key, const uint8_t *nonce)
{
    S->s[0] = ASCON_AEAD128_IV;
    S->s[1] = load_le(key, 8);
    S->s[2] = load_le(key + 8, 8);
    S->s[3] = load_le(nonce, 8);
    S->s[4] = load_le(nonce + 8, 8);
    ascon_p(S, 12);
    S->s[3] ^= load_le(key, 8);
    S->s[4] ^= load_le(key + 8, 8);
}

/* Algorithm 3 steps 4-11: absorb the padded associated data (only if there is any),
 * then the domain separation bit S ^= 0^319 || 1 (the top bit of S4). */
static void process_ad(state *S, const uint8_t *ad, size_t ad_len)
{
    if (ad_len > 0) {
        size_t off = 0;
        for (;;) {
            const size_t n = ad_len - off < 16 ? ad_len - off : 16;
            uint64_t w[2];
            block_words(ad + off, n, 1, w);
            S->s[0] ^= w[0];
            S->s[1] ^= w[1];
            ascon_p(S, 8);
            off += n;
            if (n < 16)
                break; /* the padded last block has been absorbed */
        }
    }
    S->s[4] ^= 1ull << 63;
}

/* Algorithm 3 steps 18-20 (and Algorithm 4's): S ^= 0^128 || K || 0^64, Ascon-p[12],
 * T = (S3 || S4) ^ K. */
static void finalize(state *S, const uint8_t *key, uint8_t tag[16])
{
    S->s[2] ^= load_le(key, 8);
    S->s[3] ^= load_le(key + 8, 8);
    ascon_p(S, 12);
    store_le(tag, S->s[3] ^ load_le(key, 8), 8);
    store_le(tag + 8, S->s[4] ^ load_le(key + 8, 8), 8);
}

static void ref_setup(cs_aead_key *k, const uint8_t key[16]) { memcpy(k->key, key, 16); }

/* Algorithm 3: Ascon-AEAD128.enc.  The plaintext is split into 16-byte blocks, the
 * last one (possibly empty) padded; every block but the last is followed by Ascon-p[8]. */
static void ref_encrypt(const cs_aead_key *k, const uint8_t *nonce, const uint8_t *ad,
                        size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    state S;
    initialize(&S, k->key, nonce);
    process_ad(&S, ad, ad_len);
    size_t off = 0;
    for (;;) {
        const size_t len = n - off < 16 ? n - off : 16;
        uint64_t w[2];
        uint8_t c[16];
        block_words(in + off, len, 1, w);
        S.s[0] ^= w[0];
        S.s[1] ^= w[1];
        store_le(c, S.s[0], 8);
        store_le(c + 8, S.s[1], 8);
        memcpy(out + off, c, len);
        off += len;
        if (len < 16)
            break;
        ascon_p(&S, 8);
    }
    finalize(&S, k->key, out + n);
}

/* Algorithm 4: Ascon-AEAD128.dec.  C_i replaces the rate; for the last, partial block
 * only its bytes replace the rate and the padding bit is XORed in after them. */
static int ref_decrypt(const cs_aead_key *k, const uint8_t *nonce, const uint8_t *ad,
                       size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    const size_t m = n - 16;
    state S;
    uint8_t tag[16];
    initialize(&S, k->key, nonce);
    process_ad(&S, ad, ad_len);
    size_t off = 0;
    for (;;) {
        const size_t len = m - off < 16 ? m - off : 16;
        uint8_t r[16], p[16];
        store_le(r, S.s[0], 8);
        store_le(r + 8, S.s[1], 8);
        for (size_t i = 0; i < len; i++) {
            p[i] = r[i] ^ in[off + i];
            r[i] = in[off + i];
        }
        if (len < 16)
            r[len] ^= 0x01;
        S.s[0] = load_le(r, 8);
        S.s[1] = load_le(r + 8, 8);
        memcpy(out + off, p, len);
        off += len;
        if (len < 16)
            break;
        ascon_p(&S, 8);
    }
    finalize(&S, k->key, tag);
    if (cs_aead_tag_differs(tag, in + m)) {
        memset(out, 0, m);
        return -1;
    }
    return 0;
}

static int always(void) { return 1; }

const cs_aead_impl cs_aead_ascon_ref = {
    "ascon-ref", "ascon-aead128", CS_ASCON_NONCE, always, "nothing",
    ref_setup, ref_encrypt, ref_decrypt,
};
