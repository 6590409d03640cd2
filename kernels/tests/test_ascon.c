/*
 * test_ascon.c - the 1,089 known-answer vectors of the Ascon team's
 * LWC_AEAD_KAT_128_128.txt (Ascon-AEAD128, NIST SP 800-232; tests/data/) for every Ascon
 * impl: encryption must give CT (ciphertext || tag) byte for byte, decryption must give
 * PT back, and a flipped tag bit, ciphertext bit or AD bit must fail with no plaintext.
 * Also: the impls agree with each other on messages longer than the KAT's 32 bytes.
 * Usage: test_ascon KAT_FILE.  Portable: no OpenSSL (runs under qemu-user on ARM).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aead.h"
#include "check.h"

typedef struct {
    int count;
    uint8_t key[16], nonce[16], pt[64], ad[64], ct[96];
    size_t pt_len, ad_len, ct_len;
} kat;

/* "Name = HEX" -> bytes; returns the length or -1. */
static long parse_hex_field(const char *line, const char *name, uint8_t *out, size_t max)
{
    const size_t nl = strlen(name);
    if (strncmp(line, name, nl) != 0 || strncmp(line + nl, " = ", 3) != 0)
        return -1;
    const char *p = line + nl + 3;
    size_t n = 0;
    unsigned v;
    while (p[0] && p[1] && p[0] != '\n' && p[0] != '\r') {
        if (n >= max || sscanf(p, "%2x", &v) != 1)
            return -1;
        out[n++] = (uint8_t)v;
        p += 2;
    }
    return (long)n;
}

/* Reads the next vector; 1 = got one, 0 = end of file, -1 = malformed. */
static int next_kat(FILE *f, kat *k)
{
    char line[512];
    int have = 0;
    long n;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "Count = %d", &k->count) == 1) {
            have = 1;
        } else if (parse_hex_field(line, "Key", k->key, 16) == 16 ||
                   parse_hex_field(line, "Nonce", k->nonce, 16) == 16) {
        } else if ((n = parse_hex_field(line, "PT", k->pt, sizeof k->pt)) >= 0) {
            k->pt_len = (size_t)n;
        } else if ((n = parse_hex_field(line, "AD", k->ad, sizeof k->ad)) >= 0) {
            k->ad_len = (size_t)n;
        } else if ((n = parse_hex_field(line, "CT", k->ct, sizeof k->ct)) >= 0) {
            k->ct_len = (size_t)n;
            return have ? 1 : -1;
        }
    }
    return have ? -1 : 0;
}

static void check_vector(const cs_aead_impl *im, const kat *v)
{
    cs_aead_key key;
    uint8_t out[96], back[64], bad[96];
    im->setup(&key, v->key);
    im->encrypt(&key, v->nonce, v->ad, v->ad_len, v->pt, v->pt_len, out);
    CHECK(v->ct_len == v->pt_len + 16 && memcmp(out, v->ct, v->ct_len) == 0,
          "%s: Count = %d: ciphertext || tag differs", im->name, v->count);
    memset(back, 0xaa, sizeof back);
    CHECK(im->decrypt(&key, v->nonce, v->ad, v->ad_len, v->ct, v->ct_len, back) == 0 &&
              memcmp(back, v->pt, v->pt_len) == 0,
          "%s: Count = %d: decryption", im->name, v->count);
    /* a flipped bit anywhere in C || T, or in the AD, must fail and release nothing */
    const size_t pos = (size_t)v->count % v->ct_len;
    memcpy(bad, v->ct, v->ct_len);
    bad[pos] ^= (uint8_t)(1u << (v->count % 8));
    memset(back, 0xaa, sizeof back);
    int rc = im->decrypt(&key, v->nonce, v->ad, v->ad_len, bad, v->ct_len, back);
    int zero = 1;
    for (size_t i = 0; i < v->pt_len; i++)
        zero &= back[i] == 0;
    CHECK(rc == -1 && zero, "%s: Count = %d: forged byte %zu accepted", im->name, v->count, pos);
    if (v->ad_len) {
        uint8_t ad[64];
        memcpy(ad, v->ad, v->ad_len);
        ad[v->ad_len - 1] ^= 0x80;
        CHECK(im->decrypt(&key, v->nonce, ad, v->ad_len, v->ct, v->ct_len, back) == -1,
              "%s: Count = %d: changed AD accepted", im->name, v->count);
    }
}

/* Long messages: every impl agrees with ascon-ref for lengths around the block size. */
static void check_agreement(const cs_aead_impl *im)
{
    enum { MAX = 1100 };
    static uint8_t in[MAX], ad[80], want[MAX + 16], got[MAX + 16], back[MAX];
    uint8_t key[16], nonce[16];
    cs_aead_key kr, ki;
    for (size_t i = 0; i < MAX; i++)
        in[i] = (uint8_t)(i * 131 + 7);
    for (size_t i = 0; i < sizeof ad; i++)
        ad[i] = (uint8_t)(i * 17 + 3);
    for (int i = 0; i < 16; i++) {
        key[i] = (uint8_t)(0xf0 ^ i);
        nonce[i] = (uint8_t)(0x3c + 5 * i);
    }
    cs_aead_ascon_ref.setup(&kr, key);
    im->setup(&ki, key);
    static const size_t lens[] = {0, 7, 8, 9, 15, 16, 17, 31, 33, 255, 256, 1023, 1100};
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
        const size_t n = lens[l], a = (n * 7) % sizeof ad;
        cs_aead_ascon_ref.encrypt(&kr, nonce, ad, a, in, n, want);
        im->encrypt(&ki, nonce, ad, a, in, n, got);
        CHECK(memcmp(want, got, n + 16) == 0, "%s: %zu bytes, AD %zu: differs from ascon-ref",
              im->name, n, a);
        CHECK(im->decrypt(&ki, nonce, ad, a, got, n + 16, back) == 0 && memcmp(back, in, n) == 0,
              "%s: %zu bytes: round trip", im->name, n);
    }
}

#if defined(__aarch64__)
#define ARCH "aarch64"
#elif defined(__arm__)
#define ARCH "arm"
#elif defined(__x86_64__)
#define ARCH "x86_64"
#else
#define ARCH "other"
#endif

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_ascon LWC_AEAD_KAT_128_128.txt\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    const cs_aead_impl *const *impls = cs_aead_impls();
    int vectors = 0, rc;
    kat v;
    memset(&v, 0, sizeof v);
    while ((rc = next_kat(f, &v)) == 1) {
        vectors++;
        for (int i = 0; impls[i]; i++)
            if (strcmp(impls[i]->cipher, "ascon-aead128") == 0)
                check_vector(impls[i], &v);
        memset(&v, 0, sizeof v);
    }
    fclose(f);
    CHECK(rc == 0, "malformed KAT file after vector %d", vectors);
    CHECK(vectors == 1089, "%d vectors read, 1089 expected", vectors);
    for (int i = 0; impls[i]; i++)
        if (strcmp(impls[i]->cipher, "ascon-aead128") == 0)
            check_agreement(impls[i]);
    printf("ascon (%s, %zu-bit): %d KAT vectors; %d checks passed, %d failed\n", ARCH,
           8 * sizeof(void *), vectors, g_pass, g_fail);
    return g_fail ? 1 : 0;
}
