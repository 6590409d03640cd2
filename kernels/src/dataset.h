/* dataset.h - the data a run encrypts or decrypts (dataset.c): read from --input or
 * generated (--size, --seed), the timed operation's input and its expected output
 * (OpenSSL EVP, outside the timed region), and --gen-input. */
#ifndef CIPHERSWEEP_DATASET_H
#define CIPHERSWEEP_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"

/* Root: the data set, read from --input or generated (--size, --seed); it may be empty. */
int cs_load_data(cs_run *r, uint8_t **data, size_t *n);
/* Default reference: OpenSSL EVP on r->in (root). */
int cs_reference_evp(cs_run *r);
/* Root: read or generate the data set (at least 1 byte), then the timed input and the
 * expected output. */
int cs_prepare_data(cs_run *r);
/* --gen-input: write the generated data set and stop (root writes, all agree). */
int cs_write_generated_input(cs_run *r);

#endif
