/*
 * aes_vaes.c - VAES with AVX-512: VAESENC/VAESENCLAST on 512-bit registers perform one
 * FIPS-197 round (5.1) on four independent 128-bit blocks at once; VAESDEC/VAESDECLAST
 * a round of the equivalent inverse cipher (5.3.5, schedule cs_aes_key.drk).  Eight
 * vectors (32 blocks, 512 bytes) are kept in flight.  ECB and CTR (SP 800-38A 6.5, B.1)
 * over the batches: aes_vaes_modes.h, shared with aes_vaes256.c.
 * Per-function target attributes + run-time detection (__builtin_cpu_supports).
 */
#include <string.h>

#include "aes.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define TGT __attribute__((target("vaes,avx512f,avx512bw,aes,sse4.1,ssse3")))
#define NV 8               /* vectors in flight */
#define BATCH (4 * NV)     /* blocks per batch (4 a vector) */

static int vaes_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("aes");
}

TGT static void load_keys(const uint8_t *sched, int nr, __m512i *rk)
{
    for (int r = 0; r <= nr; r++)
        rk[r] = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(sched + 16 * r)));
}

TGT static inline void enc_batch(const __m512i *rk, int nr, __m512i v[NV])
{
    for (int i = 0; i < NV; i++)
        v[i] = _mm512_xor_si512(v[i], rk[0]);
    for (int r = 1; r < nr; r++)
        for (int i = 0; i < NV; i++)
            v[i] = _mm512_aesenc_epi128(v[i], rk[r]);
    for (int i = 0; i < NV; i++)
        v[i] = _mm512_aesenclast_epi128(v[i], rk[nr]);
}

TGT static inline void dec_batch(const __m512i *rk, int nr, __m512i v[NV])
{
    for (int i = 0; i < NV; i++)
        v[i] = _mm512_xor_si512(v[i], rk[0]);
    for (int r = 1; r < nr; r++)
        for (int i = 0; i < NV; i++)
            v[i] = _mm512_aesdec_epi128(v[i], rk[r]);
    for (int i = 0; i < NV; i++)
        v[i] = _mm512_aesdeclast_epi128(v[i], rk[nr]);
}

/* ECB and CTR over the batches (aes_vaes_modes.h, shared with aes_vaes256.c) */
#define VEC __m512i
#define VB 4
#define V_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define V_STORE(p, v) _mm512_storeu_si512((void *)(p), (v))
#define V_XOR(a, b) _mm512_xor_si512((a), (b))
#define V_ADD64(a, b) _mm512_add_epi64((a), (b))
#define V_BSWAP(v)                                                                        \
    _mm512_shuffle_epi8((v), _mm512_broadcast_i32x4(_mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, \
                                                                 9, 10, 11, 12, 13, 14, 15)))
#define V_BASE(hi, lo) _mm512_broadcast_i32x4(_mm_set_epi64x((long long)(hi), (long long)(lo)))
#define V_INC(j) _mm512_set_epi64(0, 4 * (j) + 3, 0, 4 * (j) + 2, 0, 4 * (j) + 1, 0, 4 * (j))
#include "aes_vaes_modes.h"

const cs_aes_impl cs_aes_impl_vaes = {
    "vaes", vaes_available, "VAES and AVX-512 (F, BW)", modes_ecb_encrypt, modes_ecb_decrypt,
    modes_ctr,
};

#else

static int vaes_available(void) { return 0; }
const cs_aes_impl cs_aes_impl_vaes = {"vaes", vaes_available, "an x86-64 CPU with VAES and AVX-512",
                                      NULL, NULL, NULL};
#endif
