/*
 * test_cuda_block.c - the __host__ __device__ block code of every aes-cuda impl
 * (gpu-ttable: aes_block_gpu.h, gpu-lanes: aes_block_gpu_lanes.h, gpu-ref:
 * aes_block_gpu_ref.h), compiled by the C compiler and run on the CPU exactly as each GPU
 * thread runs it (the impl's process function on 16-byte uint4-style loads; gpu-lanes
 * with 1..4 blocks per call and every lane's copy of its replicated tables):
 *   - FIPS-197 Appendix C.1/C.2/C.3 (cipher and inverse cipher, 128/192/256-bit keys)
 *   - SP 800-38A F.1.1/F.1.2 (ECB-AES128) and F.5.1/F.5.2 (CTR-AES128)
 *   - random keys, sizes and IVs (low 64 bits all ones, all 128 bits ones) against
 *     OpenSSL EVP aes-128-ecb (no padding, and PKCS#7 padding written by the tail
 *     "thread" as the kernel does) and aes-128-ctr, and decrypt(encrypt(x)) == x.
 */
#include "aes.h"
#include "aes_block_gpu.h"
#include "aes_block_gpu_lanes.h"
#include "aes_block_gpu_ref.h"
#include "aes_tables.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"


static void unhex(const char *h, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) abort();
        out[i] = (uint8_t)v;
    }
}

static const cs_gpu_tables ENC = {cs_te0, cs_te1, cs_te2, cs_te3, NULL};
static const cs_gpu_tables DEC = {cs_td0, cs_td1, cs_td2, cs_td3, cs_inv_sbox};

/* The GPU impls, as aes-cuda names them. */
enum { IMPL_TTABLE, IMPL_LANES, IMPL_REF, NIMPL };
static const char *const IMPL_NAME[NIMPL] = {"gpu-ttable", "gpu-lanes", "gpu-ref"};

/* gpu-lanes' shared-memory tables as each thread block builds them (lane L's copy of
 * entry x at x * CS_LANES + L). */
typedef struct {
    uint32_t te[256 * CS_LANES], td[256 * CS_LANES], isb[64 * CS_LANES];
} lane_tables;

typedef struct {
    int impl;                 /* IMPL_* */
    int nb;                   /* gpu-lanes: blocks per call (1..CS_LANES_MAX_NB) */
    const lane_tables *lt;
    int nr;
    cs_aes_key k;             /* gpu-ref: byte round keys */
    uint32_t rk[4 * (CS_AES_MAX_ROUNDS + 1)];
    uint32_t drk[4 * (CS_AES_MAX_ROUNDS + 1)];
} gpu_key;

static void gpu_key_setup(gpu_key *g, const uint8_t *key, int key_bytes)
{
    if (cs_aes_expand_key(&g->k, key, key_bytes) != 0) abort();
    g->nr = g->k.nr;
    cs_gpu_round_key_words(g->k.rk, g->k.nr, g->rk);
    cs_gpu_round_key_words(g->k.drk, g->k.nr, g->drk);
}

/* One thread's work on nb blocks (message blocks idx[0..nb-1]); lane picks the copy of
 * gpu-lanes' tables the thread reads. */
static void process(const gpu_key *g, int mode, const uint32_t ivw[4], const uint64_t *idx,
                    uint32_t w[][4], int nb, int lane)
{
    if (g->impl == IMPL_LANES) {
        const uint32_t *T = (mode == 1 ? g->lt->td : g->lt->te) + lane;
        cs_lanes_process_le_words(T, g->lt->isb + lane, mode == 1 ? g->drk : g->rk, g->nr,
                                  mode, ivw, idx, w, nb);
        return;
    }
    for (int j = 0; j < nb; j++) {
        if (g->impl == IMPL_REF)
            cs_ref_process_le_words(mode == 1 ? cs_inv_sbox : cs_sbox, g->k.rk, g->nr, mode, ivw,
                                    idx[j], w[j]);
        else
            cs_gpu_process_le_words(mode == 1 ? &DEC : &ENC, mode == 1 ? g->drk : g->rk, g->nr,
                                    mode, ivw, idx[j], w[j]);
    }
}

