/*
 * gcm_aesni.c - AES-128-GCM (NIST SP 800-38D) with AES-NI and PCLMULQDQ.
 *
 * GCTR (section 6.5): eight counter blocks in flight through AESENC (FIPS-197 rounds);
 * inc32 is a 32-bit addition on the byte-reversed counter block, so it wraps modulo
 * 2^32 exactly as section 6.2 defines it.  GHASH (section 6.4) over eight blocks at a
 * time: X' = (X ^ C1) H^8 ^ C2 H^7 ^ ... ^ C8 H with one reduction for the eight
 * products (ghash_clmul.h); the ciphertext of one batch is hashed while the next batch
 * goes through the AES unit.  Where the CPU has VAES and VPCLMULQDQ the bulk runs 16
 * blocks at a time on ymm registers (gcm_vaes.c).  Per-function target attributes and
 * __builtin_cpu_supports keep the binary runnable on any x86-64.
 */
#include <string.h>

#include "aead.h"

#if defined(__x86_64__) || defined(__i386__)
#include "ghash_clmul.h"

#define TGT __attribute__((target("aes,pclmul,sse4.1,ssse3")))
#define NB 8 /* blocks in flight */

static int ni_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul") &&
           __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("ssse3");
}

/* Per-message state: round keys, counter (byte-reversed), GHASH accumulator X. */
typedef struct {
    __m128i rk[11];
    __m128i h[NB]; /* H^1 .. H^8 */
    __m128i ctr;
    __m128i x;
} gs;

TGT static inline __m128i enc1(const __m128i *rk, __m128i b)
{
    b = _mm_xor_si128(b, rk[0]);
    for (int r = 1; r < 10; r++)
        b = _mm_aesenc_si128(b, rk[r]);
    return _mm_aesenclast_si128(b, rk[10]);
}

TGT static void ni_setup(cs_aead_key *k, const uint8_t key[16])
{
    memcpy(k->key, key, 16);
    cs_aes_expand_key(&k->aes, key, 16);
    __m128i rk[11];
    for (int r = 0; r <= 10; r++)
        rk[r] = _mm_loadu_si128((const __m128i *)(k->aes.rk + 16 * r));
    const __m128i h = enc1(rk, _mm_setzero_si128()); /* H = E_K(0^128), 7.1 step 1 */
    _mm_storeu_si128((__m128i *)k->h, h);
    const __m128i hb = cs_bswap128(h);
    __m128i p = hb;
    for (int i = 0; i < 16; i++) {
        _mm_store_si128((__m128i *)k->hpow[i], p);
        p = cs_gf_mul(p, hb);
    }
    k->wide = cs_gcm_vaes_available() && !cs_aes_impl_disabled("gcm-vaes");
}

/* State for IV: J0 = IV || 0^31 || 1 (7.1 step 2); the first data counter is inc32(J0). */
TGT static void start(gs *g, const cs_aead_key *k, const uint8_t *iv)
{
    uint8_t j0[16];
    memcpy(j0, iv, 12);
    j0[12] = j0[13] = j0[14] = 0;
    j0[15] = 1;
    for (int r = 0; r <= 10; r++)
        g->rk[r] = _mm_loadu_si128((const __m128i *)(k->aes.rk + 16 * r));
    for (int i = 0; i < NB; i++)
        g->h[i] = _mm_load_si128((const __m128i *)k->hpow[i]);
    g->ctr = _mm_add_epi32(cs_bswap128(_mm_loadu_si128((const __m128i *)j0)), _mm_set_epi32(0, 0, 0, 1));
    g->x = _mm_setzero_si128();
}

/* X = (X ^ b[0]) H^8 ^ b[1] H^7 ^ ... ^ b[7] H (b in memory order). */
TGT static inline __m128i ghash8(const gs *g, __m128i x, const __m128i *b)
{
    cs_clmul_acc acc = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
    cs_clmul_add(&acc, _mm_xor_si128(x, cs_bswap128(b[0])), g->h[NB - 1]);
    for (int j = 1; j < NB; j++)
        cs_clmul_add(&acc, cs_bswap128(b[j]), g->h[NB - 1 - j]);
    return cs_clmul_reduce(acc);
}

/* Whole batches of eight blocks; returns the bytes processed. */
TGT static size_t bulk8(gs *g, const uint8_t *in, uint8_t *out, size_t n, int enc)
{
    const __m128i one = _mm_set_epi32(0, 0, 0, 1);
    __m128i pend[NB], b[NB];
    size_t done = 0;
    int pending = 0;
    for (; n - done >= 16 * NB; done += 16 * NB) {
        for (int j = 0; j < NB; j++) {
            b[j] = _mm_xor_si128(cs_bswap128(g->ctr), g->rk[0]);
            g->ctr = _mm_add_epi32(g->ctr, one);
        }
        for (int r = 1; r < 10; r++)
            for (int j = 0; j < NB; j++)
                b[j] = _mm_aesenc_si128(b[j], g->rk[r]);
        if (pending)
            g->x = ghash8(g, g->x, pend); /* the previous batch, while the AES unit works */
        for (int j = 0; j < NB; j++) {
            const __m128i p = _mm_loadu_si128((const __m128i *)(in + done + 16 * j));
            const __m128i c = _mm_xor_si128(p, _mm_aesenclast_si128(b[j], g->rk[10]));
            _mm_storeu_si128((__m128i *)(out + done + 16 * j), c);
            pend[j] = enc ? c : p;
        }
        pending = 1;
    }
    if (pending)
        g->x = ghash8(g, g->x, pend);
    return done;
}

