/* fingerprint.h - what a record was measured with (fingerprint.c): the digest of the
 * running binary and of the input bytes read, the build key and compile flags baked in
 * at build time, and the launch shape the kernel itself observed.  The workflow holds
 * the fingerprint each point must have and admits a record only when they match. */
#ifndef CIPHERSWEEP_FINGERPRINT_H
#define CIPHERSWEEP_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* SHA-256 (FIPS 180-4) as 64 lowercase hex digits; empty when it could not be taken. */
typedef struct {
    char binary_sha256[65];   /* /proc/self/exe */
    char input_sha256[65];    /* the data set as read (or generated) */
} cs_fingerprint;

/* The observed shape written beside the digests, and the version of the library doing
 * the work where a shared library does it (openssl: OpenSSL_version(), the libcrypto
 * loaded at run time, which the binary's digest does not show; NULL: none). */
typedef struct {
    int ranks, threads, gpus;
    const char *cipher, *impl, *mode, *op;
    const char *openssl;
} cs_fp_shape;

/* Take both digests (root, outside the timed region): the input bytes and the binary. */
void cs_fingerprint_take(cs_fingerprint *fp, const uint8_t *data, size_t n);
/* Append `"fingerprint": {...}` to the record being written in b (never its first field). */
void cs_fingerprint_json(cs_buf *b, const cs_fingerprint *fp, const cs_fp_shape *s);
/* The build key given at configure time (CS_BUILD_KEY), "" when built without one. */
const char *cs_build_key(void);

#endif