/* padv: PKCS#7 pad value written by the tail thread(s) over bytes >= msg_len, 0: none */
static void gpu_like_pad(const gpu_key *g, int mode, const uint8_t iv[16], uint8_t *buf,
                         size_t n, size_t msg_len, uint32_t padv)
{
    uint32_t ivw[4] = {0, 0, 0, 0};
    if (iv)
        for (int c = 0; c < 4; c++) ivw[c] = cs_gpu_load_be32(iv + 4 * c);
    const size_t nblocks = (n + 15) / 16;
    const int nb = g->impl == IMPL_LANES ? g->nb : 1;
    for (size_t i = 0, call = 0; i < nblocks; i += (size_t)nb, call++) {
        uint32_t w[CS_LANES_MAX_NB][4];
        uint64_t idx[CS_LANES_MAX_NB];
        int m = 0;
        for (; m < nb && i + (size_t)m < nblocks; m++) {
            const size_t b = i + (size_t)m, len = n - b * 16 < 16 ? n - b * 16 : 16;
            for (int c = 0; c < 4; c++) w[m][c] = 0x5a5a5a5au;
            memcpy(w[m], buf + 16 * b, len);
            idx[m] = (uint64_t)b;
            if (padv) cs_gpu_pad_le_words(idx[m], (uint64_t)msg_len, padv, w[m]);
        }
        process(g, mode, ivw, idx, w, m, (int)(call % CS_LANES));
        for (int j = 0; j < m; j++) {
            const size_t b = i + (size_t)j, len = n - b * 16 < 16 ? n - b * 16 : 16;
            memcpy(buf + 16 * b, w[j], len);
        }
    }
}

/* What the kernel does over a buffer: mode 0 ECB enc, 1 ECB dec, 2 CTR; the buffer is
 * processed in place, one 16-byte block per "thread". A partial tail block holds stale
 * bytes beyond n, as the device buffer may (only n bytes are kept). */
static void gpu_like(const gpu_key *g, int mode, const uint8_t iv[16], uint8_t *buf, size_t n)
{
    gpu_like_pad(g, mode, iv, buf, n, 0, 0);
}

/* ECB encryption with PKCS#7 padding as the kernel does it: n message bytes in a buffer
 * of padded length; the tail thread writes the pad bytes. Returns the padded length. */
static size_t gpu_like_ecb_pad(const gpu_key *g, uint8_t *buf, size_t n)
{
    size_t padded = (n / 16 + 1) * 16;
    memset(buf + n, 0xA5, padded - n); /* stale device bytes */
    gpu_like_pad(g, 0, NULL, buf, padded, n, (uint32_t)(padded - n));
    return padded;
}

static void test_fips197(const gpu_key *proto)
{
    static const struct { int kb; const char *key, *ct; } v[] = {
        {16, "000102030405060708090a0b0c0d0e0f", "69c4e0d86a7b0430d8cdb78070b4c55a"},
        {24, "000102030405060708090a0b0c0d0e0f1011121314151617",
         "dda97ca4864cdfe06eaf70a0ec0d7191"},
        {32, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
         "8ea2b7ca516745bfeafc49904b496089"},
    };
    uint8_t pt[16], ct[16], key[32], out[16];
    unhex("00112233445566778899aabbccddeeff", pt, 16);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        gpu_key g;
        unhex(v[i].key, key, (size_t)v[i].kb);
        unhex(v[i].ct, ct, 16);
        g = *proto;
        gpu_key_setup(&g, key, v[i].kb);
        const char *im = IMPL_NAME[g.impl];
        if (g.impl == IMPL_TTABLE) {
            cs_gpu_encrypt_block(&ENC, g.rk, g.nr, pt, out);
            CHECK(memcmp(out, ct, 16) == 0, "FIPS-197 C.%zu cipher", i + 1);
            cs_gpu_decrypt_block(&DEC, g.drk, g.nr, ct, out);
            CHECK(memcmp(out, pt, 16) == 0, "FIPS-197 C.%zu inverse cipher", i + 1);
        }
        memcpy(out, pt, 16);
        gpu_like(&g, 0, NULL, out, 16);
        CHECK(memcmp(out, ct, 16) == 0, "%s FIPS-197 C.%zu cipher (kernel path)", im, i + 1);
        gpu_like(&g, 1, NULL, out, 16);
        CHECK(memcmp(out, pt, 16) == 0, "%s FIPS-197 C.%zu inverse cipher", im, i + 1);
    }
}

static const char *SP_KEY = "2b7e151628aed2a6abf7158809cf4f3c";
static const char *SP_PT =
    "6bc1bee22e409f96e93d7e117393172a" "ae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52ef" "f69f2445df4f9b17ad2b417be66c3710";