/* The rest (< 8 blocks, the last one possibly partial), one block at a time. */
TGT static void tail(gs *g, const uint8_t *in, uint8_t *out, size_t n, int enc)
{
    while (n > 0) {
        const size_t len = n < 16 ? n : 16;
        uint8_t p[16] = {0}, c[16] = {0}, ks[16];
        memcpy(p, in, len);
        _mm_storeu_si128((__m128i *)ks, enc1(g->rk, cs_bswap128(g->ctr)));
        g->ctr = _mm_add_epi32(g->ctr, _mm_set_epi32(0, 0, 0, 1));
        for (size_t i = 0; i < len; i++)
            c[i] = p[i] ^ ks[i];
        memcpy(out, c, len);
        const __m128i blk = _mm_loadu_si128((const __m128i *)(enc ? c : p)); /* zero-padded */
        g->x = cs_gf_mul(_mm_xor_si128(g->x, cs_bswap128(blk)), g->h[0]);
        in += len;
        out += len;
        n -= len;
    }
}

/* GHASH of A || 0^v (7.1 step 5), eight blocks at a time where possible. */
TGT static void hash_ad(gs *g, const uint8_t *ad, size_t n)
{
    __m128i b[NB];
    for (; n >= 16 * NB; ad += 16 * NB, n -= 16 * NB) {
        for (int j = 0; j < NB; j++)
            b[j] = _mm_loadu_si128((const __m128i *)(ad + 16 * j));
        g->x = ghash8(g, g->x, b);
    }
    for (; n > 0;) {
        const size_t len = n < 16 ? n : 16;
        uint8_t blk[16] = {0};
        memcpy(blk, ad, len);
        const __m128i v = cs_bswap128(_mm_loadu_si128((const __m128i *)blk));
        g->x = cs_gf_mul(_mm_xor_si128(g->x, v), g->h[0]);
        ad += len;
        n -= len;
    }
}

/* Payload and tag: T = E_K(J0) ^ GHASH(... || [len(A)]64 || [len(C)]64) (7.1 step 6). */
TGT static void run(const cs_aead_key *k, const uint8_t *iv, const uint8_t *ad, size_t ad_len,
                    const uint8_t *in, size_t n, uint8_t *out, int enc, uint8_t tag[16])
{
    gs g;
    start(&g, k, iv);
    const __m128i j0 = cs_bswap128(_mm_sub_epi32(g.ctr, _mm_set_epi32(0, 0, 0, 1)));
    hash_ad(&g, ad, ad_len);
    size_t done = 0;
    if (k->wide)
        done = cs_gcm_vaes_bulk(k, &g.ctr, &g.x, in, out, n, enc);
    done += bulk8(&g, in + done, out + done, n - done, enc);
    tail(&g, in + done, out + done, n - done, enc);
    const __m128i lens = _mm_set_epi64x((long long)((uint64_t)ad_len * 8), (long long)((uint64_t)n * 8));
    g.x = cs_gf_mul(_mm_xor_si128(g.x, lens), g.h[0]);
    _mm_storeu_si128((__m128i *)tag, _mm_xor_si128(cs_bswap128(g.x), enc1(g.rk, j0)));
}

static void ni_encrypt(const cs_aead_key *k, const uint8_t *iv, const uint8_t *ad, size_t ad_len,
                       const uint8_t *in, size_t n, uint8_t *out)
{
    run(k, iv, ad, ad_len, in, n, out, 1, out + n);
}

static int ni_decrypt(const cs_aead_key *k, const uint8_t *iv, const uint8_t *ad, size_t ad_len,
                      const uint8_t *in, size_t n, uint8_t *out)
{
    uint8_t t[16];
    run(k, iv, ad, ad_len, in, n - 16, out, 0, t);
    if (cs_aead_tag_differs(t, in + n - 16)) {
        memset(out, 0, n - 16); /* 7.2 step 8: FAIL, no plaintext */
        return -1;
    }
    return 0;
}

const cs_aead_impl cs_aead_gcm_aesni = {
    "gcm-aesni", "aes-128-gcm", CS_GCM_IV, ni_available, "AES-NI, PCLMULQDQ and SSE4.1",
    ni_setup, ni_encrypt, ni_decrypt,
};

#else /* not x86 */

static int ni_available(void) { return 0; }
const cs_aead_impl cs_aead_gcm_aesni = {
    "gcm-aesni", "aes-128-gcm", CS_GCM_IV, ni_available, "AES-NI and PCLMULQDQ (x86-64 only)",
    NULL, NULL, NULL,
};
#endif
