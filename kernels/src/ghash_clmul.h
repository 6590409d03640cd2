/*
 * ghash_clmul.h - GHASH multiplication (NIST SP 800-38D section 6.3) with PCLMULQDQ, as
 * in Gueron & Kounavis, "Intel Carry-Less Multiplication Instruction and its Usage for
 * Computing the GCM Mode" (2014), Algorithms 1-5: blocks are byte-reversed into
 * polynomial order, the 256-bit carry-less product is accumulated unreduced (so that
 * several products X_i * H^(n-i) share one reduction: the "aggregated" reduction of
 * section 5 of that paper), shifted left by one bit (the bit reflection of GCM) and
 * reduced modulo x^128 + x^7 + x^2 + x + 1.  x86 only; included by gcm_aesni.c and
 * gcm_vaes.c.
 */
#ifndef CIPHERSWEEP_GHASH_CLMUL_H
#define CIPHERSWEEP_GHASH_CLMUL_H

#include <immintrin.h>

#include "aead.h"

#define CLMUL_TGT __attribute__((target("pclmul,sse4.1,ssse3")))

/* Unreduced 256-bit product, its middle 128 bits kept apart until the reduction. */
typedef struct {
    __m128i lo, mid, hi;
} cs_clmul_acc;

CLMUL_TGT static inline __m128i cs_bswap128(__m128i x)
{
    return _mm_shuffle_epi8(x, _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

/* acc += a * b (schoolbook, four 64x64 carry-less products). */
CLMUL_TGT static inline void cs_clmul_add(cs_clmul_acc *acc, __m128i a, __m128i b)
{
    acc->lo = _mm_xor_si128(acc->lo, _mm_clmulepi64_si128(a, b, 0x00));
    acc->hi = _mm_xor_si128(acc->hi, _mm_clmulepi64_si128(a, b, 0x11));
    acc->mid = _mm_xor_si128(acc->mid, _mm_clmulepi64_si128(a, b, 0x10));
    acc->mid = _mm_xor_si128(acc->mid, _mm_clmulepi64_si128(a, b, 0x01));
}

/* The reduced product in GCM's bit order (Algorithm 5 of the paper: shift left by
 * one, then the two-phase reduction). */
CLMUL_TGT static inline __m128i cs_clmul_reduce(cs_clmul_acc a)
{
    __m128i lo = _mm_xor_si128(a.lo, _mm_slli_si128(a.mid, 8));
    __m128i hi = _mm_xor_si128(a.hi, _mm_srli_si128(a.mid, 8));
    /* 256-bit shift left by one bit */
    __m128i c_lo = _mm_srli_epi32(lo, 31), c_hi = _mm_srli_epi32(hi, 31);
    lo = _mm_slli_epi32(lo, 1);
    hi = _mm_slli_epi32(hi, 1);
    hi = _mm_or_si128(hi, _mm_or_si128(_mm_slli_si128(c_hi, 4), _mm_srli_si128(c_lo, 12)));
    lo = _mm_or_si128(lo, _mm_slli_si128(c_lo, 4));
    /* first phase */
    __m128i t = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi32(lo, 31), _mm_slli_epi32(lo, 30)),
                              _mm_slli_epi32(lo, 25));
    const __m128i t_hi = _mm_srli_si128(t, 4);
    lo = _mm_xor_si128(lo, _mm_slli_si128(t, 12));
    /* second phase */
    __m128i u = _mm_xor_si128(_mm_xor_si128(_mm_srli_epi32(lo, 1), _mm_srli_epi32(lo, 2)),
                              _mm_srli_epi32(lo, 7));
    u = _mm_xor_si128(u, t_hi);
    lo = _mm_xor_si128(lo, u);
    return _mm_xor_si128(hi, lo);
}

CLMUL_TGT static inline __m128i cs_gf_mul(__m128i a, __m128i b)
{
    cs_clmul_acc acc = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
    cs_clmul_add(&acc, a, b);
    return cs_clmul_reduce(acc);
}

/* gcm_vaes.c: the VAES/VPCLMULQDQ (ymm) bulk path of gcm-aesni.  *ctr: the counter
 * block byte-reversed (its 32-bit counter in lane 0), *x: the GHASH accumulator in
 * polynomial order.  Processes whole 256-byte chunks of n and returns how many bytes. */
int cs_gcm_vaes_available(void);
size_t cs_gcm_vaes_bulk(const cs_aead_key *k, __m128i *ctr, __m128i *x, const uint8_t *in,
                        uint8_t *out, size_t n, int enc);

#endif