static void test_sp800_38a(const gpu_key *proto)
{
    uint8_t key[16], pt[64], ct[64], buf[64], iv[16];
    gpu_key g = *proto;
    const char *im = IMPL_NAME[g.impl];
    unhex(SP_KEY, key, 16);
    unhex(SP_PT, pt, 64);
    gpu_key_setup(&g, key, 16);

    unhex("3ad77bb40d7a3660a89ecaf32466ef97" "f5d3d58503b9699de785895a96fdbaaf"
          "43b1cd7f598ece23881b00e3ed030688" "7b0c785e27e8ad3f8223207104725dd4", ct, 64);
    memcpy(buf, pt, 64);
    gpu_like(&g, 0, NULL, buf, 64);
    CHECK(memcmp(buf, ct, 64) == 0, "%s SP 800-38A F.1.1 ECB-AES128.Encrypt", im);
    gpu_like(&g, 1, NULL, buf, 64);
    CHECK(memcmp(buf, pt, 64) == 0, "%s SP 800-38A F.1.2 ECB-AES128.Decrypt", im);

    unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", iv, 16);
    unhex("874d6191b620e3261bef6864990db6ce" "9806f66b7970fdff8617187bb9fffdff"
          "5ae4df3edbd5d35e5b4f09020db03eab" "1e031dda2fbe03d1792170a0f3009cee", ct, 64);
    memcpy(buf, pt, 64);
    gpu_like(&g, 2, iv, buf, 64);
    CHECK(memcmp(buf, ct, 64) == 0, "%s SP 800-38A F.5.1 CTR-AES128.Encrypt", im);
    gpu_like(&g, 2, iv, buf, 64);
    CHECK(memcmp(buf, pt, 64) == 0, "%s SP 800-38A F.5.2 CTR-AES128.Decrypt", im);

    /* The counter carries across all 128 bits. */
    uint32_t ivw[4] = {0x00000000u, 0x00000001u, 0xffffffffu, 0xffffffffu}, c[4];
    cs_gpu_ctr_block(ivw, 1, c);
    CHECK(c[0] == 0 && c[1] == 2 && c[2] == 0 && c[3] == 0, "carry into the high 64 bits");
    uint32_t ones[4] = {~0u, ~0u, ~0u, ~0u};
    cs_gpu_ctr_block(ones, 3, c);
    CHECK(c[0] == 0 && c[1] == 0 && c[2] == 0 && c[3] == 2, "wrap modulo 2^128");
}

static int evp(const char *name, int enc, const uint8_t *key, const uint8_t *iv,
               const uint8_t *in, size_t n, uint8_t *out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    const EVP_CIPHER *c = EVP_get_cipherbyname(name);
    int l1 = 0, l2 = 0, ok = ctx && c && EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc) == 1;
    ok = ok && EVP_CIPHER_CTX_set_padding(ctx, 0) == 1;
    ok = ok && EVP_CipherUpdate(ctx, out, &l1, in, (int)n) == 1;
    ok = ok && EVP_CipherFinal_ex(ctx, out + l1, &l2) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok && (size_t)(l1 + l2) == n ? 0 : -1;
}

/* EVP encryption with PKCS#7 padding (as `openssl enc`); returns the output length. */
static int evp_pad(const char *name, const uint8_t *key, const uint8_t *in, size_t n, uint8_t *out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    const EVP_CIPHER *c = EVP_get_cipherbyname(name);
    int l1 = 0, l2 = 0, ok = ctx && c && EVP_EncryptInit_ex(ctx, c, NULL, key, NULL) == 1;
    ok = ok && EVP_EncryptUpdate(ctx, out, &l1, in, (int)n) == 1;
    ok = ok && EVP_EncryptFinal_ex(ctx, out + l1, &l2) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? l1 + l2 : -1;
}

/* One size, one key length: CTR, ECB with PKCS#7 padding, ECB encrypt and decrypt, each
 * against OpenSSL EVP. */
