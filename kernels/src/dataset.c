/* dataset.c - the data of a run (see dataset.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "dataset.h"
#include "evp.h"
#include "input.h"

int cs_reference_evp(cs_run *r)
{
    char err[512];
    r->ref = malloc(r->in_len + 64);
    if (!r->ref) {
        cs_error(r, "out of memory");
        return CS_EXIT_FAIL;
    }
    const int aead = (EVP_CIPHER_get_flags((const EVP_CIPHER *)r->evp) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    if (aead && r->o.op == CS_DECRYPT && !r->has_tag) {
        cs_error(r, "--ciphertext-input: %s is an AEAD cipher and the tag is unknown; decrypt "
                    "generated plaintext instead", r->cipher);
        return CS_EXIT_USAGE;
    }
    if (cs_evp_crypt(r->evp, r->o.op == CS_ENCRYPT, r->pad, r->key, r->key_len, r->iv, r->in, r->in_len, r->ref,
                     &r->ref_len, aead ? r->tag : NULL, err, sizeof err) != 0) {
        cs_error(r, "OpenSSL reference failed: %s", err);
        return CS_EXIT_FAIL;
    }
    if (aead && r->o.op == CS_ENCRYPT)
        r->has_tag = 1;
    return 0;
}

/* The data set may be empty (n = 0); the callers decide whether it is allowed. */
int cs_load_data(cs_run *r, uint8_t **out, size_t *out_n)
{
    const cs_opts *o = &r->o;
    uint8_t *data = NULL;
    size_t n = 0;
    if (o->input) {
        if (cs_read_file(o->input, &data, &n) != 0) {
            cs_error(r, "--input: cannot read '%s': %s", o->input, strerror(errno));
            return CS_EXIT_USAGE;
        }
    } else {
        if (o->size > (uint64_t)SIZE_MAX - 64) {
            cs_error(r, "--size: too large for this machine");
            return CS_EXIT_USAGE;
        }
        n = (size_t)o->size;
        data = malloc(n ? n : 1); /* an empty message (the AEADs) still gets a buffer */
        if (!data) {
            cs_error(r, "--size: cannot allocate %zu bytes", n);
            return CS_EXIT_FAIL;
        }
        cs_generate(data, n, o->seed);
    }
    cs_fingerprint_take(&r->fp, data, n); /* outside the timed region */
    *out = data;
    *out_n = n;
    return 0;
}

/* An empty data set for a block mode: one line naming --input or --size. */
static int refuse_empty(cs_run *r, uint8_t *data)
{
    const cs_opts *o = &r->o;
    free(data);
    if (o->input)
        cs_error(r, "--input: '%s' is empty (%s needs at least 1 byte; an empty message "
                    "applies to ascon-aead128 and aes-128-gcm on aes-seq)", o->input, r->cipher);
    else
        cs_error(r, "--size 0: %s needs at least 1 byte (an empty message applies to "
                    "ascon-aead128 and aes-128-gcm on aes-seq)", r->cipher);
    return CS_EXIT_USAGE;
}

int cs_prepare_data(cs_run *r)
{
    const cs_opts *o = &r->o;
    uint8_t *data = NULL;
    size_t n = 0;
    char err[512];
    const int loaded = cs_load_data(r, &data, &n);
    if (loaded)
        return loaded;
    if (n == 0) /* the AEADs take the empty message (aead_run.c); the block modes do not */
        return refuse_empty(r, data);
    r->plain = data;
    r->plain_len = n;
    const int block = EVP_CIPHER_get_block_size((const EVP_CIPHER *)r->evp);
    const int whole_blocks = r->pad || !strcmp(r->mode_name, "ecb") || !strcmp(r->mode_name, "cbc");
    if (whole_blocks && block > 1 && n % (size_t)block != 0 &&
        (!r->pad || (o->op == CS_DECRYPT && o->ciphertext_input))) {
        cs_error(r, "%s: %zu bytes is not a multiple of the %d-byte block (%s)",
                 o->input ? "--input" : "--size", n, block,
                 r->pad ? "ciphertext" : "--nopad / no padding");
        return CS_EXIT_USAGE;
    }

    if (o->op == CS_ENCRYPT || o->ciphertext_input) {
        r->in = cs_run_alloc(r, n);
        if (!r->in) {
            cs_error(r, "out of memory");
            return CS_EXIT_FAIL;
        }
        memcpy(r->in, data, n);
        r->in_len = n;
        free(data); /* only its length is needed from here on */
        r->plain = NULL;
        const int rc = r->be->reference ? r->be->reference(r) : cs_reference_evp(r);
        if (rc)
            return rc;
    } else {
        /* decrypt from plaintext: encrypt it with OpenSSL, untimed; expect it back */
        const int aead = (EVP_CIPHER_get_flags((const EVP_CIPHER *)r->evp) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
        r->in = cs_run_alloc(r, n + 64);
        if (!r->in) {
            cs_error(r, "out of memory");
            return CS_EXIT_FAIL;
        }
        if (cs_evp_crypt(r->evp, 1, r->pad, r->key, r->key_len, r->iv, data, n, r->in, &r->in_len,
                         aead ? r->tag : NULL, err, sizeof err) != 0) {
            cs_error(r, "OpenSSL encryption of the input failed: %s", err);
            return CS_EXIT_FAIL;
        }
        r->has_tag = aead;
        r->ref = data; /* the plaintext is what decryption must give back */
        r->ref_len = n;
        r->plain = NULL;
    }
    r->out_cap = r->in_len + 64;
    r->out = cs_run_alloc(r, r->out_cap);
    if (!r->out) {
        cs_error(r, "out of memory");
        return CS_EXIT_FAIL;
    }
    return 0;
}

int cs_write_generated_input(cs_run *r)
{
    int status = 0;
    if (r->is_root) {
        uint8_t *buf = malloc(r->o.size ? (size_t)r->o.size : 1);
        if (!buf) {
            cs_error(r, "--gen-input: cannot allocate %llu bytes", (unsigned long long)r->o.size);
            status = CS_EXIT_FAIL;
        } else {
            cs_generate(buf, (size_t)r->o.size, r->o.seed);
            if (cs_write_file(r->o.gen_input, buf, (size_t)r->o.size) != 0) {
                cs_error(r, "--gen-input: cannot write '%s': %s", r->o.gen_input, strerror(errno));
                status = CS_EXIT_FAIL;
            }
            free(buf);
        }
    }
    return cs_run_agree(r, status);
}
