/*
 * test_gcm.c - AES-128-GCM (NIST SP 800-38D) for every GCM impl the CPU has, and for
 * gcm-aesni both with and without its VAES/VPCLMULQDQ path:
 *   - the AES-128 test cases 1-4 of the GCM specification (McGrew & Viega, "The
 *     Galois/Counter Mode of Operation", Appendix B; 96-bit IVs);
 *   - with OpenSSL (CS_HAVE_OPENSSL): EVP aes-128-gcm cross-checks of ciphertext and tag
 *     for random keys, IVs and AD and the sizes 0, 1, 15, 16, 17, 4097 and 1 MiB + 5;
 *   - decryption gives the plaintext back; a flipped bit fails and releases nothing.
 * Built without OpenSSL on ARM (cross builds), where only gcm-ref runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aead.h"
#include "check.h"

#ifdef CS_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

static size_t hex(const char *s, uint8_t *out)
{
    size_t n = 0;
    unsigned v;
    for (; s[0] && s[1]; s += 2)
        if (sscanf(s, "%2x", &v) == 1)
            out[n++] = (uint8_t)v;
    return n;
}

static const char *TC3_P = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                           "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
static const char *TC3_C = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
                           "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985";

static const struct {
    const char *name, *key, *iv, *ad;
    size_t p_len;
    const char *tag;
} SPEC[] = {
    {"test case 1", "00000000000000000000000000000000", "000000000000000000000000", "", 0,
     "58e2fccefa7e3061367f1d57a4e7455a"},
    {"test case 2", "00000000000000000000000000000000", "000000000000000000000000", "", 16,
     "ab6e47d42cec13bdf53a67b21257bddf"},
    {"test case 3", "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888", "", 64,
     "4d5c2af327cd64a62cf35abd2ba6fab4"},
    {"test case 4", "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2", 60, "5bc94fbc3221a5db94fae95ae7121a47"},
};

/* The impl under test: setup, then force gcm-aesni's wide path off when narrow. */
static void setup(const cs_aead_impl *im, cs_aead_key *k, const uint8_t *key, int narrow)
{
    im->setup(k, key);
    if (narrow)
        k->wide = 0;
}

static void check_roundtrip(const cs_aead_impl *im, const cs_aead_key *k, const char *what,
                            const uint8_t *iv, const uint8_t *ad, size_t a, const uint8_t *p,
                            const uint8_t *ct, size_t n)
{
    uint8_t *back = malloc(n + 1), *bad = malloc(n + 16);
    CHECK(im->decrypt(k, iv, ad, a, ct, n + 16, back) == 0 && memcmp(back, p, n) == 0,
          "%s %s: decryption", im->name, what);
    memcpy(bad, ct, n + 16);
    bad[(n * 5) % (n + 16)] ^= 0x04;
    memset(back, 0xaa, n + 1);
    int zero = 1;
    const int rc = im->decrypt(k, iv, ad, a, bad, n + 16, back);
    for (size_t i = 0; i < n; i++)
        zero &= back[i] == 0;
    CHECK(rc == -1 && zero, "%s %s: a forged ciphertext was accepted", im->name, what);
    free(back);
    free(bad);
}

static void check_spec(const cs_aead_impl *im, int narrow)
{
    uint8_t key[16], iv[12], ad[32], p[64] = {0}, c[64] = {0}, tag[16], out[80];
    cs_aead_key k;
    for (size_t t = 0; t < sizeof SPEC / sizeof *SPEC; t++) {
        hex(SPEC[t].key, key);
        hex(SPEC[t].iv, iv);
        const size_t a = hex(SPEC[t].ad, ad), n = SPEC[t].p_len;
        hex(SPEC[t].tag, tag);
        if (t >= 2) {
            hex(TC3_P, p);
            hex(TC3_C, c);
        } else if (t == 1) { /* P = 0^128, C = 0388dace60b6a392f328c2b971b2fe78 */
            hex("0388dace60b6a392f328c2b971b2fe78", c);
        }
        setup(im, &k, key, narrow);
        im->encrypt(&k, iv, ad, a, p, n, out);
        CHECK(memcmp(out, c, n) == 0 && memcmp(out + n, tag, 16) == 0, "%s%s: GCM spec %s",
              im->name, narrow ? " (narrow)" : "", SPEC[t].name);
        check_roundtrip(im, &k, SPEC[t].name, iv, ad, a, p, out, n);
    }
}

#ifdef CS_HAVE_OPENSSL
static uint64_t rng = 0x243f6a8885a308d3ull; /* splitmix64 */
static uint8_t rnd8(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint8_t)(z ^ (z >> 31));
}

static void evp_gcm(const uint8_t *key, const uint8_t *iv, const uint8_t *ad, size_t a,
                    const uint8_t *p, size_t n, uint8_t *out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int len = 0, ok = ctx && EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), NULL, key, iv) == 1;
    ok = ok && (a == 0 || EVP_EncryptUpdate(ctx, NULL, &len, ad, (int)a) == 1);
    ok = ok && EVP_EncryptUpdate(ctx, out, &len, p, (int)n) == 1;
    ok = ok && EVP_EncryptFinal_ex(ctx, out + len, &len) == 1;
    ok = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, out + n) == 1;
    CHECK(ok, "OpenSSL EVP aes-128-gcm failed");
    EVP_CIPHER_CTX_free(ctx);
}

static void check_openssl(const cs_aead_impl *im, int narrow)
{
    static const size_t sizes[] = {0, 1, 15, 16, 17, 4097, (1u << 20) + 5};
    const size_t max = (1u << 20) + 5;
    uint8_t *p = malloc(max), *want = malloc(max + 16), *got = malloc(max + 16);
    uint8_t key[16], iv[12], ad[300];
    cs_aead_key k;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t n = sizes[s], a = (size_t)(rnd8() % 2 ? rnd8() + rnd8() % 45 : 0);
        for (int i = 0; i < 16; i++)
            key[i] = rnd8();
        for (int i = 0; i < 12; i++)
            iv[i] = rnd8();
        for (size_t i = 0; i < a; i++)
            ad[i] = rnd8();
        for (size_t i = 0; i < n; i++)
            p[i] = rnd8();
        evp_gcm(key, iv, ad, a, p, n, want);
        setup(im, &k, key, narrow);
        im->encrypt(&k, iv, ad, a, p, n, got);
        CHECK(memcmp(want, got, n + 16) == 0, "%s%s: %zu bytes, AD %zu: differs from OpenSSL",
              im->name, narrow ? " (narrow)" : "", n, a);
        check_roundtrip(im, &k, "openssl", iv, ad, a, p, got, n);
    }
    free(p);
    free(want);
    free(got);
}
#endif

int main(void)
{
    const cs_aead_impl *const *impls = cs_aead_impls();
    for (int i = 0; impls[i]; i++) {
        const cs_aead_impl *im = impls[i];
        if (strcmp(im->cipher, "aes-128-gcm") != 0)
            continue;
        if (!im->available()) {
            printf("skipped %s: this CPU lacks %s\n", im->name, im->needs);
            continue;
        }
        cs_aead_key probe;
        im->setup(&probe, (const uint8_t *)"0123456789abcdef");
        for (int narrow = 0; narrow <= probe.wide; narrow++) {
            check_spec(im, narrow);
#ifdef CS_HAVE_OPENSSL
            check_openssl(im, narrow);
#endif
        }
        printf("tested %s%s\n", im->name, probe.wide ? " (VAES/VPCLMULQDQ path and narrow)" : "");
    }
    printf("gcm: %d checks passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
