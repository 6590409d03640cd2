/*
 * gcm_vaes.c - the wide bulk path of gcm-aesni (NIST SP 800-38D): VAES runs the
 * FIPS-197 rounds on two blocks per ymm register, 16 counter blocks in flight; GHASH
 * multiplies two blocks per VPCLMULQDQ by (H^16, H^15), ..., (H^2, H^1) and reduces the
 * sixteen products once (aggregated reduction, ghash_clmul.h).  Needs VAES, VPCLMULQDQ
 * and AVX2 (e.g. AMD Zen 3 and later, Intel Ice Lake and later); no AVX-512.
 */
#include <string.h>

#include "aead.h"

#if defined(__x86_64__) || defined(__i386__)
#include "ghash_clmul.h"

#define WTGT __attribute__((target("vaes,vpclmulqdq,avx2,aes,pclmul,sse4.1,ssse3")))
#define NY 8 /* ymm registers in flight = 16 blocks */

int cs_gcm_vaes_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("vaes") && __builtin_cpu_supports("vpclmulqdq") &&
           __builtin_cpu_supports("avx2") && __builtin_cpu_supports("aes") &&
           __builtin_cpu_supports("pclmul");
}

WTGT static inline __m256i bswap_lanes(__m256i x)
{
    const __m256i m = _mm256_broadcastsi128_si256(
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    return _mm256_shuffle_epi8(x, m);
}

/* X = (X ^ B0) H^16 ^ B1 H^15 ^ ... ^ B15 H, d[j] = blocks 2j, 2j+1 in memory order. */
WTGT static inline __m128i ghash16(const __m256i *hp, __m128i x, const __m256i *d)
{
    __m256i lo = _mm256_setzero_si256(), mid = lo, hi = lo;
    for (int j = 0; j < NY; j++) {
        __m256i a = bswap_lanes(d[j]);
        if (j == 0)
            a = _mm256_xor_si256(a, _mm256_zextsi128_si256(x));
        lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128(a, hp[j], 0x00));
        hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128(a, hp[j], 0x11));
        mid = _mm256_xor_si256(mid, _mm256_clmulepi64_epi128(a, hp[j], 0x10));
        mid = _mm256_xor_si256(mid, _mm256_clmulepi64_epi128(a, hp[j], 0x01));
    }
    cs_clmul_acc acc = {
        _mm_xor_si128(_mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1)),
        _mm_xor_si128(_mm256_castsi256_si128(mid), _mm256_extracti128_si256(mid, 1)),
        _mm_xor_si128(_mm256_castsi256_si128(hi), _mm256_extracti128_si256(hi, 1)),
    };
    return cs_clmul_reduce(acc);
}

/* 16 counter blocks (two per register), AES-128 on all of them: the key stream. */
WTGT static inline void keystream16(const __m256i *rk, __m256i *ctr, __m256i *b)
{
    const __m256i two = _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2);
    for (int j = 0; j < NY; j++) {
        b[j] = _mm256_xor_si256(bswap_lanes(*ctr), rk[0]);
        *ctr = _mm256_add_epi32(*ctr, two);
    }
    for (int r = 1; r < 10; r++)
        for (int j = 0; j < NY; j++)
            b[j] = _mm256_aesenc_epi128(b[j], rk[r]);
    for (int j = 0; j < NY; j++)
        b[j] = _mm256_aesenclast_epi128(b[j], rk[10]);
}

WTGT size_t cs_gcm_vaes_bulk(const cs_aead_key *k, __m128i *ctr, __m128i *x, const uint8_t *in,
                             uint8_t *out, size_t n, int enc)
{
    __m256i rk[11], hp[NY], c2, b[NY], pend[NY];
    for (int r = 0; r <= 10; r++)
        rk[r] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(k->aes.rk + 16 * r)));
    for (int j = 0; j < NY; j++) /* lane 0: H^(16-2j), lane 1: H^(15-2j) */
        hp[j] = _mm256_set_m128i(_mm_load_si128((const __m128i *)k->hpow[14 - 2 * j]),
                                 _mm_load_si128((const __m128i *)k->hpow[15 - 2 * j]));
    c2 = _mm256_add_epi32(_mm256_broadcastsi128_si256(*ctr), _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0));
    __m128i acc = *x;
    size_t done = 0;
    int pending = 0;
    for (; n - done >= 256; done += 256) {
        keystream16(rk, &c2, b);
        if (pending)
            acc = ghash16(hp, acc, pend); /* the previous chunk, overlapping the AES */
        for (int j = 0; j < NY; j++) {
            const __m256i p = _mm256_loadu_si256((const __m256i *)(in + done + 32 * j));
            const __m256i c = _mm256_xor_si256(p, b[j]);
            _mm256_storeu_si256((__m256i *)(out + done + 32 * j), c);
            pend[j] = enc ? c : p;
        }
        pending = 1;
    }
    if (pending)
        acc = ghash16(hp, acc, pend);
    *x = acc;
    *ctr = _mm256_castsi256_si128(c2);
    return done;
}

#else

int cs_gcm_vaes_available(void) { return 0; }

#endif
