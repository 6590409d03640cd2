/*
 * aes_vaes.c - VAES with AVX-512: VAESENC/VAESENCLAST on 512-bit registers perform one
 * FIPS-197 round (5.1) on four independent 128-bit blocks at once; VAESDEC/VAESDECLAST
 * a round of the equivalent inverse cipher (5.3.5, schedule cs_aes_key.drk).  Eight
 * vectors (32 blocks, 512 bytes) are kept in flight.  CTR (SP 800-38A 6.5, B.1): the
 * 128-bit big-endian counter is held as (hi, lo) native integers; when the low 64 bits
 * cannot wrap inside a batch, the 32 counter blocks are made with vector 64-bit adds
 * and a byte swap, otherwise each block is built with the carry into the high half.
 * Per-function target attributes + run-time detection (__builtin_cpu_supports).
 */
#include <string.h>

#include "aes.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define TGT __attribute__((target("vaes,avx512f,avx512bw,aes,sse4.1,ssse3")))
#define NV 8               /* vectors in flight */
#define BATCH (4 * NV)     /* blocks per batch */

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

/* ECB over whole blocks; the last partial batch goes through a stack buffer. */
TGT static void vaes_ecb(const uint8_t *sched, int nr, int dec, const uint8_t *in, uint8_t *out,
                         size_t n)
{
    __m512i rk[CS_AES_MAX_ROUNDS + 1], v[NV];
    load_keys(sched, nr, rk);
    size_t i = 0;
    for (; i + BATCH <= n; i += BATCH) {
        for (int j = 0; j < NV; j++)
            v[j] = _mm512_loadu_si512((const void *)(in + 16 * i + 64 * j));
        if (dec)
            dec_batch(rk, nr, v);
        else
            enc_batch(rk, nr, v);
        for (int j = 0; j < NV; j++)
            _mm512_storeu_si512((void *)(out + 16 * i + 64 * j), v[j]);
    }
    if (i < n) {
        uint8_t buf[16 * BATCH];
        const size_t rest = 16 * (n - i);
        memcpy(buf, in + 16 * i, rest);
        memset(buf + rest, 0, sizeof buf - rest);
        for (int j = 0; j < NV; j++)
            v[j] = _mm512_loadu_si512((const void *)(buf + 64 * j));
        if (dec)
            dec_batch(rk, nr, v);
        else
            enc_batch(rk, nr, v);
        for (int j = 0; j < NV; j++)
            _mm512_storeu_si512((void *)(buf + 64 * j), v[j]);
        memcpy(out + 16 * i, buf, rest);
    }
}

static void vaes_ecb_encrypt(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t n)
{
    vaes_ecb(k->rk, k->nr, 0, in, out, n);
}

static void vaes_ecb_decrypt(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t n)
{
    vaes_ecb(k->drk, k->nr, 1, in, out, n);
}

TGT static void counters_slow(uint64_t hi, uint64_t lo, __m512i v[NV])
{
    uint8_t buf[16 * BATCH];
    cs_ctr_blocks(hi, lo, BATCH, buf);
    for (int j = 0; j < NV; j++)
        v[j] = _mm512_loadu_si512((const void *)(buf + 64 * j));
}

TGT static void vaes_ctr(const cs_aes_key *k, const uint8_t ctr[16], const uint8_t *in,
                         uint8_t *out, size_t nbytes)
{
    __m512i rk[CS_AES_MAX_ROUNDS + 1], v[NV], inc[NV];
    const int nr = k->nr;
    load_keys(k->rk, nr, rk);
    /* byte-reverses each 128-bit lane: native (lo, hi) qwords <-> big-endian block */
    const __m512i bswap = _mm512_broadcast_i32x4(
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    for (int j = 0; j < NV; j++)
        inc[j] = _mm512_set_epi64(0, 4 * j + 3, 0, 4 * j + 2, 0, 4 * j + 1, 0, 4 * j);
    uint64_t hi = cs_load_be64(ctr), lo = cs_load_be64(ctr + 8);
    while (nbytes > 0) {
        if (lo <= UINT64_MAX - (BATCH - 1)) {
            const __m512i base = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)hi, (long long)lo));
            for (int j = 0; j < NV; j++)
                v[j] = _mm512_shuffle_epi8(_mm512_add_epi64(base, inc[j]), bswap);
        } else {
            counters_slow(hi, lo, v);
        }
        const uint64_t next = lo + BATCH;
        hi += next < lo;
        lo = next;
        enc_batch(rk, nr, v);
        if (nbytes >= 16 * BATCH) {
            for (int j = 0; j < NV; j++) {
                const __m512i p = _mm512_loadu_si512((const void *)(in + 64 * j));
                _mm512_storeu_si512((void *)(out + 64 * j), _mm512_xor_si512(p, v[j]));
            }
            in += 16 * BATCH;
            out += 16 * BATCH;
            nbytes -= 16 * BATCH;
        } else {
            uint8_t ks[16 * BATCH];
            for (int j = 0; j < NV; j++)
                _mm512_storeu_si512((void *)(ks + 64 * j), v[j]);
            for (size_t i = 0; i < nbytes; i++)
                out[i] = in[i] ^ ks[i];
            nbytes = 0;
        }
    }
}

const cs_aes_impl cs_aes_impl_vaes = {
    "vaes", vaes_available, "VAES and AVX-512 (F, BW)", vaes_ecb_encrypt, vaes_ecb_decrypt,
    vaes_ctr,
};

#else

static int vaes_available(void) { return 0; }
const cs_aes_impl cs_aes_impl_vaes = {"vaes", vaes_available, "an x86-64 CPU with VAES and AVX-512",
                                      NULL, NULL, NULL};
#endif
