/* resolve.c - the cipher, key, IV and impl of a run (see resolve.h). */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "aead_run.h"
#include "evp.h"
#include "resolve.h"

static const char *evp_mode_name(int mode)
{
    switch (mode) {
    case EVP_CIPH_ECB_MODE: return "ecb";
    case EVP_CIPH_CBC_MODE: return "cbc";
    case EVP_CIPH_CFB_MODE: return "cfb";
    case EVP_CIPH_OFB_MODE: return "ofb";
    case EVP_CIPH_CTR_MODE: return "ctr";
    case EVP_CIPH_GCM_MODE: return "gcm";
    case EVP_CIPH_CCM_MODE: return "ccm";
    case EVP_CIPH_XTS_MODE: return "xts";
    case EVP_CIPH_WRAP_MODE: return "wrap";
    case EVP_CIPH_OCB_MODE: return "ocb";
    case EVP_CIPH_SIV_MODE: return "siv";
    case EVP_CIPH_STREAM_CIPHER: return "stream";
    default: return "other";
    }
}

/* The cipher's name, lower case (default aes-128-<mode>). */
static void cipher_name(cs_run *r)
{
    const cs_opts *o = &r->o;
    if (o->cipher)
        snprintf(r->cipher, sizeof r->cipher, "%s", o->cipher);
    else
        snprintf(r->cipher, sizeof r->cipher, "aes-128-%s", o->mode == CS_ECB ? "ecb" : "ctr");
    for (char *p = r->cipher; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
}

/* Ascon and --ad belong to the AEAD path; a backend other than aes-openssl takes
 * aes-128|192|256-ecb|ctr. */
static int check_name(cs_run *r)
{
    const cs_opts *o = &r->o;
    if (strcmp(r->cipher, "ascon-aead128") == 0) {
        cs_error(r, "--cipher ascon-aead128: OpenSSL has no Ascon; the project's impls run on aes-seq");
        return CS_EXIT_USAGE;
    }
    if (o->ad_hex) {
        cs_error(r, "--ad: associated data applies to ascon-aead128 and aes-128-gcm on aes-seq only");
        return CS_EXIT_USAGE;
    }
    if (!(r->be->flags & CS_BE_EVP)) {
        int bits = 0;
        char m[8] = "";
        if (sscanf(r->cipher, "aes-%d-%7s", &bits, m) != 2 ||
            (bits != 128 && bits != 192 && bits != 256) || (strcmp(m, "ecb") && strcmp(m, "ctr"))) {
            cs_error(r, "--cipher: '%s' is not supported here (allowed: aes-128|192|256-ecb|ctr, "
                        "ascon-aead128, aes-128-gcm; aes-openssl takes any OpenSSL cipher)", o->cipher);
            return CS_EXIT_USAGE;
        }
        const cs_mode cm = strcmp(m, "ecb") == 0 ? CS_ECB : CS_CTR;
        if (o->mode_given && cm != o->mode) {
            cs_error(r, "--mode %s contradicts --cipher %s", o->mode == CS_ECB ? "ecb" : "ctr",
                     r->cipher);
            return CS_EXIT_USAGE;
        }
        r->o.mode = cm;
        r->key_bytes = bits / 8;
    }
    return 0;
}

/* The EVP cipher, its mode and its default key and IV lengths. */
static int fetch_cipher(cs_run *r, void **evp)
{
    char err[512];
    const int rc = cs_evp_fetch(r->cipher, evp, err, sizeof err);
    if (rc) {
        cs_error(r, "%s", err);
        return rc;
    }
    const EVP_CIPHER *c = (const EVP_CIPHER *)*evp;
    const int mode = EVP_CIPHER_get_mode(c);
    if (mode == EVP_CIPH_CCM_MODE || mode == EVP_CIPH_WRAP_MODE || mode == EVP_CIPH_SIV_MODE) {
        cs_error(r, "--cipher: %s (%s mode) is not supported by this benchmark", r->cipher,
                 evp_mode_name(mode));
        return CS_EXIT_USAGE;
    }
    snprintf(r->mode_name, sizeof r->mode_name, "%s", evp_mode_name(mode));
    r->key_len = EVP_CIPHER_get_key_length(c);
    r->iv_len = EVP_CIPHER_get_iv_length(c);
    return 0;
}

/* --key-bits, and the longest key and IV the run holds. */
static int key_length(cs_run *r, const EVP_CIPHER *c)
{
    const cs_opts *o = &r->o;
    if (o->key_bits) {
        if (o->key_bits != 8 * r->key_len && !cs_evp_key_length_ok(c, o->key_bits / 8)) {
            cs_error(r, "--key-bits: OpenSSL refuses a %d-bit key for %s (its default: %d)",
                     o->key_bits, r->cipher, 8 * r->key_len);
            return CS_EXIT_USAGE;
        }
        r->key_len = o->key_bits / 8;
    }
    if (r->key_len > 64 || r->iv_len > 16) {
        cs_error(r, "--cipher: %s has a key or IV longer than this benchmark supports", r->cipher);
        return CS_EXIT_USAGE;
    }
    return 0;
}

/* --key and --iv, or their defaults. */
static int key_and_iv(cs_run *r)
{
    const cs_opts *o = &r->o;
    if (o->key_len) {
        if (o->key_len != r->key_len) {
            cs_error(r, "--key: %s needs a %d-byte key (%d hex digits), got %d bytes", r->cipher,
                     r->key_len, 2 * r->key_len, o->key_len);
            return CS_EXIT_USAGE;
        }
        memcpy(r->key, o->key, (size_t)r->key_len);
    } else {
        for (int i = 0; i < r->key_len; i++) /* 000102...: FIPS-197 C.1/C.2/C.3 keys */
            r->key[i] = (uint8_t)i;
    }
    memset(r->iv, 0, sizeof r->iv);
    if (r->iv_len) {
        if (o->iv_len) {
            if (o->iv_len != r->iv_len) {
                cs_error(r, "--iv: %s needs a %d-byte IV (%d hex digits), got %d bytes", r->cipher,
                         r->iv_len, 2 * r->iv_len, o->iv_len);
                return CS_EXIT_USAGE;
            }
            memcpy(r->iv, o->iv, (size_t)r->iv_len);
        } else {
            for (int i = 0; i < r->iv_len; i++) /* f0f1...ff: SP 800-38A F.5 counter */
                r->iv[i] = (uint8_t)(0xf0 + i);
        }
    }
    return 0;
}

int cs_resolve_cipher(cs_run *r, void **evp)
{
    cipher_name(r);
    if (!(r->be->flags & CS_BE_EVP) && cs_aead_run_cipher(r->cipher))
        return cs_aead_resolve(r, evp);
    int rc = check_name(r);
    if (rc == 0)
        rc = fetch_cipher(r, evp);
    if (rc == 0)
        rc = key_length(r, (const EVP_CIPHER *)*evp);
    if (rc == 0)
        rc = key_and_iv(r);
    if (rc)
        return rc;
    const cs_opts *o = &r->o;
    const EVP_CIPHER *c = (const EVP_CIPHER *)*evp;
    const int mode = EVP_CIPHER_get_mode(c);
    r->pad = EVP_CIPHER_get_block_size(c) > 1 && (mode == EVP_CIPH_ECB_MODE || mode == EVP_CIPH_CBC_MODE)
             && !o->nopad;
    return 0;
}

/* --impl for the backends that run the AES core (CS_BE_AES_IMPLS). */
int cs_resolve_impl(cs_run *r)
{
    if (r->aead)
        return 0; /* resolved with the cipher (aead_run.c) */
    if (!(r->be->flags & CS_BE_AES_IMPLS)) {
        r->impl_name = r->o.impl;
        return 0;
    }
    int missing = 0;
    r->aes = cs_aes_impl_find(r->o.impl, &missing);
    if (!r->aes) {
        char allowed[128];
        cs_aes_impl_names(allowed, sizeof allowed, ", ");
        cs_error(r, "--impl: '%s' is not an impl (allowed: %s)", r->o.impl, allowed);
        return CS_EXIT_USAGE;
    }
    if (missing == 2) {
        cs_error(r, "--impl %s: switched off by CIPHERSWEEP_DISABLE_IMPLS", r->aes->name);
        return CS_EXIT_USAGE;
    }
    if (missing) {
        cs_error(r, "--impl %s: not available on this CPU (it needs %s)", r->aes->name, r->aes->needs);
        return CS_EXIT_USAGE;
    }
    r->impl_name = r->aes->name;
    return 0;
}
