/* verify.h - the check of a repetition's output (verify.c). */
#ifndef CIPHERSWEEP_VERIFY_H
#define CIPHERSWEEP_VERIFY_H

#include <stddef.h>

#include "run.h"

/* Root: r->out against r->ref in full, then the AEAD round trip or the backend's own
 * check.  Returns 0, or -1 with *bad_off = the first wrong byte offset. */
int cs_verify_output(cs_run *r, size_t *bad_off);

#endif