static void check_one_size(const gpu_key *proto, int kb, size_t n, const uint8_t *in,
                           const uint8_t *key, const uint8_t *iv, uint8_t *ref, uint8_t *buf)
{
    gpu_key g = *proto;
    const char *im = IMPL_NAME[g.impl];
    char name[32];
    gpu_key_setup(&g, key, kb);

    snprintf(name, sizeof name, "aes-%d-ctr", 8 * kb);
    CHECK(evp(name, 1, key, iv, in, n, ref) == 0, "EVP %s %zu", name, n);
    memcpy(buf, in, n);
    gpu_like(&g, 2, iv, buf, n);
    CHECK(memcmp(buf, ref, n) == 0, "%s %s vs OpenSSL, %zu bytes, nb %d", im, name, n, g.nb);
    gpu_like(&g, 2, iv, buf, n);
    CHECK(memcmp(buf, in, n) == 0, "%s %s twice gives the input back, %zu bytes", im, name, n);

    /* ECB with PKCS#7 padding, the tail filled in by the "thread" as on the GPU */
    snprintf(name, sizeof name, "aes-%d-ecb", 8 * kb);
    CHECK(evp_pad(name, key, in, n, ref) == (int)((n / 16 + 1) * 16), "EVP %s pad %zu", name, n);
    memcpy(buf, in, n);
    size_t padded = gpu_like_ecb_pad(&g, buf, n);
    CHECK(memcmp(buf, ref, padded) == 0, "%s %s+PKCS#7 vs OpenSSL, %zu bytes", im, name, n);

    size_t nb = n / 16 * 16;
    if (nb) {
        CHECK(evp(name, 1, key, NULL, in, nb, ref) == 0, "EVP %s %zu", name, nb);
        memcpy(buf, in, nb);
        gpu_like(&g, 0, NULL, buf, nb);
        CHECK(memcmp(buf, ref, nb) == 0, "%s %s encrypt vs OpenSSL, %zu bytes", im, name, nb);
        gpu_like(&g, 1, NULL, buf, nb);
        CHECK(memcmp(buf, in, nb) == 0, "%s %s decrypt(encrypt(x)) == x, %zu bytes", im, name, nb);
        CHECK(evp(name, 0, key, NULL, in, nb, ref) == 0, "EVP %s decrypt %zu", name, nb);
        memcpy(buf, in, nb);
        gpu_like(&g, 1, NULL, buf, nb);
        CHECK(memcmp(buf, ref, nb) == 0, "%s %s decrypt vs OpenSSL, %zu bytes", im, name, nb);
    }
}

/* Random keys, data and IVs: sizes 0 .. 1 MiB + 48, every key length; the IV's low 64
 * bits are all ones on every other size and all 128 bits on the last (counter carries). */
static void test_random_vs_openssl(const gpu_key *proto)
{
    static const size_t sizes[] = {0, 1, 15, 16, 17, 31, 32, 33, 4096, 4097, 65536 + 5,
                                   1048576 + 48};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t si = 0; si < nsizes; si++) {
        size_t n = sizes[si];
        uint8_t *in = malloc(n + 32), *ref = malloc(n + 32), *buf = malloc(n + 32);
        uint8_t key[32], iv[16];
        if (!in || !ref || !buf) abort();
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            in[i] = (uint8_t)(x >> 24);
        }
        for (int i = 0; i < 32; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            key[i] = (uint8_t)x;
            iv[i & 15] = (uint8_t)(x >> 8);
        }
        if (si % 2) memset(iv + 8, 0xff, 8);
        if (si + 1 == nsizes) memset(iv, 0xff, 16);
        /* the big sizes with AES-128 only for the slow byte-oriented gpu-ref */
        for (int kb = 16; kb <= 32; kb += 8)
            if (proto->impl != IMPL_REF || kb == 16 || n < 100000)
                check_one_size(proto, kb, n, in, key, iv, ref, buf);
        free(in);
        free(ref);
        free(buf);
    }
}

int main(void)
{
    static lane_tables lt;
    cs_lanes_fill_table(cs_te0, lt.te);
    cs_lanes_fill_table(cs_td0, lt.td);
    cs_lanes_fill_isbox(cs_inv_sbox, lt.isb);
    for (int impl = 0; impl < NIMPL; impl++) {
        const int max_nb = impl == IMPL_LANES ? CS_LANES_MAX_NB : 1;
        for (int nb = 1; nb <= max_nb; nb++) {
            gpu_key proto;
            memset(&proto, 0, sizeof proto);
            proto.impl = impl;
            proto.nb = nb;
            proto.lt = &lt;
            const int before = g_fail;
            test_fips197(&proto);
            test_sp800_38a(&proto);
            test_random_vs_openssl(&proto);
            printf("%s %s (%d block%s per thread): FIPS-197 C.1-C.3, SP 800-38A, vs OpenSSL\n",
                   g_fail == before ? "ok  " : "FAIL", IMPL_NAME[impl], nb, nb > 1 ? "s" : "");
        }
    }
    printf("test_cuda_block: %d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
