/* aead_run.c - the runner's AEAD path (see aead_run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aead.h"
#include "aead_run.h"
#include "dataset.h"
#include "evp.h"
#include "prov.h"

int cs_aead_run_cipher(const char *cipher) { return cs_aead_cipher_known(cipher); }

/* "ascon-ref, ascon-opt64, ascon-lowsize, auto" for the error messages. */
static void impl_list(const char *cipher, char *buf, size_t n)
{
    const cs_aead_impl *const *t = cs_aead_impls();
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; t[i]; i++)
        if (strcmp(t[i]->cipher, cipher) == 0)
            len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s, ", t[i]->name);
    snprintf(buf + (len < n ? len : n - 1), len < n ? n - len : 1, "auto");
}

static int resolve_impl(cs_run *r)
{
    char allowed[160];
    int missing = 0;
    const cs_aead_impl *im = cs_aead_impl_find(r->cipher, r->o.impl, &missing);
    impl_list(r->cipher, allowed, sizeof allowed);
    if (!im && strcmp(r->o.impl, "auto") == 0) {
        cs_error(r, "--impl auto: every impl of %s is switched off (CIPHERSWEEP_DISABLE_IMPLS)",
                 r->cipher);
        return CS_EXIT_USAGE;
    }
    if (!im) {
        cs_error(r, "--impl: '%s' is not an impl of %s (allowed: %s)", r->o.impl, r->cipher, allowed);
        return CS_EXIT_USAGE;
    }
    if (missing) {
        if (missing == 2)
            cs_error(r, "--impl %s: switched off by CIPHERSWEEP_DISABLE_IMPLS", im->name);
        else
            cs_error(r, "--impl %s: not available on this CPU (it needs %s)", im->name, im->needs);
        return CS_EXIT_USAGE;
    }
    r->aead = im;
    r->impl_name = im->name;
    const cs_aead_impl *partner = cs_aead_crosscheck(im);
    r->verified_by = partner ? partner->name : "openssl";
    return 0;
}

/* --key (16 bytes), --iv (the nonce: 16 bytes Ascon, 12 bytes GCM), --ad. */
static int resolve_inputs(cs_run *r)
{
    const cs_opts *o = &r->o;
    r->key_len = r->key_bytes = CS_AEAD_KEY;
    r->iv_len = r->aead->nonce_len;
    if (o->key_len && o->key_len != CS_AEAD_KEY) {
        cs_error(r, "--key: %s needs a 16-byte key (32 hex digits), got %d bytes", r->cipher, o->key_len);
        return CS_EXIT_USAGE;
    }
    if (o->iv_len && o->iv_len != r->iv_len) {
        cs_error(r, "--iv: %s needs a %d-byte nonce (%d hex digits), got %d bytes", r->cipher,
                 r->iv_len, 2 * r->iv_len, o->iv_len);
        return CS_EXIT_USAGE;
    }
    for (int i = 0; i < 16; i++) { /* defaults as for AES: 000102..., f0f1f2... */
        r->key[i] = o->key_len ? o->key[i] : (uint8_t)i;
        r->iv[i] = o->iv_len ? o->iv[i] : (uint8_t)(0xf0 + i);
    }
    const size_t hex_len = o->ad_hex ? strlen(o->ad_hex) : 0;
    r->ad_len = hex_len / 2;
    r->ad = malloc(r->ad_len + 1);
    if (!r->ad) {
        cs_error(r, "--ad: out of memory");
        return CS_EXIT_FAIL;
    }
    if (hex_len && cs_parse_hex(o->ad_hex, r->ad, (int)r->ad_len) != (int)r->ad_len) {
        cs_error(r, "--ad: '%s' is not an even number of hex digits", o->ad_hex);
        return CS_EXIT_USAGE;
    }
    return 0;
}

int cs_aead_resolve(cs_run *r, void **evp)
{
    if (!(r->be->flags & CS_BE_AEAD)) {
        cs_error(r, "--cipher %s: %s does not run AEADs (the tag chains every block, so a "
                    "message cannot be split across threads, ranks or GPU blocks); use aes-seq",
                 r->cipher, r->prog);
        return CS_EXIT_USAGE;
    }
    if (r->o.mode_given || r->o.nopad) {
        cs_error(r, "%s: does not apply to %s (an AEAD has its own mode and no padding)",
                 r->o.mode_given ? "--mode" : "--nopad", r->cipher);
        return CS_EXIT_USAGE;
    }
    int rc = resolve_impl(r);
    if (rc == 0)
        rc = resolve_inputs(r);
    if (rc)
        return rc;
    const int gcm = strcmp(r->cipher, "aes-128-gcm") == 0;
    snprintf(r->mode_name, sizeof r->mode_name, "%s", gcm ? "gcm" : "aead");
    r->pad = 0;
    if (gcm) { /* the reference: OpenSSL EVP aes-128-gcm */
        char err[512];
        if ((rc = cs_evp_fetch("aes-128-gcm", evp, err, sizeof err)) != 0)
            cs_error(r, "%s", err);
    }
    return rc;
}

/* The independent reference: seal (enc) or open n bytes.  0, -1 error, -2 tag mismatch. */
static int reference(cs_run *r, int enc, const uint8_t *in, size_t n, uint8_t *out)
{
    const cs_aead_impl *partner = cs_aead_crosscheck(r->aead);
    if (!partner) {
        char err[512];
        const int rc = cs_evp_aead(r->evp, enc, r->key, r->iv, r->ad, r->ad_len, in, n, out, err,
                                   sizeof err);
        if (rc == -1)
            cs_error(r, "OpenSSL reference failed: %s", err);
        return rc;
    }
    cs_aead_key k;
    partner->setup(&k, r->key);
    if (enc) {
        partner->encrypt(&k, r->iv, r->ad, r->ad_len, in, n, out);
        return 0;
    }
    return partner->decrypt(&k, r->iv, r->ad, r->ad_len, in, n, out) ? -2 : 0;
}

