/* evp.c - OpenSSL 3 EVP helpers: cipher fetch (legacy provider on demand), one-shot
 * encryption/decryption used for references and for the aes-openssl backend. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "evp.h"
#include "exit_status.h"

int cs_evp_fetch(const char *name, void **cipher, char *err, size_t errlen)
{
    ERR_set_mark();
    EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, name, NULL);
    if (!c) {
        /* Legacy algorithms (bf, cast5, des, idea, rc2, rc4, seed ...) live in the
         * "legacy" provider.  Loading a provider explicitly stops the default one from
         * being loaded implicitly, so both are loaded. */
        OSSL_PROVIDER *def = OSSL_PROVIDER_load(NULL, "default");
        OSSL_PROVIDER *leg = OSSL_PROVIDER_load(NULL, "legacy");
        (void)def;
        if (leg)
            c = EVP_CIPHER_fetch(NULL, name, NULL);
        if (!c) {
            ERR_pop_to_mark();
            if (!leg && EVP_get_cipherbyname(name))
                snprintf(err, errlen,
                         "--cipher: '%s' needs OpenSSL's legacy provider, which could not be "
                         "loaded (install it or set OPENSSL_MODULES)", name);
            else
                snprintf(err, errlen, "--cipher: '%s' is not a cipher known to OpenSSL "
                                      "(see `openssl list -cipher-algorithms`)", name);
            return CS_EXIT_USAGE;
        }
    }
    ERR_pop_to_mark();
    *cipher = c;
    return 0;
}

void cs_evp_free(void *cipher) { EVP_CIPHER_free((EVP_CIPHER *)cipher); }

const char *cs_openssl_version(void) { return OpenSSL_version(OPENSSL_VERSION); }

static void ossl_err(char *err, size_t errlen, const char *what)
{
    char buf[256] = "";
    const unsigned long e = ERR_get_error();
    if (e)
        ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    snprintf(err, errlen, "%s%s%s", what, *buf ? ": " : "", buf);
}

/* Feeds n bytes through EVP_CipherUpdate in int-sized chunks (out NULL: AD); *total
 * (may be NULL) gets the bytes written. */
static int update_all(EVP_CIPHER_CTX *ctx, uint8_t *out, const uint8_t *in, size_t n,
                      size_t *total)
{
    int len = 0;
    size_t sum = 0;
    while (n > 0) {
        const int chunk = n > (size_t)(INT_MAX / 2) ? INT_MAX / 2 : (int)n;
        if (EVP_CipherUpdate(ctx, out ? out + sum : NULL, &len, in, chunk) != 1)
            return -1;
        sum += (size_t)len;
        in += chunk;
        n -= (size_t)chunk;
    }
    if (total)
        *total = sum;
    return 0;
}

int cs_evp_init(void *ctx, const void *cipher, const uint8_t *key, int key_len,
                const uint8_t *iv, int enc)
{
    EVP_CIPHER_CTX *x = (EVP_CIPHER_CTX *)ctx;
    const EVP_CIPHER *c = (const EVP_CIPHER *)cipher;
    const uint8_t *v = EVP_CIPHER_get_iv_length(c) ? iv : NULL;
    if (key_len == EVP_CIPHER_get_key_length(c))
        return EVP_CipherInit_ex2(x, c, key, v, enc, NULL);
    return EVP_CipherInit_ex2(x, c, NULL, NULL, enc, NULL) == 1 &&
                   EVP_CIPHER_CTX_set_key_length(x, key_len) == 1 &&
                   EVP_CipherInit_ex2(x, NULL, key, v, -1, NULL) == 1
               ? 1
               : 0;
}

int cs_evp_key_length_ok(const void *cipher, int key_len)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int ok = x && EVP_CipherInit_ex2(x, (const EVP_CIPHER *)cipher, NULL, NULL, 1, NULL) == 1 &&
             EVP_CIPHER_CTX_set_key_length(x, key_len) == 1;
    EVP_CIPHER_CTX_free(x);
    ERR_clear_error();
    return ok;
}

int cs_evp_crypt(void *cipher, int enc, int pad, const uint8_t *key, int key_len, const uint8_t *iv,
                 const uint8_t *in, size_t n, uint8_t *out, size_t *out_n, uint8_t *tag,
                 char *err, size_t errlen)
{
    EVP_CIPHER *c = (EVP_CIPHER *)cipher;
    const int aead = (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int rc = -1, len = 0;
    size_t total = 0;
    if (!ctx) {
        ossl_err(err, errlen, "EVP_CIPHER_CTX_new failed");
        return -1;
    }
    if (cs_evp_init(ctx, c, key, key_len, iv, enc) != 1) {
        ossl_err(err, errlen, "EVP_CipherInit_ex2 failed");
        goto done;
    }
    EVP_CIPHER_CTX_set_padding(ctx, pad);
    if (update_all(ctx, out, in, n, &total) != 0) {
        ossl_err(err, errlen, "EVP_CipherUpdate failed");
        goto done;
    }
    if (aead && !enc && tag &&
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) != 1) {
        ossl_err(err, errlen, "setting the AEAD tag failed");
        goto done;
    }
    if (EVP_CipherFinal_ex(ctx, out + total, &len) != 1) {
        ossl_err(err, errlen, enc ? "EVP_CipherFinal_ex failed"
                                  : "bad decrypt (wrong padding or tag)");
        goto done;
    }
    total += (size_t)len;
    if (aead && enc && tag && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1) {
        ossl_err(err, errlen, "getting the AEAD tag failed");
        goto done;
    }
    *out_n = total;
    rc = 0;
done:
    EVP_CIPHER_CTX_free(ctx);
    return rc;
}

int cs_evp_aead(void *cipher, int enc, const uint8_t *key, const uint8_t *iv,
                const uint8_t *ad, size_t ad_len, const uint8_t *in, size_t n, uint8_t *out,
                char *err, size_t errlen)
{
    const size_t m = enc ? n : n - 16; /* payload length */
    uint8_t tag[16];
    int len = 0, rc = -1;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx || EVP_CipherInit_ex2(ctx, (EVP_CIPHER *)cipher, key, iv, enc, NULL) != 1 ||
        (ad_len && update_all(ctx, NULL, ad, ad_len, NULL) != 0) ||
        update_all(ctx, out, in, m, NULL) != 0) {
        ossl_err(err, errlen, "OpenSSL AEAD setup or update failed");
        goto done;
    }
    if (!enc) {
        memcpy(tag, in + m, 16);
        if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) != 1) {
            ossl_err(err, errlen, "setting the AEAD tag failed");
            goto done;
        }
    }
    if (EVP_CipherFinal_ex(ctx, out + m, &len) != 1) {
        ERR_clear_error();
        snprintf(err, errlen, "tag mismatch");
        rc = enc ? -1 : -2;
        goto done;
    }
    if (enc && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out + m) != 1) {
        ossl_err(err, errlen, "getting the AEAD tag failed");
        goto done;
    }
    rc = 0;
done:
    EVP_CIPHER_CTX_free(ctx);
    return rc;
}
