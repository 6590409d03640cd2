/* resolve.h - what a run runs, from its options (resolve.c): the cipher (OpenSSL EVP
 * name, mode, key and IV with their defaults, PKCS#7 padding) and the block impl. */
#ifndef CIPHERSWEEP_RESOLVE_H
#define CIPHERSWEEP_RESOLVE_H

#include "run.h"

/* --cipher, --mode, --key, --key-bits, --iv, --nopad; *evp: the EVP_CIPHER fetched.
 * Returns 0 or CS_EXIT_* after one line on stderr. */
int cs_resolve_cipher(cs_run *r, void **evp);
/* --impl for the backends that run the AES core (CS_BE_AES_IMPLS). */
int cs_resolve_impl(cs_run *r);

#endif
