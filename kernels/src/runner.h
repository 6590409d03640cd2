/*
 * runner.h - the driver every kernel binary shares (aes-seq, aes-omp, aes-mpi,
 * aes-openssl, aes-cuda).  It parses the command-line contract, loads or generates the
 * input, prepares the timed operation's input and the expected output (OpenSSL EVP,
 * outside the timed region), runs the warm-ups and timed repetitions through the
 * backend's callbacks, measures CPU time (getrusage) and energy around each one,
 * verifies every repetition's output, and prints one JSON record per timed repetition
 * only once every repetition has verified.
 *
 * Its modules, one concern each, share the run's types through run.h (which includes
 * nothing above it): resolve.c (cipher, key, IV, impl), dataset.c (input, reference),
 * verify.c (output check), record.c (JSON records), measure.c (repetitions and
 * instruments), aead_run.c (the AEAD path).  The helpers below them each have a small
 * header of their own and include neither this header nor run.h: cli.h (options;
 * exit_status.h), input.h, json.h, evp.h, prov.h.
 *
 * A backend is a const cs_backend (callbacks) plus its own context pointer; it never
 * touches global mutable state.  Minimal backend:
 *
 *   static int my_rep(cs_run *r, cs_timings *t) { ... r->in -> r->out, r->out_len ... }
 *   static const cs_backend be = {.name = "seq", .prog = "aes-seq",
 *                                 .flags = CS_BE_AES_IMPLS, .rep = my_rep};
 *   int main(int argc, char **argv) { return cs_runner_main(argc, argv, &be, NULL); }
 */
#ifndef CIPHERSWEEP_RUNNER_H
#define CIPHERSWEEP_RUNNER_H

#include "dataset.h"
#include "evp.h"
#include "input.h"
#include "prov.h"
#include "run.h"

/* Runs a backend; returns the process exit status. */
int cs_runner_main(int argc, char **argv, const cs_backend *be, void *ctx);

#endif
