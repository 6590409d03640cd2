/*
 * test_vectors.c - known-answer tests of every block impl the CPU has:
 *   FIPS-197 Appendix C.1 (AES-128), C.2 (AES-192), C.3 (AES-256);
 *   SP 800-38A F.1.1/F.1.2 (ECB-AES128 encrypt/decrypt), F.5.1/F.5.2 (CTR-AES128);
 * plus agreement of every impl with the reference impl on long messages (all batch and
 * tail paths), CTR counters whose low 64 bits (and all 128 bits) wrap, and PKCS#7.
 * Impls the CPU lacks are reported as skipped.  The run-time choice ("auto") is tested
 * by switching impls off (CIPHERSWEEP_DISABLE_IMPLS, which emulates a lesser CPU).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aes.h"

static int failures;

static void hex(const char *s, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(s + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void check(const char *what, const char *impl, const uint8_t *got, const uint8_t *want,
                  size_t n)
{
    if (memcmp(got, want, n) != 0) {
        size_t i = 0;
        while (got[i] == want[i])
            i++;
        printf("FAIL %-8s %s (first difference at byte %zu)\n", impl, what, i);
        failures++;
    }
}

static const char *f1_key = "2b7e151628aed2a6abf7158809cf4f3c";
static const char *f1_pt = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                           "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
static const char *f11_ct = "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
                            "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4";
static const char *f5_ctr = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
static const char *f51_ct = "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
                            "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee";

static void test_impl(const cs_aes_impl *im)
{
    uint8_t key[32], pt[64], ct[64], out[64], ctr[16];
    cs_aes_key k;
    /* FIPS-197 Appendix C */
    static const struct {
        int bytes;
        const char *ct;
    } c[] = {{16, "69c4e0d86a7b0430d8cdb78070b4c55a"},
             {24, "dda97ca4864cdfe06eaf70a0ec0d7191"},
             {32, "8ea2b7ca516745bfeafc49904b496089"}};
    for (int i = 0; i < 3; i++) {
        char what[64];
        for (int b = 0; b < 32; b++)
            key[b] = (uint8_t)b;
        hex("00112233445566778899aabbccddeeff", pt, 16);
        hex(c[i].ct, ct, 16);
        cs_aes_expand_key(&k, key, c[i].bytes);
        im->ecb_encrypt(&k, pt, out, 1);
        snprintf(what, sizeof what, "FIPS-197 C.%d encrypt", i + 1);
        check(what, im->name, out, ct, 16);
        im->ecb_decrypt(&k, ct, out, 1);
        snprintf(what, sizeof what, "FIPS-197 C.%d decrypt", i + 1);
        check(what, im->name, out, pt, 16);
    }
    /* SP 800-38A F.1.1, F.1.2 */
    hex(f1_key, key, 16);
    hex(f1_pt, pt, 64);
    hex(f11_ct, ct, 64);
    cs_aes_expand_key(&k, key, 16);
    im->ecb_encrypt(&k, pt, out, 4);
    check("SP 800-38A F.1.1 ECB-AES128.Encrypt", im->name, out, ct, 64);
    im->ecb_decrypt(&k, ct, out, 4);
    check("SP 800-38A F.1.2 ECB-AES128.Decrypt", im->name, out, pt, 64);
    /* SP 800-38A F.5.1, F.5.2 (CTR decryption is the same operation) */
    hex(f5_ctr, ctr, 16);
    hex(f51_ct, ct, 64);
    im->ctr(&k, ctr, pt, out, 64);
    check("SP 800-38A F.5.1 CTR-AES128.Encrypt", im->name, out, ct, 64);
    im->ctr(&k, ctr, ct, out, 64);
    check("SP 800-38A F.5.2 CTR-AES128.Decrypt", im->name, out, pt, 64);
    /* a partial last block: the first 61 bytes of F.5.1 */
    memset(out, 0, sizeof out);
    im->ctr(&k, ctr, pt, out, 61);
    check("SP 800-38A F.5.1, 61 bytes", im->name, out, ct, 61);
}

/* Long messages against the reference impl, all key sizes, counters that wrap. */
static void test_against_ref(const cs_aes_impl *im)
{
    const size_t n = 16 * 1037 + 9; /* many batches + odd tail */
    uint8_t *in = malloc(n), *a = malloc(n), *b = malloc(n);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        in[i] = (uint8_t)x;
    }
    static const char *ctrs[] = {
        "000102030405060708090a0b0c0d0e0f", /* no wrap */
        "0000000000000000fffffffffffffff0", /* low 64 bits wrap inside the message */
        "00000000000000ffffffffffffffffff", /* low 64 bits all ones: carry at once */
        "fffffffffffffffffffffffffffffffe", /* the whole 128-bit counter wraps to 0 */
        "7fffffffffffffffffffffffffffff00",
    };
    for (int kb = 16; kb <= 32; kb += 8) {
        uint8_t key[32];
        cs_aes_key k;
        for (int i = 0; i < 32; i++)
            key[i] = (uint8_t)(0xa5 ^ (i * 7));
        cs_aes_expand_key(&k, key, kb);
        for (size_t nb = 0; nb <= 40; nb += (nb < 10 ? 1 : 7)) { /* short runs */
            cs_aes_impl_ref.ecb_encrypt(&k, in, a, nb);
            im->ecb_encrypt(&k, in, b, nb);
            check("ECB encrypt vs ref (short)", im->name, b, a, 16 * nb);
        }
        cs_aes_impl_ref.ecb_encrypt(&k, in, a, n / 16);
        im->ecb_encrypt(&k, in, b, n / 16);
        check("ECB encrypt vs ref", im->name, b, a, 16 * (n / 16));
        im->ecb_decrypt(&k, a, b, n / 16);
        check("ECB decrypt(encrypt(x)) == x", im->name, b, in, 16 * (n / 16));
        for (size_t c = 0; c < sizeof ctrs / sizeof *ctrs; c++) {
            uint8_t ctr[16];
            hex(ctrs[c], ctr, 16);
            for (size_t len = 1; len <= n; len = len * 3 + 5) {
                cs_aes_impl_ref.ctr(&k, ctr, in, a, len);
                im->ctr(&k, ctr, in, b, len);
                check("CTR vs ref (wrapping counters)", im->name, b, a, len);
            }
            cs_aes_impl_ref.ctr(&k, ctr, in, a, n);
            im->ctr(&k, ctr, in, b, n);
            check("CTR vs ref (wrapping counters)", im->name, b, a, n);
        }
    }
    free(in);
    free(a);
    free(b);
}

