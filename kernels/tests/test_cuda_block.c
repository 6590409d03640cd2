/*
 * test_cuda_block.c - the __host__ __device__ block code of aes-cuda (aes_block_gpu.h),
 * compiled by the C compiler and run on the CPU exactly as each GPU thread runs it
 * (cs_gpu_process_le_words on a 16-byte uint4-style load):
 *   - FIPS-197 Appendix C.1/C.2/C.3 (cipher and inverse cipher, 128/192/256-bit keys)
 *   - SP 800-38A F.1.1/F.1.2 (ECB-AES128) and F.5.1/F.5.2 (CTR-AES128)
 *   - random keys, sizes and IVs (low 64 bits all ones, all 128 bits ones) against
 *     OpenSSL EVP aes-128-ecb (no padding, and PKCS#7 padding written by the tail
 *     "thread" as the kernel does) and aes-128-ctr, and decrypt(encrypt(x)) == x.
 */
#include "aes.h"
#include "aes_block_gpu.h"
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

typedef struct {
    int nr;
    uint32_t rk[4 * (CS_AES_MAX_ROUNDS + 1)];
    uint32_t drk[4 * (CS_AES_MAX_ROUNDS + 1)];
} gpu_key;

static void gpu_key_setup(gpu_key *g, const uint8_t *key, int key_bytes)
{
    cs_aes_key k;
    if (cs_aes_expand_key(&k, key, key_bytes) != 0) abort();
    g->nr = k.nr;
    cs_gpu_round_key_words(k.rk, k.nr, g->rk);
    cs_gpu_round_key_words(k.drk, k.nr, g->drk);
}

static void gpu_like_pad(const gpu_key *g, int mode, const uint8_t iv[16], uint8_t *buf,
                         size_t n, size_t msg_len)
{
    uint32_t ivw[4] = {0, 0, 0, 0};
    if (iv)
        for (int c = 0; c < 4; c++) ivw[c] = cs_gpu_load_be32(iv + 4 * c);
    const cs_gpu_tables *T = mode == 1 ? &DEC : &ENC;
    const uint32_t *rk = mode == 1 ? g->drk : g->rk;
    const uint32_t padv = msg_len ? (uint32_t)(n - msg_len) : 0;
    for (size_t i = 0; i * 16 < n; i++) {
        uint32_t w[4] = {0x5a5a5a5au, 0x5a5a5a5au, 0x5a5a5a5au, 0x5a5a5a5au};
        size_t len = n - i * 16 < 16 ? n - i * 16 : 16;
        memcpy(w, buf + 16 * i, len);
        if (padv) cs_gpu_pad_le_words((uint64_t)i, (uint64_t)msg_len, padv, w);
        cs_gpu_process_le_words(T, rk, g->nr, mode, ivw, (uint64_t)i, w);
        memcpy(buf + 16 * i, w, len);
    }
}

/* What the kernel does over a buffer: mode 0 ECB enc, 1 ECB dec, 2 CTR; the buffer is
 * processed in place, one 16-byte block per "thread". A partial tail block holds stale
 * bytes beyond n, as the device buffer may (only n bytes are kept). */
static void gpu_like(const gpu_key *g, int mode, const uint8_t iv[16], uint8_t *buf, size_t n)
{
    gpu_like_pad(g, mode, iv, buf, n, 0);
}

/* ECB encryption with PKCS#7 padding as the kernel does it: n message bytes in a buffer
 * of padded length; the tail thread writes the pad bytes. Returns the padded length. */
static size_t gpu_like_ecb_pad(const gpu_key *g, uint8_t *buf, size_t n)
{
    size_t padded = (n / 16 + 1) * 16;
    memset(buf + n, 0xA5, padded - n); /* stale device bytes */
    gpu_like_pad(g, 0, NULL, buf, padded, n);
    return padded;
}

static void test_fips197(void)
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
        gpu_key_setup(&g, key, v[i].kb);
        cs_gpu_encrypt_block(&ENC, g.rk, g.nr, pt, out);
        CHECK(memcmp(out, ct, 16) == 0, "FIPS-197 C.%zu cipher", i + 1);
        cs_gpu_decrypt_block(&DEC, g.drk, g.nr, ct, out);
        CHECK(memcmp(out, pt, 16) == 0, "FIPS-197 C.%zu inverse cipher", i + 1);
        memcpy(out, pt, 16);
        gpu_like(&g, 0, NULL, out, 16);
        CHECK(memcmp(out, ct, 16) == 0, "FIPS-197 C.%zu via the kernel's word path", i + 1);
    }
}

