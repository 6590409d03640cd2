/*
 * aes_aesni.c - AES-NI (Intel "Advanced Encryption Standard New Instructions" white
 * paper, Gueron 2010): AESENC/AESENCLAST perform one FIPS-197 round (5.1), AESDEC/
 * AESDECLAST one round of the equivalent inverse cipher (5.3.5) with the schedule in
 * cs_aes_key.drk.  Eight independent blocks are kept in flight to hide the latency of
 * the AES unit.  CTR: the counter is a 128-bit big-endian integer (SP 800-38A B.1),
 * carried across all 16 bytes.  Compiled with a per-function target attribute, chosen
 * at run time with __builtin_cpu_supports, so the binary runs on any x86-64.
 */
#include <string.h>

#include "aes.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define TGT __attribute__((target("aes,sse4.1,ssse3")))
#define NB 8 /* blocks in flight */

static int ni_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("aes") && __builtin_cpu_supports("sse4.1");
}

TGT static void load_keys(const uint8_t *sched, int nr, __m128i *rk)
{
    for (int r = 0; r <= nr; r++)
        rk[r] = _mm_loadu_si128((const __m128i *)(sched + 16 * r));
}

TGT static inline __m128i enc1(const __m128i *rk, int nr, __m128i b)
{
    b = _mm_xor_si128(b, rk[0]);
    for (int r = 1; r < nr; r++)
        b = _mm_aesenc_si128(b, rk[r]);
    return _mm_aesenclast_si128(b, rk[nr]);
}

TGT static inline void enc8(const __m128i *rk, int nr, __m128i b[NB])
{
    for (int i = 0; i < NB; i++)
        b[i] = _mm_xor_si128(b[i], rk[0]);
    for (int r = 1; r < nr; r++)
        for (int i = 0; i < NB; i++)
            b[i] = _mm_aesenc_si128(b[i], rk[r]);
    for (int i = 0; i < NB; i++)
        b[i] = _mm_aesenclast_si128(b[i], rk[nr]);
}

TGT static void ni_ecb_encrypt(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t n)
{
    __m128i rk[CS_AES_MAX_ROUNDS + 1], b[NB];
    load_keys(k->rk, k->nr, rk);
    size_t i = 0;
    for (; i + NB <= n; i += NB) {
        for (int j = 0; j < NB; j++)
            b[j] = _mm_loadu_si128((const __m128i *)(in + 16 * (i + j)));
        enc8(rk, k->nr, b);
        for (int j = 0; j < NB; j++)
            _mm_storeu_si128((__m128i *)(out + 16 * (i + j)), b[j]);
    }
    for (; i < n; i++)
        _mm_storeu_si128((__m128i *)(out + 16 * i),
                         enc1(rk, k->nr, _mm_loadu_si128((const __m128i *)(in + 16 * i))));
}

TGT static void ni_ecb_decrypt(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t n)
{
    __m128i rk[CS_AES_MAX_ROUNDS + 1], b[NB];
    const int nr = k->nr;
    load_keys(k->drk, nr, rk);
    size_t i = 0;
    for (; i + NB <= n; i += NB) {
        for (int j = 0; j < NB; j++)
            b[j] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(in + 16 * (i + j))), rk[0]);
        for (int r = 1; r < nr; r++)
            for (int j = 0; j < NB; j++)
                b[j] = _mm_aesdec_si128(b[j], rk[r]);
        for (int j = 0; j < NB; j++)
            _mm_storeu_si128((__m128i *)(out + 16 * (i + j)), _mm_aesdeclast_si128(b[j], rk[nr]));
    }
    for (; i < n; i++) {
        __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(in + 16 * i)), rk[0]);
        for (int r = 1; r < nr; r++)
            x = _mm_aesdec_si128(x, rk[r]);
        _mm_storeu_si128((__m128i *)(out + 16 * i), _mm_aesdeclast_si128(x, rk[nr]));
    }
}

/* Counter block for (hi, lo) = the 128-bit counter as two native integers. */
TGT static inline __m128i ctr_block(uint64_t hi, uint64_t lo)
{
    const __m128i bswap = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm_shuffle_epi8(_mm_set_epi64x((long long)hi, (long long)lo), bswap);
}

static inline uint64_t load_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

TGT static void ni_ctr(const cs_aes_key *k, const uint8_t ctr[16], const uint8_t *in, uint8_t *out,
                       size_t nbytes)
{
    __m128i rk[CS_AES_MAX_ROUNDS + 1], b[NB];
    load_keys(k->rk, k->nr, rk);
    uint64_t hi = load_be64(ctr), lo = load_be64(ctr + 8);
    while (nbytes >= 16 * NB) {
        if (lo <= UINT64_MAX - (NB - 1)) { /* fast path: no carry into the high half */
            for (int j = 0; j < NB; j++)
                b[j] = ctr_block(hi, lo + (uint64_t)j);
        } else {
            for (int j = 0; j < NB; j++) {
                const uint64_t l = lo + (uint64_t)j;
                b[j] = ctr_block(hi + (l < lo), l);
            }
        }
        const uint64_t next = lo + NB;
        hi += next < lo;
        lo = next;
        enc8(rk, k->nr, b);
        for (int j = 0; j < NB; j++) {
            const __m128i p = _mm_loadu_si128((const __m128i *)(in + 16 * j));
            _mm_storeu_si128((__m128i *)(out + 16 * j), _mm_xor_si128(p, b[j]));
        }
        in += 16 * NB;
        out += 16 * NB;
        nbytes -= 16 * NB;
    }
    while (nbytes > 0) {
        const __m128i ks = enc1(rk, k->nr, ctr_block(hi, lo));
        if (++lo == 0)
            hi++;
        if (nbytes >= 16) {
            const __m128i p = _mm_loadu_si128((const __m128i *)in);
            _mm_storeu_si128((__m128i *)out, _mm_xor_si128(p, ks));
            in += 16;
            out += 16;
            nbytes -= 16;
        } else {
            uint8_t buf[16];
            _mm_storeu_si128((__m128i *)buf, ks);
            for (size_t i = 0; i < nbytes; i++)
                out[i] = in[i] ^ buf[i];
            nbytes = 0;
        }
    }
}

const cs_aes_impl cs_aes_impl_aesni = {
    "aesni", ni_available, "AES-NI and SSE4.1", ni_ecb_encrypt, ni_ecb_decrypt, ni_ctr,
};

#else /* not x86 */

static int ni_available(void) { return 0; }
const cs_aes_impl cs_aes_impl_aesni = {"aesni", ni_available, "an x86-64 CPU with AES-NI",
                                       NULL, NULL, NULL};
#endif
