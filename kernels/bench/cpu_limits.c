/*
 * cpu_limits.c - aes-cpu-limits: what the CPU this runs on can do at most with its AES
 * instructions, measured here (not looked up), for the kernel benchmark:
 *
 *   clock_ghz       core clock while busy: a chain of dependent 64-bit adds (one cycle
 *                   each on every x86-64 core) timed with this thread's CPU time
 *                   (CLOCK_THREAD_CPUTIME_ID, so time spent descheduled on a busy
 *                   machine does not count), fastest of many short tries
 *   aesenc_xmm_ipc  AESENC (128-bit) instructions retired per cycle with 12 independent
 *                   chains (covers latency x throughput on current cores; 12 + the key fit in
 *                   the 16 vector registers of AVX2)
 *   vaesenc_ymm_ipc VAESENC on 256-bit registers, same method (null without VAES/AVX2)
 *   vaesenc_zmm_ipc VAESENC on 512-bit registers (null without VAES/AVX-512)
 *   limit_*_bpc     bytes per cycle the AES unit allows for AES-128 (Nr = 10 AES
 *                   instructions per 16-byte block, FIPS-197 5.1): ipc x width / 10
 *
 * Prints one JSON object.  Pin it to the core the benchmark uses (taskset -c 0).
 * Per-function target attributes, run-time detection, as the kernels themselves.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* n x 16 dependent adds: n x 16 cycles. */
static double add_chain_seconds(uint64_t n)
{
    uint64_t x = 0;
    const double t0 = now();
    for (uint64_t i = 0; i < n; i++)
        __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
                         : "+r"(x));
    return now() - t0;
}

#define CHAINS 12

/* Twelve independent chains, one round key; the loop body is inline assembly so that
 * the compiler cannot add stores or moves to it.  MOD prints the register width
 * (x: xmm, t: ymm, g: zmm). */
#define STEP(MOD, INSN, r) INSN " %" MOD "[k], %" MOD "[" #r "], %" MOD "[" #r "]\n\t"
#define CHAIN_BENCH(NAME, TARGET, T, SET1, MOD, INSN, CONS, XOR, LOW64)                   \
    __attribute__((target(TARGET))) static double NAME(uint64_t n, uint64_t *sink)       \
    {                                                                                    \
        const T k = SET1(0x5a5a5a5a);                                                    \
        T a = SET1(1), b = SET1(2), c = SET1(3), d = SET1(4), e = SET1(5), f = SET1(6);  \
        T g = SET1(7), h = SET1(8), i_ = SET1(9), j = SET1(10), l = SET1(11), m = SET1(12); \
        const double t0 = now();                                                         \
        for (uint64_t it = 0; it < n; it++)                                              \
            __asm__ volatile(STEP(MOD, INSN, a) STEP(MOD, INSN, b) STEP(MOD, INSN, c)    \
                             STEP(MOD, INSN, d) STEP(MOD, INSN, e) STEP(MOD, INSN, f)    \
                             STEP(MOD, INSN, g) STEP(MOD, INSN, h) STEP(MOD, INSN, i_)   \
                             STEP(MOD, INSN, j) STEP(MOD, INSN, l) STEP(MOD, INSN, m)    \
                             : [a] "+" CONS(a), [b] "+" CONS(b), [c] "+" CONS(c),        \
                               [d] "+" CONS(d), [e] "+" CONS(e), [f] "+" CONS(f),        \
                               [g] "+" CONS(g), [h] "+" CONS(h), [i_] "+" CONS(i_),      \
                               [j] "+" CONS(j), [l] "+" CONS(l), [m] "+" CONS(m)         \
                             : [k] CONS(k));                                             \
        /* fold before the clock call: a call clobbers every vector register */         \
        T x = XOR(XOR(XOR(a, b), XOR(c, d)), XOR(XOR(e, f), XOR(g, h)));                 \
        x = XOR(x, XOR(XOR(i_, j), XOR(l, m)));                                          \
        *sink += LOW64(x);                                                               \
        return now() - t0;                                                               \
    }
