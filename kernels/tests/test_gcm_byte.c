/*
 * test_gcm_byte.c - gcm-byte runs on the byte-oriented AES block of aes_ref.c (FIPS-197
 * 5.1 as written), one call per block, and gcm-ref does not: the program is linked with
 * -Wl,--wrap=cs_aes_ref_encrypt_block, so every call that another object file makes
 * to the byte-oriented block comes through the counter below first.  For a message of
 * n bytes GCM-AE (SP 800-38D 7.1) encrypts ceil(n/16) counter blocks plus E_K(J0) for
 * the tag, and the key setup one block, H = E_K(0^128); GCM-AD the same.  The outputs
 * of gcm-byte and gcm-ref (T-table AES, 4-bit-table GHASH) agree byte for byte.
 * (test_gcm checks gcm-byte against the GCM specification's test cases and OpenSSL.)
 */
#include <string.h>

#include "aead.h"
#include "check.h"

static unsigned long g_calls; /* calls of the byte-oriented block from other objects */

void __real_cs_aes_ref_encrypt_block(const cs_aes_key *k, const uint8_t in[16], uint8_t out[16]);
void __wrap_cs_aes_ref_encrypt_block(const cs_aes_key *k, const uint8_t in[16], uint8_t out[16]);
void __wrap_cs_aes_ref_encrypt_block(const cs_aes_key *k, const uint8_t in[16], uint8_t out[16])
{
    g_calls++;
    __real_cs_aes_ref_encrypt_block(k, in, out);
}

/* Block calls of setup, encryption and decryption of n bytes by im. */
static void count_calls(const cs_aead_impl *im, size_t n, unsigned long want_setup,
                        unsigned long want_data)
{
    static uint8_t p[4099], c[4099 + 16], back[4099];
    const uint8_t key[16] = "0123456789abcdef", iv[12] = "nonce-012345", ad[5] = "head";
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 7 + 1);
    cs_aead_key k;
    g_calls = 0;
    im->setup(&k, key);
    CHECK(g_calls == want_setup, "%s setup: %lu byte-oriented blocks, want %lu", im->name,
          g_calls, want_setup);
    g_calls = 0;
    im->encrypt(&k, iv, ad, sizeof ad, p, n, c);
    CHECK(g_calls == want_data, "%s encrypt %zu B: %lu byte-oriented blocks, want %lu",
          im->name, n, g_calls, want_data);
    g_calls = 0;
    CHECK(im->decrypt(&k, iv, ad, sizeof ad, c, n + 16, back) == 0 && memcmp(back, p, n) == 0,
          "%s decrypt %zu B: the plaintext back", im->name, n);
    CHECK(g_calls == want_data, "%s decrypt %zu B: %lu byte-oriented blocks, want %lu",
          im->name, n, g_calls, want_data);
}

/* gcm-byte and gcm-ref give the same ciphertext and tag. */
static void same_output(size_t n)
{
    static uint8_t p[4099], a[4099 + 16], b[4099 + 16];
    const uint8_t key[16] = "fedcba9876543210", iv[12] = "another-iv!!";
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 13 + 5);
    cs_aead_key ka, kb;
    cs_aead_gcm_byte.setup(&ka, key);
    cs_aead_gcm_ref.setup(&kb, key);
    cs_aead_gcm_byte.encrypt(&ka, iv, p, n % 41, p, n, a);
    cs_aead_gcm_ref.encrypt(&kb, iv, p, n % 41, p, n, b);
    CHECK(memcmp(a, b, n + 16) == 0, "gcm-byte and gcm-ref differ at %zu B", n);
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 15, 16, 17, 20, 100, 300, 1024, 3072, 4099};
    int missing = 0;
    CHECK(cs_aead_impl_find("aes-128-gcm", "gcm-byte", &missing) == &cs_aead_gcm_byte &&
              missing == 0,
          "gcm-byte is an aes-128-gcm impl of the dispatch table, available everywhere");
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t n = sizes[s], blocks = (n + 15) / 16 + 1; /* + E_K(J0) */
        count_calls(&cs_aead_gcm_byte, n, 1, blocks);
        count_calls(&cs_aead_gcm_ref, n, 0, 0);
        same_output(n);
    }
    printf("gcm_byte: %d checks passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
