/*
 * ascon_opt64.c - Ascon-AEAD128 (NIST SP 800-232, Algorithms 3 and 4) for 64-bit CPUs:
 * the state lives in five 64-bit registers, the S-box of Table 6 is computed bitsliced
 * over all 64 columns at once (the instruction sequence of SP 800-232 Fig. 4 / the Ascon
 * designers' submission), the rounds are unrolled, and 16-byte blocks are read and
 * written as two little-endian 64-bit words (section 2.1).
 */
#include <string.h>

#include "aead.h"

#define IV_AEAD128 0x00001000808c0001ull /* SP 800-232 section 4.1 */
#define DSEP (1ull << 63)                /* domain separation: 0^319 || 1 */

static inline uint64_t ror(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

static inline uint64_t ld64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

static inline void st64(uint8_t *p, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(p, &x, 8);
}

/* n < 8 bytes, little-endian. */
static inline uint64_t ldn(const uint8_t *p, size_t n)
{
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++)
        x |= (uint64_t)p[i] << (8 * i);
    return x;
}

static inline void stn(uint8_t *p, uint64_t x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

/* The padding bit after byte n of a 64-bit rate word (pad, section 2.1). */
#define PAD(n) (0x01ull << (8 * (n)))

typedef struct {
    uint64_t x0, x1, x2, x3, x4;
} st;

/* One round: p_C (3.2), p_S bitsliced (3.3), p_L (3.4). */
#define ROUND(c)                                                                        \
    do {                                                                                \
        x2 ^= (c);                                                                      \
        x0 ^= x4; x4 ^= x3; x2 ^= x1;                                                   \
        t0 = ~x0 & x1; t1 = ~x1 & x2; t2 = ~x2 & x3; t3 = ~x3 & x4; t4 = ~x4 & x0;      \
        x0 ^= t1; x1 ^= t2; x2 ^= t3; x3 ^= t4; x4 ^= t0;                               \
        x1 ^= x0; x0 ^= x4; x3 ^= x2; x2 = ~x2;                                         \
        x0 ^= ror(x0, 19) ^ ror(x0, 28);                                                \
        x1 ^= ror(x1, 61) ^ ror(x1, 39);                                                \
        x2 ^= ror(x2, 1) ^ ror(x2, 6);                                                  \
        x3 ^= ror(x3, 10) ^ ror(x3, 17);                                                \
        x4 ^= ror(x4, 7) ^ ror(x4, 41);                                                 \
    } while (0)

/* Ascon-p[12] and Ascon-p[8], unrolled (round constants: SP 800-232 Table 5). */
static inline void p12(st *s)
{
    uint64_t x0 = s->x0, x1 = s->x1, x2 = s->x2, x3 = s->x3, x4 = s->x4, t0, t1, t2, t3, t4;
    ROUND(0xf0); ROUND(0xe1); ROUND(0xd2); ROUND(0xc3);
    ROUND(0xb4); ROUND(0xa5); ROUND(0x96); ROUND(0x87);
    ROUND(0x78); ROUND(0x69); ROUND(0x5a); ROUND(0x4b);
    s->x0 = x0; s->x1 = x1; s->x2 = x2; s->x3 = x3; s->x4 = x4;
}

static inline void p8(st *s)
{
    uint64_t x0 = s->x0, x1 = s->x1, x2 = s->x2, x3 = s->x3, x4 = s->x4, t0, t1, t2, t3, t4;
    ROUND(0xb4); ROUND(0xa5); ROUND(0x96); ROUND(0x87);
    ROUND(0x78); ROUND(0x69); ROUND(0x5a); ROUND(0x4b);
    s->x0 = x0; s->x1 = x1; s->x2 = x2; s->x3 = x3; s->x4 = x4;
}

/* Initialisation and associated data (Algorithm 3 steps 1-11). */
static inline void start(st *s, uint64_t k0, uint64_t k1, const uint8_t *nonce,
                         const uint8_t *ad, size_t ad_len)
{
    s->x0 = IV_AEAD128;
    s->x1 = k0;
    s->x2 = k1;
    s->x3 = ld64(nonce);
    s->x4 = ld64(nonce + 8);
    p12(s);
    s->x3 ^= k0;
    s->x4 ^= k1;
    if (ad_len) {
        for (; ad_len >= 16; ad += 16, ad_len -= 16) {
            s->x0 ^= ld64(ad);
            s->x1 ^= ld64(ad + 8);
            p8(s);
        }
        if (ad_len >= 8) {
            s->x0 ^= ld64(ad);
            s->x1 ^= ldn(ad + 8, ad_len - 8) ^ PAD(ad_len - 8);
        } else {
            s->x0 ^= ldn(ad, ad_len) ^ PAD(ad_len);
        }
        p8(s);
    }
    s->x4 ^= DSEP;
}

/* Finalisation (Algorithm 3 steps 18-20). */
static inline void finish(st *s, uint64_t k0, uint64_t k1, uint8_t tag[16])
{
    s->x2 ^= k0;
    s->x3 ^= k1;
    p12(s);
    st64(tag, s->x3 ^ k0);
    st64(tag + 8, s->x4 ^ k1);
}

static void opt_setup(cs_aead_key *k, const uint8_t key[16]) { memcpy(k->key, key, 16); }

static void opt_encrypt(const cs_aead_key *k, const uint8_t *nonce, const uint8_t *ad,
                        size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    const uint64_t k0 = ld64(k->key), k1 = ld64(k->key + 8);
    st s;
    start(&s, k0, k1, nonce, ad, ad_len);
    for (; n >= 16; in += 16, out += 16, n -= 16) {
        s.x0 ^= ld64(in);
        s.x1 ^= ld64(in + 8);
        st64(out, s.x0);
        st64(out + 8, s.x1);
        p8(&s);
    }
    if (n >= 8) {
        s.x0 ^= ld64(in);
        s.x1 ^= ldn(in + 8, n - 8);
        st64(out, s.x0);
        stn(out + 8, s.x1, n - 8);
        s.x1 ^= PAD(n - 8);
    } else {
        s.x0 ^= ldn(in, n);
        stn(out, s.x0, n);
        s.x0 ^= PAD(n);
    }
    finish(&s, k0, k1, out + n);
}

/* The rate word after absorbing the n < 8 ciphertext bytes c: they replace the low n
 * bytes of x (Algorithm 4), and the padding bit follows them. */
static inline uint64_t replace_low(uint64_t x, uint64_t c, size_t n)
{
    const uint64_t mask = n ? (~0ull >> (64 - 8 * n)) : 0;
    return ((x & ~mask) | c) ^ PAD(n);
}

static int opt_decrypt(const cs_aead_key *k, const uint8_t *nonce, const uint8_t *ad,
                       size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    const uint64_t k0 = ld64(k->key), k1 = ld64(k->key + 8);
    const uint8_t *tag_in = in + (n - 16);
    uint8_t *const out0 = out;
    size_t m = n - 16;
    const size_t total = m;
    uint8_t tag[16];
    st s;
    start(&s, k0, k1, nonce, ad, ad_len);
    for (; m >= 16; in += 16, out += 16, m -= 16) {
        const uint64_t c0 = ld64(in), c1 = ld64(in + 8);
        st64(out, s.x0 ^ c0);
        st64(out + 8, s.x1 ^ c1);
        s.x0 = c0;
        s.x1 = c1;
        p8(&s);
    }
    if (m >= 8) {
        const uint64_t c0 = ld64(in), c1 = ldn(in + 8, m - 8);
        st64(out, s.x0 ^ c0);
        stn(out + 8, s.x1 ^ c1, m - 8);
        s.x0 = c0;
        s.x1 = replace_low(s.x1, c1, m - 8);
    } else {
        const uint64_t c0 = ldn(in, m);
        stn(out, s.x0 ^ c0, m);
        s.x0 = replace_low(s.x0, c0, m);
    }
    finish(&s, k0, k1, tag);
    if (cs_aead_tag_differs(tag, tag_in)) {
        memset(out0, 0, total);
        return -1;
    }
    return 0;
}

static int always(void) { return 1; }

const cs_aead_impl cs_aead_ascon_opt64 = {
    "ascon-opt64", "ascon-aead128", CS_ASCON_NONCE, always, "nothing",
    opt_setup, opt_encrypt, opt_decrypt,
};