#define CONS_X(v) "x"(v)
#define CONS_V(v) "v"(v)

#define LOW64_X(x) ((uint64_t)_mm_cvtsi128_si64(x))
#define LOW64_Y(x) ((uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(x)))
#define LOW64_Z(x) ((uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(x)))
CHAIN_BENCH(aesenc_seconds, "aes,avx", __m128i, _mm_set1_epi32, "x", "vaesenc", CONS_X,
            _mm_xor_si128, LOW64_X)
CHAIN_BENCH(vaesenc_seconds, "vaes,avx2", __m256i, _mm256_set1_epi32, "t", "vaesenc", CONS_X,
            _mm256_xor_si256, LOW64_Y)
CHAIN_BENCH(vaesenc512_seconds, "vaes,avx512f", __m512i, _mm512_set1_epi32, "g", "vaesenc",
            CONS_V, _mm512_xor_si512, LOW64_Z)

/* Fastest of several tries (the least disturbed by other work on the machine). */
static double best_of(double (*f)(uint64_t, uint64_t *), uint64_t n, uint64_t *sink)
{
    double best = 1e30;
    for (int i = 0; i < 25; i++) {
        const double t = f(n, sink);
        if (t < best)
            best = t;
    }
    return best;
}

static double add_wrap(uint64_t n, uint64_t *sink)
{
    (void)sink;
    return add_chain_seconds(n);
}

int main(void)
{
    const uint64_t n = 300000;
    uint64_t sink = 0;
    __builtin_cpu_init();
    const double hz = (double)n * 16 / best_of(add_wrap, n, &sink);
    const int has_aes = __builtin_cpu_supports("aes") && __builtin_cpu_supports("avx");
    const int has_vaes = __builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx2");
    const int has_vaes512 = has_vaes && __builtin_cpu_supports("avx512f");
    double ipc_x = -1, ipc_y = -1, ipc_z = -1;
    if (has_aes)
        ipc_x = (double)n * CHAINS / (best_of(aesenc_seconds, n, &sink) * hz);
    if (has_vaes)
        ipc_y = (double)n * CHAINS / (best_of(vaesenc_seconds, n, &sink) * hz);
    if (has_vaes512)
        ipc_z = (double)n * CHAINS / (best_of(vaesenc512_seconds, n, &sink) * hz);
    printf("{\"clock_ghz\": %.3f", hz * 1e-9);
    if (ipc_x > 0)
        printf(", \"aesenc_xmm_ipc\": %.3f, \"limit_aesni_bpc\": %.3f", ipc_x, ipc_x * 16 / 10);
    else
        printf(", \"aesenc_xmm_ipc\": null, \"limit_aesni_bpc\": null");
    if (ipc_y > 0)
        printf(", \"vaesenc_ymm_ipc\": %.3f, \"limit_vaes256_bpc\": %.3f", ipc_y, ipc_y * 32 / 10);
    else
        printf(", \"vaesenc_ymm_ipc\": null, \"limit_vaes256_bpc\": null");
    if (ipc_z > 0)
        printf(", \"vaesenc_zmm_ipc\": %.3f, \"limit_vaes_bpc\": %.3f", ipc_z, ipc_z * 64 / 10);
    else
        printf(", \"vaesenc_zmm_ipc\": null, \"limit_vaes_bpc\": null");
    printf(", \"sink\": %llu}\n", (unsigned long long)(sink & 1));
    return 0;
}

#else
int main(void)
{
    if (has_vaes512)
        ipc_z = (double)n * CHAINS / (best_of(vaesenc512_seconds, n, &sink) * hz);
    printf("{\"clock_ghz\": null, \"note\": \"not an x86-64 CPU\"}\n");
    return 0;
}
#endif
