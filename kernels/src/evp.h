/* evp.h - OpenSSL 3 EVP helpers (evp.c): references and the aes-openssl backend. */
#ifndef CIPHERSWEEP_EVP_H
#define CIPHERSWEEP_EVP_H

#include <stddef.h>
#include <stdint.h>

/* cs_evp_fetch: 0, or CS_EXIT_USAGE with a message in err (unknown cipher, legacy
 * provider missing).  The returned cipher is EVP_CIPHER *. */
int cs_evp_fetch(const char *name, void **cipher, char *err, size_t errlen);
void cs_evp_free(void *cipher);
/* EVP_CipherInit_ex2 with a key of key_len bytes: one call for the cipher's default
 * length; a variable-length cipher (Blowfish, RC4 ...) given another length gets it set
 * between the cipher and the key (EVP_CIPHER_CTX_set_key_length).  ctx is an
 * EVP_CIPHER_CTX *.  Returns 1 on success like OpenSSL. */
int cs_evp_init(void *ctx, const void *cipher, const uint8_t *key, int key_len,
                const uint8_t *iv, int enc);
/* Whether OpenSSL accepts a key of key_len bytes for the cipher (variable-length ones). */
int cs_evp_key_length_ok(const void *cipher, int key_len);
/* One-shot encryption/decryption; tag: AEAD tag (16 bytes; written on encryption,
 * checked on decryption; may be NULL for other ciphers).  out needs n + 32 bytes.
 * Returns 0, or -1 with a message in err. */
int cs_evp_crypt(void *cipher, int enc, int pad, const uint8_t *key, int key_len, const uint8_t *iv,
                 const uint8_t *in, size_t n, uint8_t *out, size_t *out_n, uint8_t *tag,
                 char *err, size_t errlen);
/* AEAD with associated data in the NIST LWC layout (aes-128-gcm: 12-byte IV, 16-byte
 * tag).  enc: out = ciphertext || tag (n + 16 bytes).  Decryption: in = ciphertext ||
 * tag (n >= 16 bytes), out = plaintext.  Returns 0, -1 with a message in err, or -2
 * when the tag does not match. */
int cs_evp_aead(void *cipher, int enc, const uint8_t *key, const uint8_t *iv,
                const uint8_t *ad, size_t ad_len, const uint8_t *in, size_t n, uint8_t *out,
                char *err, size_t errlen);
const char *cs_openssl_version(void);

#endif