static void test_modes(void)
{
    uint8_t c[16], want[16];
    hex("00000000000000ffffffffffffffffff", c, 16);
    cs_ctr_add(c, 1, c);
    hex("00000000000001000000000000000000", want, 16);
    check("cs_ctr_add carry", "modes", c, want, 16);
    hex("ffffffffffffffffffffffffffffffff", c, 16);
    cs_ctr_add(c, 2, c);
    hex("00000000000000000000000000000001", want, 16);
    check("cs_ctr_add wrap", "modes", c, want, 16);
    if (cs_pkcs7_padded_len(0) != 16 || cs_pkcs7_padded_len(15) != 16 ||
        cs_pkcs7_padded_len(16) != 32 || cs_pkcs7_padded_len(17) != 32) {
        printf("FAIL modes   cs_pkcs7_padded_len\n");
        failures++;
    }
    uint8_t buf[32];
    size_t un = 0;
    memset(buf, 16, 32);
    if (cs_pkcs7_check(buf, 32, &un) != 0 || un != 16) {
        printf("FAIL modes   pkcs7 full block\n");
        failures++;
    }
    buf[31] = 0;
    buf[30] = 3;
    if (cs_pkcs7_check(buf, 32, &un) == 0) {
        printf("FAIL modes   pkcs7 accepted pad 0\n");
        failures++;
    }
    buf[31] = 3;
    buf[29] = 4;
    if (cs_pkcs7_check(buf, 32, &un) == 0) {
        printf("FAIL modes   pkcs7 accepted inconsistent pad\n");
        failures++;
    }
    buf[31] = 17;
    if (cs_pkcs7_check(buf, 32, &un) == 0) {
        printf("FAIL modes   pkcs7 accepted pad 17\n");
        failures++;
    }
}

/* "auto" picks vaes > vaes256 > aesni > ttable among the impls the CPU has and the
 * environment leaves on; every combination of the three switched off is tried. */
static void test_selection(void)
{
    static const char *const order[] = {"vaes", "vaes256", "aesni"};
    for (int mask = 0; mask < 8; mask++) {
        char env[64] = "";
        for (int i = 0; i < 3; i++)
            if (mask & (1 << i)) {
                strcat(env, env[0] ? "," : "");
                strcat(env, order[i]);
            }
        setenv("CIPHERSWEEP_DISABLE_IMPLS", env, 1);
        const char *want = "ttable";
        int missing = 0;
        for (int i = 0; i < 3; i++) {
            const cs_aes_impl *im = cs_aes_impl_find(order[i], &missing);
            const int off = (mask >> i) & 1;
            if (!im || missing != (!im->available() ? 1 : off ? 2 : 0)) {
                printf("FAIL select   %s with '%s' off: missing=%d\n", order[i], env, missing);
                failures++;
            }
            if (im && im->available() && !off) {
                want = order[i];
                break;
            }
        }
        const cs_aes_impl *got = cs_aes_impl_find("auto", &missing);
        if (!got || strcmp(got->name, want) != 0 || missing) {
            printf("FAIL select   auto with '%s' off: %s, want %s\n", env, got ? got->name : "NULL",
                   want);
            failures++;
        } else {
            printf("ok   select   auto with '%s' off -> %s\n", env, got->name);
        }
    }
    unsetenv("CIPHERSWEEP_DISABLE_IMPLS");
}

int main(int argc, char **argv)
{
    const cs_aes_impl *const *impls = cs_aes_impls();
    const char *only = argc > 1 ? argv[1] : NULL;
    int tested = 0;
    test_modes();
    if (!only)
        test_selection();
    for (int i = 0; impls[i]; i++) {
        if (only && strcmp(only, impls[i]->name) != 0)
            continue;
        if (!impls[i]->available()) {
            printf("skip %-8s (this CPU lacks %s)\n", impls[i]->name, impls[i]->needs);
            continue;
        }
        const int before = failures;
        test_impl(impls[i]);
        test_against_ref(impls[i]);
        printf("%s %-8s FIPS-197 C.1-C.3, SP 800-38A F.1.1 F.1.2 F.5.1 F.5.2, vs ref\n",
               failures == before ? "ok  " : "FAIL", impls[i]->name);
        tested++;
    }
    if (tested == 0) {
        printf("FAIL: no impl tested\n");
        return 1;
    }
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