/* Decryption of --ciphertext-input: the reference opens it first (tag checked). */
static int prepare_ciphertext(cs_run *r, uint8_t *data, size_t n)
{
    if (n < CS_AEAD_TAG) {
        free(data);
        cs_error(r, "--input: %zu bytes cannot be %s ciphertext || tag (at least the 16-byte "
                    "tag; an empty message has the tag alone)", n, r->cipher);
        return CS_EXIT_USAGE;
    }
    r->plain_len = n - CS_AEAD_TAG; /* record "bytes": the plaintext length */
    r->in = data;
    r->in_len = n;
    r->ref_len = n - CS_AEAD_TAG;
    r->ref = malloc(r->ref_len + 1);
    if (!r->ref) {
        cs_error(r, "out of memory");
        return CS_EXIT_FAIL;
    }
    const int rc = reference(r, 0, data, n, r->ref);
    if (rc == -2)
        cs_error(r, "tag mismatch: the input is not %s ciphertext || tag for this key, nonce and AD",
                 r->cipher);
    return rc ? CS_EXIT_FAIL : 0;
}

/* GCM takes at most 2^39 - 256 bits of plaintext (SP 800-38D 5.2.1.1). */
static int too_long(cs_run *r, uint64_t n)
{
    if (!r->evp || n <= (1ull << 36) - 32 + CS_AEAD_TAG)
        return 0;
    cs_error(r, "%s: aes-128-gcm takes at most 2^36 - 32 bytes of plaintext (SP 800-38D 5.2.1.1)",
             r->o.input ? "--input" : "--size");
    return 1;
}

int cs_aead_prepare_data(cs_run *r)
{
    uint8_t *data = NULL, *sealed;
    size_t n = 0;
    if (!r->o.input && too_long(r, r->o.size))
        return CS_EXIT_USAGE;
    int rc = cs_load_data(r, &data, &n);
    if (rc)
        return rc;
    r->plain_len = n;
    if (too_long(r, n)) {
        free(data);
        return CS_EXIT_USAGE;
    }
    if (r->o.op == CS_DECRYPT && r->o.ciphertext_input) {
        rc = prepare_ciphertext(r, data, n);
    } else if (!(sealed = malloc(n + CS_AEAD_TAG))) {
        free(data);
        cs_error(r, "out of memory");
        rc = CS_EXIT_FAIL;
    } else {
        rc = reference(r, 1, data, n, sealed) ? CS_EXIT_FAIL : 0;
        const int enc = r->o.op == CS_ENCRYPT;
        r->in = enc ? data : sealed; /* decrypt: the reference's ciphertext || tag */
        r->in_len = enc ? n : n + CS_AEAD_TAG;
        r->ref = enc ? sealed : data;
        r->ref_len = enc ? n + CS_AEAD_TAG : n;
    }
    if (rc)
        return rc;
    r->out_cap = r->in_len + CS_AEAD_TAG;
    r->out = malloc(r->out_cap);
    if (!r->out) {
        cs_error(r, "out of memory");
        return CS_EXIT_FAIL;
    }
    return 0;
}

int cs_aead_rep(cs_run *r, cs_timings *t)
{
    cs_aead_key k;
    const cs_aead_impl *im = r->aead;
    int rc = 0;
    const double t0 = cs_now();
    im->setup(&k, r->key);
    const double t1 = cs_now();
    if (r->o.op == CS_ENCRYPT)
        im->encrypt(&k, r->iv, r->ad, r->ad_len, r->in, r->in_len, r->out);
    else
        rc = im->decrypt(&k, r->iv, r->ad, r->ad_len, r->in, r->in_len, r->out);
    const double t2 = cs_now();
    if (rc) {
        cs_error(r, "tag mismatch");
        return CS_EXIT_FAIL;
    }
    r->out_len = r->o.op == CS_ENCRYPT ? r->in_len + CS_AEAD_TAG : r->in_len - CS_AEAD_TAG;
    t->t_keyexp = t1 - t0;
    t->t_compute = t2 - t1;
    t->t_total = t2 - t0;
    return 0;
}

int cs_aead_verify(cs_run *r, size_t *bad_off)
{
    const cs_aead_impl *im = r->aead;
    const int enc = r->o.op == CS_ENCRYPT;
    const size_t n = enc ? r->out_len - CS_AEAD_TAG : r->out_len + CS_AEAD_TAG;
    uint8_t *back = malloc(n + 1);
    cs_aead_key k;
    int rc = -1;
    *bad_off = 0;
    if (!back)
        return -1;
    im->setup(&k, r->key);
    if (enc)
        rc = im->decrypt(&k, r->iv, r->ad, r->ad_len, r->out, r->out_len, back);
    else
        im->encrypt(&k, r->iv, r->ad, r->ad_len, r->out, r->out_len, back);
    if (rc == 0 || !enc) {
        rc = (n == r->in_len && memcmp(back, r->in, n) == 0) ? 0 : -1;
        for (size_t i = 0; rc && i < n && i < r->in_len && back[i] == r->in[i]; i++)
            *bad_off = i + 1;
    }
    free(back);
    return rc;
}
