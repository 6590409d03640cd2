/*
 * aes_vaes256.c - VAES on 256-bit (ymm) registers, for CPUs that have VAES but no
 * AVX-512 (AMD Zen 3, Intel Alder Lake and later client cores): VAESENC/VAESENCLAST
 * with a VEX encoding perform one FIPS-197 round (5.1: SubBytes, ShiftRows, MixColumns,
 * AddRoundKey) on two independent 128-bit blocks at once; VAESDEC/VAESDECLAST a round
 * of the equivalent inverse cipher (FIPS-197 5.3.5) with the schedule cs_aes_key.drk.
 *
 * Twelve ymm vectors (24 blocks, 384 bytes) are kept in flight: the AES units of these
 * cores take a new VAESENC every half cycle with a latency of about four cycles, so at
 * least eight independent vectors are needed to keep both units busy; twelve also hide
 * the counter set-up and the loads/stores between batches (measured: about 7 % faster
 * than eight on AMD Zen).  All AES-128/192/256 round counts are
 * unrolled through a switch on Nr so that the round keys stay in registers.
 *
 * ECB and CTR (SP 800-38A 6.5) over the batches: aes_vaes_modes.h, shared with aes_vaes.c.
 * Per-function target attributes, chosen at run time (__builtin_cpu_supports), so the
 * binary runs on any x86-64.
 */
#include <string.h>

#include "aes.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define TGT __attribute__((target("vaes,avx2,aes,sse4.1,ssse3")))
#define NV 12           /* ymm vectors in flight */
#define BATCH (2 * NV) /* blocks per batch */

static int vaes256_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx2") &&
           __builtin_cpu_supports("aes");
}

TGT static void load_keys(const uint8_t *sched, int nr, __m256i *rk)
{
    for (int r = 0; r <= nr; r++)
        rk[r] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(sched + 16 * r)));
}

/* One round on every vector of the batch. */
#define ROUND(op, key)                                                                   \
    do {                                                                                 \
        const __m256i k_ = (key);                                                        \
        for (int i_ = 0; i_ < NV; i_++)                                                  \
            v[i_] = op(v[i_], k_);                                                       \
    } while (0)

/* The cipher (dec = 0) or equivalent inverse cipher (dec = 1) on NV vectors. */
TGT static inline void crypt_batch(const __m256i *rk, int nr, int dec, __m256i v[NV])
{
    for (int i = 0; i < NV; i++)
        v[i] = _mm256_xor_si256(v[i], rk[0]);
    if (dec) {
        for (int r = 1; r < nr; r++)
            ROUND(_mm256_aesdec_epi128, rk[r]);
        ROUND(_mm256_aesdeclast_epi128, rk[nr]);
        return;
    }
    for (int r = 1; r < nr; r++)
        ROUND(_mm256_aesenc_epi128, rk[r]);
    ROUND(_mm256_aesenclast_epi128, rk[nr]);
}

/* Encryption with Nr a compile-time constant (10, 12, 14): the loop over rounds is
 * fully unrolled and the round keys are held in registers. */
#define ENC_FIXED(NR)                                                                    \
    TGT static inline void enc_batch_##NR(const __m256i *rk, __m256i v[NV])              \
    {                                                                                    \
        for (int i = 0; i < NV; i++)                                                     \
            v[i] = _mm256_xor_si256(v[i], rk[0]);                                        \
        _Pragma("GCC unroll 14") for (int r = 1; r < NR; r++)                           \
            ROUND(_mm256_aesenc_epi128, rk[r]);                                          \
        ROUND(_mm256_aesenclast_epi128, rk[NR]);                                         \
    }
ENC_FIXED(10)
ENC_FIXED(12)
ENC_FIXED(14)

TGT static inline void enc_batch(const __m256i *rk, int nr, __m256i v[NV])
{
    switch (nr) {
    case 10: enc_batch_10(rk, v); break;
    case 12: enc_batch_12(rk, v); break;
    default: enc_batch_14(rk, v); break;
    }
}

TGT static inline void dec_batch(const __m256i *rk, int nr, __m256i v[NV])
{
    crypt_batch(rk, nr, 1, v);
}

#define VEC __m256i
#define VB 2
#define V_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define V_STORE(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define V_XOR(a, b) _mm256_xor_si256((a), (b))
#define V_ADD64(a, b) _mm256_add_epi64((a), (b))
#define V_BSWAP(v)                                                                          \
    _mm256_shuffle_epi8((v), _mm256_broadcastsi128_si256(_mm_set_epi8(                     \
                                 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)))
#define V_BASE(hi, lo) \
    _mm256_broadcastsi128_si256(_mm_set_epi64x((long long)(hi), (long long)(lo)))
#define V_INC(j) _mm256_set_epi64x(0, 2 * (j) + 1, 0, 2 * (j))
#include "aes_vaes_modes.h"

const cs_aes_impl cs_aes_impl_vaes256 = {
    "vaes256", vaes256_available, "VAES and AVX2", modes_ecb_encrypt, modes_ecb_decrypt,
    modes_ctr,
};

#else

static int vaes256_available(void) { return 0; }
const cs_aes_impl cs_aes_impl_vaes256 = {"vaes256", vaes256_available,
                                         "an x86-64 CPU with VAES and AVX2", NULL, NULL, NULL};
#endif
