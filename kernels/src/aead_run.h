/*
 * aead_run.h - the runner's path for the AEAD ciphers the project implements
 * (ascon-aead128: NIST SP 800-232; aes-128-gcm: NIST SP 800-38D) on backends that
 * declare CS_BE_AEAD (aes-seq).  A runner module: it uses run.h, dataset.h and prov.h,
 * never runner.h.
 *
 * The data set is the plaintext; encryption outputs ciphertext || 16-byte tag (the NIST
 * LWC crypto_aead_encrypt layout), decryption takes that layout and checks the tag (a
 * wrong tag: "tag mismatch", exit 1, no plaintext, no record).  The expected output is
 * computed outside the timed region by an independent implementation: OpenSSL EVP
 * aes-128-gcm for GCM, another project Ascon impl whose known-answer tests pass for
 * Ascon (ascon-ref for ascon-opt64/ascon-lowsize, ascon-opt64 for ascon-ref); every
 * repetition is also checked by the round trip through the impl under test.
 */
#ifndef CIPHERSWEEP_AEAD_RUN_H
#define CIPHERSWEEP_AEAD_RUN_H

#include <stddef.h>

#include "run.h"

/* Is cipher one of the project's AEADs (ascon-aead128, aes-128-gcm)? */
int cs_aead_run_cipher(const char *cipher);
/* Impl, key, nonce (--iv), --ad and the reference; *evp: OpenSSL's aes-128-gcm (GCM) or
 * NULL.  Returns 0 or CS_EXIT_* after one line on stderr. */
int cs_aead_resolve(cs_run *r, void **evp);
/* Root: the timed input, the expected output and the output buffer. */
int cs_aead_prepare_data(cs_run *r);
/* One repetition: key setup (t_keyexp) and encryption/decryption (t_compute). */
int cs_aead_rep(cs_run *r, cs_timings *t);
/* The round trip through the impl under test (after the comparison with the reference). */
int cs_aead_verify(cs_run *r, size_t *bad_off);

#endif
