/*
 * main_openssl.c - aes-openssl: OpenSSL 3 EVP (EVP_CIPHER_fetch) for any cipher name;
 * legacy ciphers (bf-cbc, des-cbc, rc4 ...) through the legacy provider.
 *
 * Key and IV lengths come from the cipher: --key/--iv must have exactly those lengths;
 * without them the key is 00 01 02 ... (key length bytes) and the IV f0 f1 f2 ...
 * Timed region: EVP_CipherInit_ex2 (t_keyexp: key schedule) + EVP_CipherUpdate/Final
 * (t_compute).
 *
 * Verification (a path independent of the timed EVP call):
 *   - aes-128/192/256-ecb/ctr: the output is compared with this project's own AES core
 *     (T-table impl), which is itself tested against FIPS-197 / SP 800-38A vectors;
 *   - any other cipher: the output is compared with a separate one-shot EVP run, and
 *     the inverse operation in a fresh context must give the timed input back
 *     (decrypt(encrypt(x)) == x, or encrypt(decrypt(c)) == c); decrypting generated
 *     plaintext (the default for --op decrypt) must also give that plaintext back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "runner.h"

typedef struct {
    EVP_CIPHER_CTX *ctx;
    int aead;
    int own_core;      /* AES ECB/CTR: reference from the project's own core */
    cs_mode mode;
    int key_bytes;
} ossl_ctx;

static int ossl_setup(cs_run *r)
{
    ossl_ctx *c = r->ctx;
    if (strcmp(r->o.impl, "auto") != 0 && strcmp(r->o.impl, "evp") != 0) {
        cs_error(r, "--impl: '%s' is not an impl of aes-openssl (allowed: evp, auto)", r->o.impl);
        return CS_EXIT_USAGE;
    }
    r->impl_name = "evp";
    c->aead = (EVP_CIPHER_get_flags((const EVP_CIPHER *)r->evp) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    int bits = 0;
    char m[8] = "";
    if (sscanf(r->cipher, "aes-%d-%7s", &bits, m) == 2 && (bits == 128 || bits == 192 || bits == 256) &&
        (!strcmp(m, "ecb") || !strcmp(m, "ctr"))) {
        c->own_core = 1;
        r->verified_by = "ttable"; /* the project's own AES core (ossl_reference) */
        c->mode = strcmp(m, "ecb") == 0 ? CS_ECB : CS_CTR;
        c->key_bytes = bits / 8;
    }
    c->ctx = EVP_CIPHER_CTX_new();
    if (!c->ctx) {
        cs_error(r, "EVP_CIPHER_CTX_new failed");
        return CS_EXIT_FAIL;
    }
    return 0;
}

static int ossl_reference(cs_run *r)
{
    ossl_ctx *c = r->ctx;
    if (!c->own_core)
        return cs_reference_evp(r);
    cs_aes_key k;
    cs_aes_expand_key(&k, r->key, c->key_bytes);
    cs_aes_job j;
    memset(&j, 0, sizeof j);
    j.impl = &cs_aes_impl_ttable;
    j.key = &k;
    j.mode = c->mode;
    j.op = r->o.op;
    j.pad = r->pad;
    memcpy(j.iv, r->iv, 16);
    r->ref = malloc(r->in_len + 64);
    const char *err = "";
    if (!r->ref || cs_aes_crypt(&j, r->in, r->in_len, r->ref, &r->ref_len, &err) != 0) {
        cs_error(r, "reference (own AES core) failed: %s", r->ref ? err : "out of memory");
        return r->ref ? CS_EXIT_USAGE : CS_EXIT_FAIL;
    }
    return 0;
}

static int ossl_rep(cs_run *r, cs_timings *t)
{
    ossl_ctx *c = r->ctx;
    const int enc = r->o.op == CS_ENCRYPT;
    int len = 0;
    size_t total = 0, n = r->in_len;
    const uint8_t *in = r->in;
    const double t0 = cs_now();
    if (cs_evp_init(c->ctx, r->evp, r->key, r->key_len, r->iv, enc) != 1) {
        cs_error(r, "EVP_CipherInit_ex2 failed");
        return CS_EXIT_FAIL;
    }
    EVP_CIPHER_CTX_set_padding(c->ctx, r->pad);
    const double t1 = cs_now();
    while (n > 0) {
        const int chunk = n > (1u << 30) ? (1 << 30) : (int)n;
        if (EVP_CipherUpdate(c->ctx, r->out + total, &len, in, chunk) != 1) {
            cs_error(r, "EVP_CipherUpdate failed");
            return CS_EXIT_FAIL;
        }
        total += (size_t)len;
        in += chunk;
        n -= (size_t)chunk;
    }
    if (c->aead && !enc && EVP_CIPHER_CTX_ctrl(c->ctx, EVP_CTRL_AEAD_SET_TAG, 16, r->tag) != 1) {
        cs_error(r, "setting the AEAD tag failed");
        return CS_EXIT_FAIL;
    }
    if (EVP_CipherFinal_ex(c->ctx, r->out + total, &len) != 1) {
        cs_error(r, "%s", enc ? "EVP_CipherFinal_ex failed" : "bad decrypt (wrong padding or tag)");
        return CS_EXIT_FAIL;
    }
    total += (size_t)len;
    const double t2 = cs_now();
    r->out_len = total;
    t->t_keyexp = t1 - t0;
    t->t_compute = t2 - t1;
    t->t_total = t2 - t0;
    return 0;
}

static int ossl_verify(cs_run *r, size_t *bad_off)
{
    ossl_ctx *c = r->ctx;
    if (c->own_core)
        return 0; /* compared with the own core's output already */
    char err[512];
    uint8_t tag[16];
    memcpy(tag, r->tag, 16);
    uint8_t *back = malloc(r->out_len + 64);
    size_t back_len = 0;
    if (!back)
        return -1;
    const int enc = r->o.op == CS_ENCRYPT;
    int rc = cs_evp_crypt(r->evp, !enc, r->pad, r->key, r->key_len, r->iv, r->out, r->out_len, back, &back_len,
                          c->aead ? tag : NULL, err, sizeof err);
    if (rc != 0 || back_len != r->in_len) {
        *bad_off = 0;
        free(back);
        return -1;
    }
    for (size_t i = 0; i < back_len; i++) {
        if (back[i] != r->in[i]) {
            *bad_off = i;
            free(back);
            return -1;
        }
    }
    free(back);
    return 0;
}

static void ossl_finish(cs_run *r)
{
    ossl_ctx *c = r->ctx;
    EVP_CIPHER_CTX_free(c->ctx);
    c->ctx = NULL;
}

static const cs_backend openssl_backend = {
    .name = "openssl",
    .prog = "aes-openssl",
    .flags = CS_BE_EVP,
    .impls = "evp|auto",
    .impls_auto = "evp",
    .setup = ossl_setup,
    .reference = ossl_reference,
    .rep = ossl_rep,
    .verify = ossl_verify,
    .finish = ossl_finish,
};

int main(int argc, char **argv)
{
    ossl_ctx c;
    memset(&c, 0, sizeof c);
    return cs_runner_main(argc, argv, &openssl_backend, &c);
}
