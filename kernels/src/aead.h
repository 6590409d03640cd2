/*
 * aead.h - authenticated encryption with associated data: Ascon-AEAD128 (NIST SP 800-232)
 * and AES-128-GCM (NIST SP 800-38D), one small dispatch table like aes.h's.
 *
 * Every impl follows the NIST LWC API's crypto_aead_encrypt byte layout: the output of
 * encryption is the ciphertext (as long as the plaintext) followed by the 16-byte tag;
 * decryption takes that layout, checks the tag in constant time and writes the
 * plaintext only when the tag is right (on a wrong tag the output is zeroed).
 *
 * Implementations (one file each):
 *   ascon-ref      ascon_ref.c      SP 800-232 as written: the 5-bit S-box table applied
 *                                   column by column, round by round (Algorithms 1-4)
 *   ascon-opt64    ascon_opt64.c    64-bit words, bitsliced S-box, rounds unrolled
 *   ascon-lowsize  ascon_lowsize.c  compact: one round function in a loop, one routine
 *                                   for both directions
 *   gcm-byte       gcm_byte.c       byte-oriented AES (aes_ref.c), one block at a time,
 *                                   + the bitwise GHASH of SP 800-38D Algorithm 1
 *   gcm-ref        gcm_ref.c        T-table AES (aes_ttable.c) + 4-bit-table GHASH
 *   gcm-aesni      gcm_aesni.c      AES-NI + PCLMULQDQ, 8 blocks in flight, aggregated
 *                                   GHASH; gcm_vaes.c: VAES/VPCLMULQDQ on ymm registers
 *                                   where the CPU has them (chosen at run time)
 */
#ifndef CIPHERSWEEP_AEAD_H
#define CIPHERSWEEP_AEAD_H

#include <stddef.h>
#include <stdint.h>

#include "aes.h"

#define CS_AEAD_KEY 16
#define CS_AEAD_TAG 16
#define CS_ASCON_NONCE 16
#define CS_GCM_IV 12

/* A prepared key: what every impl precomputes once per key (the "key expansion"). */
typedef struct {
    uint8_t key[CS_AEAD_KEY];
    cs_aes_key aes;                       /* GCM: the AES-128 round keys */
    uint8_t h[16];                        /* GCM: H = E_K(0^128) (SP 800-38D 7.1 step 1) */
    uint64_t htab[16][2];                 /* gcm-ref: the multiples 0..15 of H */
    uint8_t hpow[16][16] __attribute__((aligned(32))); /* gcm-aesni: H^1..H^16, reflected */
    int wide;                             /* gcm-aesni: the VAES/VPCLMULQDQ path runs */
} cs_aead_key;

typedef struct {
    const char *name;       /* "ascon-ref", "gcm-aesni", ... */
    const char *cipher;     /* "ascon-aead128" or "aes-128-gcm" */
    int nonce_len;          /* 16 (Ascon) or 12 (GCM) */
    int (*available)(void); /* the CPU has what the impl needs */
    const char *needs;      /* what it needs, for the error message */
    void (*setup)(cs_aead_key *k, const uint8_t key[CS_AEAD_KEY]);
    /* out = ciphertext || tag (n + 16 bytes); in and out may not overlap. */
    void (*encrypt)(const cs_aead_key *k, const uint8_t *nonce, const uint8_t *ad,
                    size_t ad_len, const uint8_t *in, size_t n, uint8_t *out);
    /* in = ciphertext || tag (n >= 16); out gets n - 16 bytes.  Returns 0, or -1 when
     * the tag does not match (out is then all zeros). */
    int (*decrypt)(const cs_aead_key *k, const uint8_t *nonce, const uint8_t *ad,
                   size_t ad_len, const uint8_t *in, size_t n, uint8_t *out);
} cs_aead_impl;

extern const cs_aead_impl cs_aead_ascon_ref;
extern const cs_aead_impl cs_aead_ascon_opt64;
extern const cs_aead_impl cs_aead_ascon_lowsize;
extern const cs_aead_impl cs_aead_gcm_byte;
extern const cs_aead_impl cs_aead_gcm_ref;
extern const cs_aead_impl cs_aead_gcm_aesni;

/* NULL-terminated list of every AEAD impl (aead_impl.c). */
const cs_aead_impl *const *cs_aead_impls(void);
/* Is name an AEAD cipher this project implements ("ascon-aead128", "aes-128-gcm")? */
int cs_aead_cipher_known(const char *cipher);
/* Look an impl of cipher up by name; "auto" = the best the CPU has.  NULL when the name
 * is not an impl of that cipher; *missing = 1 when the CPU lacks what it needs, 2 when
 * CIPHERSWEEP_DISABLE_IMPLS switches it off. */
const cs_aead_impl *cs_aead_impl_find(const char *cipher, const char *name, int *missing);
/* The independent implementation a run of impl is checked against: for Ascon another
 * project impl (ascon-ref <-> ascon-opt64), NULL for GCM (checked against OpenSSL). */
const cs_aead_impl *cs_aead_crosscheck(const cs_aead_impl *impl);

/* Helpers shared by the impls (aead_impl.c). */
/* Constant-time comparison of two 16-byte tags: 0 when equal. */
int cs_aead_tag_differs(const uint8_t a[16], const uint8_t b[16]);

#endif
