/* fingerprint.c - the record's "fingerprint": SHA-256 (FIPS 180-4, through OpenSSL EVP)
 * of the running binary (/proc/self/exe) and of the input bytes, the build key and the
 * compile flags the binary was built with, the shape the kernel observed and, where
 * OpenSSL does the work, the version of the libcrypto loaded ("libraries"). */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "fingerprint.h"
#include "prov.h"

#ifndef CS_BUILD_KEY
#define CS_BUILD_KEY ""
#endif

const char *cs_build_key(void)
{
    return CS_BUILD_KEY;
}

static void hex(const unsigned char *md, unsigned len, char out[65])
{
    for (unsigned i = 0; i < len && i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* Digest of a buffer; out stays empty on failure. */
static void sha256_buf(const uint8_t *data, size_t n, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    out[0] = '\0';
    if (EVP_Digest(data, n, md, &len, EVP_sha256(), NULL) == 1)
        hex(md, len, out);
}

/* Digest of a file read in chunks; out stays empty on failure. */
static void sha256_file(const char *path, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE], chunk[1 << 16];
    unsigned len = 0;
    size_t got;
    int ok = 0;
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (f && ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1) {
        ok = 1;
        while (ok && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
            ok = EVP_DigestUpdate(ctx, chunk, got) == 1;
        ok = ok && !ferror(f) && EVP_DigestFinal_ex(ctx, md, &len) == 1;
    }
    if (ok)
        hex(md, len, out);
    EVP_MD_CTX_free(ctx);
    if (f)
        fclose(f);
}

void cs_fingerprint_take(cs_fingerprint *fp, const uint8_t *data, size_t n)
{
    sha256_buf(data, n, fp->input_sha256);
    sha256_file("/proc/self/exe", fp->binary_sha256);
}

static void str_or_null(cs_buf *b, const char *key, const char *v)
{
    cs_json_str(b, key, v && v[0] ? v : NULL);
}

void cs_fingerprint_json(cs_buf *b, const cs_fingerprint *fp, const cs_fp_shape *s)
{
    cs_buf_printf(b, ", \"fingerprint\": ");
    cs_json_begin(b);
    str_or_null(b, "binary_sha256", fp->binary_sha256);
    str_or_null(b, "build_key", cs_build_key());
    str_or_null(b, "cflags", cs_cflags());
    str_or_null(b, "input_sha256", fp->input_sha256);
    cs_json_int(b, "ranks", s->ranks);
    cs_json_int(b, "threads", s->threads);
    cs_json_int(b, "gpus", s->gpus);
    str_or_null(b, "cipher", s->cipher);
    str_or_null(b, "impl", s->impl);
    str_or_null(b, "mode", s->mode);
    str_or_null(b, "op", s->op);
    if (s->openssl) {
        cs_buf_printf(b, ", \"libraries\": ");
        cs_json_begin(b);
        cs_json_str(b, "OpenSSL", s->openssl);
        cs_buf_printf(b, "}");
        b->first = 0;
    }
    cs_buf_printf(b, "}");
    b->first = 0;
}
