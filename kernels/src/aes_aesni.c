/*
 * aes_aesni.c - AES-NI (Intel "Advanced Encryption Standard New Instructions" white
 * paper, Gueron 2010): AESENC/AESENCLAST perform one FIPS-197 round (5.1), AESDEC/
 * AESDECLAST one round of the equivalent inverse cipher (5.3.5) with the schedule in
 * cs_aes_key.drk.  Eight independent blocks are kept in flight to hide the latency of
 * the AES units, with the rounds unrolled per key size and the CTR counters kept and
 * advanced in vector registers (one 64-bit add and one byte shuffle per block).  CTR
 * (SP 800-38A 6.5): the counter is a 128-bit big-endian integer (Appendix B.1, m = 128),
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

/* Encryption of NB blocks with Nr a compile-time constant (10, 12, 14): the rounds are
 * unrolled, each round key is loaded once per batch and applied to all NB blocks, so
 * NB independent AESENCs are in flight (AESENC latency x throughput: 4 cycles x 2 per
 * cycle on current cores = 8 blocks needed to keep both AES units busy). */
#define ENC_FIXED(NR)                                                                    \
    TGT static inline void enc8_##NR(const __m128i *rk, __m128i b[NB])                   \
    {                                                                                    \
        for (int i = 0; i < NB; i++)                                                     \
            b[i] = _mm_xor_si128(b[i], rk[0]);                                           \
        _Pragma("GCC unroll 14") for (int r = 1; r < NR; r++)                           \
        {                                                                                \
            const __m128i k_ = rk[r];                                                    \
            for (int i = 0; i < NB; i++)                                                 \
                b[i] = _mm_aesenc_si128(b[i], k_);                                       \
        }                                                                                \
        for (int i = 0; i < NB; i++)                                                     \
            b[i] = _mm_aesenclast_si128(b[i], rk[NR]);                                   \
    }
ENC_FIXED(10)
ENC_FIXED(12)
ENC_FIXED(14)

TGT static inline void enc8(const __m128i *rk, int nr, __m128i b[NB])
{
    switch (nr) {
    case 10: enc8_10(rk, b); break;
    case 12: enc8_12(rk, b); break;
    default: enc8_14(rk, b); break;
    }
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

/* Whole batches of NB blocks; counters kept as vectors in native (lo, hi) order and
 * advanced with one 64-bit add each (the caller guarantees the low half cannot wrap
 * inside the batches it asks for), then byte-swapped to the big-endian block. */
#define CTR_FIXED(NR)                                                                    \
    TGT static void ctr_batches_##NR(const __m128i *rk, uint64_t hi, uint64_t lo,         \
                                     const uint8_t *in, uint8_t *out, size_t batches)     \
    {                                                                                    \
        const __m128i bswap =                                                            \
            _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);          \
        const __m128i step = _mm_set_epi64x(0, NB);                                      \
        __m128i c[NB], b[NB];                                                            \
        for (int j = 0; j < NB; j++)                                                     \
            c[j] = _mm_set_epi64x((long long)hi, (long long)(lo + (uint64_t)j));         \
        for (size_t n = 0; n < batches; n++) {                                           \
            for (int j = 0; j < NB; j++) {                                               \
                b[j] = _mm_shuffle_epi8(c[j], bswap);                                    \
                c[j] = _mm_add_epi64(c[j], step);                                        \
            }                                                                            \
            enc8_##NR(rk, b);                                                            \
            for (int j = 0; j < NB; j++) {                                               \
                const __m128i p = _mm_loadu_si128((const __m128i *)(in + 16 * j));       \
                _mm_storeu_si128((__m128i *)(out + 16 * j), _mm_xor_si128(p, b[j]));     \
            }                                                                            \
            in += 16 * NB;                                                               \
            out += 16 * NB;                                                              \
        }                                                                                \
    }
CTR_FIXED(10)
CTR_FIXED(12)
CTR_FIXED(14)

TGT static void ctr_batches(const __m128i *rk, int nr, uint64_t hi, uint64_t lo,
                            const uint8_t *in, uint8_t *out, size_t batches)
{
    switch (nr) {
    case 10: ctr_batches_10(rk, hi, lo, in, out, batches); break;
    case 12: ctr_batches_12(rk, hi, lo, in, out, batches); break;
    default: ctr_batches_14(rk, hi, lo, in, out, batches); break;
    }
}

/* One batch of NB counter blocks, each with its own carry into the high half. */
TGT static void ctr_batch_carry(const __m128i *rk, int nr, uint64_t hi, uint64_t lo,
                                const uint8_t *in, uint8_t *out)
{
    __m128i b[NB];
    for (int j = 0; j < NB; j++) {
        const uint64_t l = lo + (uint64_t)j;
        b[j] = ctr_block(hi + (l < lo), l);
    }
    enc8(rk, nr, b);
    for (int j = 0; j < NB; j++) {
        const __m128i p = _mm_loadu_si128((const __m128i *)(in + 16 * j));
        _mm_storeu_si128((__m128i *)(out + 16 * j), _mm_xor_si128(p, b[j]));
    }
}

TGT static void ni_ctr(const cs_aes_key *k, const uint8_t ctr[16], const uint8_t *in, uint8_t *out,
                       size_t nbytes)
{
    __m128i rk[CS_AES_MAX_ROUNDS + 1];
    load_keys(k->rk, k->nr, rk);
    uint64_t hi = cs_load_be64(ctr), lo = cs_load_be64(ctr + 8);
    while (nbytes >= 16 * NB) {
        size_t batches = nbytes / (16 * NB);
        /* batches whose NB counters all stay below the wrap of the low 64 bits */
        const uint64_t room = (UINT64_MAX - lo) / NB; /* lo + NB*room + NB-1 may wrap */
        if (room == 0) {
            ctr_batch_carry(rk, k->nr, hi, lo, in, out);
            batches = 1;
        } else {
            if ((uint64_t)batches > room)
                batches = (size_t)room;
            ctr_batches(rk, k->nr, hi, lo, in, out, batches);
        }
        const uint64_t next = lo + (uint64_t)(NB * batches);
        hi += next < lo;
        lo = next;
        in += 16 * NB * batches;
        out += 16 * NB * batches;
        nbytes -= 16 * NB * batches;
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