static const char *SP_KEY = "2b7e151628aed2a6abf7158809cf4f3c";
static const char *SP_PT =
    "6bc1bee22e409f96e93d7e117393172a" "ae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52ef" "f69f2445df4f9b17ad2b417be66c3710";

static void test_sp800_38a(void)
{
    uint8_t key[16], pt[64], ct[64], buf[64], iv[16];
    gpu_key g;
    unhex(SP_KEY, key, 16);
    unhex(SP_PT, pt, 64);
    gpu_key_setup(&g, key, 16);

    unhex("3ad77bb40d7a3660a89ecaf32466ef97" "f5d3d58503b9699de785895a96fdbaaf"
          "43b1cd7f598ece23881b00e3ed030688" "7b0c785e27e8ad3f8223207104725dd4", ct, 64);
    memcpy(buf, pt, 64);
    gpu_like(&g, 0, NULL, buf, 64);
    CHECK(memcmp(buf, ct, 64) == 0, "SP 800-38A F.1.1 ECB-AES128.Encrypt");
    gpu_like(&g, 1, NULL, buf, 64);
    CHECK(memcmp(buf, pt, 64) == 0, "SP 800-38A F.1.2 ECB-AES128.Decrypt");

    unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", iv, 16);
    unhex("874d6191b620e3261bef6864990db6ce" "9806f66b7970fdff8617187bb9fffdff"
          "5ae4df3edbd5d35e5b4f09020db03eab" "1e031dda2fbe03d1792170a0f3009cee", ct, 64);
    memcpy(buf, pt, 64);
    gpu_like(&g, 2, iv, buf, 64);
    CHECK(memcmp(buf, ct, 64) == 0, "SP 800-38A F.5.1 CTR-AES128.Encrypt");
    gpu_like(&g, 2, iv, buf, 64);
    CHECK(memcmp(buf, pt, 64) == 0, "SP 800-38A F.5.2 CTR-AES128.Decrypt");

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

static void test_random_vs_openssl(void)
{
    static const size_t sizes[] = {1, 15, 16, 17, 31, 32, 33, 4096, 65536 + 5, 1048576 + 48};
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        uint8_t *in = malloc(n + 32), *ref = malloc(n + 32), *buf = malloc(n + 32);
        uint8_t key[16], iv[16];
        if (!in || !ref || !buf) abort();
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            in[i] = (uint8_t)(x >> 24);
        }
        for (int i = 0; i < 16; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            key[i] = (uint8_t)x;
            iv[i] = (uint8_t)(x >> 8);
        }
        /* low 64 bits all ones on every other size, all ones on the last: carries */
        if (si % 2) memset(iv + 8, 0xff, 8);
        if (si + 1 == sizeof sizes / sizeof sizes[0]) memset(iv, 0xff, 16);
        gpu_key g;
        gpu_key_setup(&g, key, 16);

        CHECK(evp("aes-128-ctr", 1, key, iv, in, n, ref) == 0, "EVP ctr %zu", n);
        memcpy(buf, in, n);
        gpu_like(&g, 2, iv, buf, n);
        CHECK(memcmp(buf, ref, n) == 0, "CTR vs OpenSSL, %zu bytes", n);
        gpu_like(&g, 2, iv, buf, n);
        CHECK(memcmp(buf, in, n) == 0, "CTR twice gives the input back, %zu bytes", n);

        /* ECB with PKCS#7 padding, the tail filled in by the "thread" as on the GPU */
        CHECK(evp_pad("aes-128-ecb", key, in, n, ref) == (int)((n / 16 + 1) * 16), "EVP ecb pad %zu", n);
        memcpy(buf, in, n);
        size_t padded = gpu_like_ecb_pad(&g, buf, n);
        CHECK(memcmp(buf, ref, padded) == 0, "ECB+PKCS#7 vs OpenSSL, %zu bytes", n);

        size_t nb = n / 16 * 16;
        if (nb) {
            CHECK(evp("aes-128-ecb", 1, key, NULL, in, nb, ref) == 0, "EVP ecb %zu", nb);
            memcpy(buf, in, nb);
            gpu_like(&g, 0, NULL, buf, nb);
            CHECK(memcmp(buf, ref, nb) == 0, "ECB encrypt vs OpenSSL, %zu bytes", nb);
            gpu_like(&g, 1, NULL, buf, nb);
            CHECK(memcmp(buf, in, nb) == 0, "ECB decrypt(encrypt(x)) == x, %zu bytes", nb);
        }
        free(in);
        free(ref);
        free(buf);
    }
}

int main(void)
{
    test_fips197();
    test_sp800_38a();
    test_random_vs_openssl();
    printf("test_cuda_block: %d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
