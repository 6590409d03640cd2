/*
 * runner.h - the driver every kernel binary shares (aes-seq, aes-omp, aes-mpi,
 * aes-openssl, aes-cuda).  It parses the command-line contract, loads or generates the
 * input, prepares the timed operation's input and the expected output (OpenSSL EVP,
 * outside the timed region), runs the warm-ups and timed repetitions through the
 * backend's callbacks, measures CPU time (getrusage) and energy around each one,
 * verifies every repetition's output, and prints one JSON record per timed repetition
 * only once every repetition has verified.
 *
 * The helpers it uses each have a small header of their own and do not include this
 * one: cli.h (options; exit_status.h), input.h, json.h, evp.h, prov.h.
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

#include <stddef.h>
#include <stdint.h>

#include "aead.h"
#include "aes.h"
#include "cli.h"
#include "energy.h"
#include "evp.h"
#include "fingerprint.h"
#include "input.h"
#include "json.h"
#include "prov.h"
#include "timings.h"


typedef struct cs_backend cs_backend;

/* State shared by the runner and the backend. */
typedef struct {
    const cs_backend *be;
    void *ctx;                /* the backend's own state (cs_runner_main's ctx) */
    const char *prog;         /* "aes-seq" ... */
    cs_opts o;

    /* what runs: the runner fills these from the options; setup may change them */
    const cs_aes_impl *aes;   /* CS_BE_AES_IMPLS: the resolved block impl */
    const cs_aead_impl *aead; /* CS_BE_AEAD: the AEAD impl (ascon-*, gcm-*), else NULL */
    uint8_t *ad;              /* AEAD associated data (--ad) */
    size_t ad_len;
    const char *verified_by;  /* record "verified_by": what the output was checked against */
    const char *impl_name;    /* record "impl" (default: aes->name) */
    char cipher[64];          /* record "cipher", e.g. aes-128-ctr */
    char mode_name[16];       /* record "mode": ecb, ctr (aes-openssl: the EVP mode) */
    int key_bytes;            /* AES key length (16, 24, 32); key/iv below are final */
    uint8_t key[64];
    int key_len;
    uint8_t iv[16];
    int iv_len;
    int pad;                  /* PKCS#7 padding applies (record "padding") */
    int ranks, threads, gpus; /* record fields (defaults 1, o.threads, 0) */
    int block_threads;        /* record field; -1 = null */
    int cores_used;           /* for cpu_util (default threads * ranks) */
    const char *clock;        /* default "CLOCK_MONOTONIC" */
    char gpu_model[128];      /* empty = null */
    char gpu_driver[64];
    char mpi_version[256];
    void *evp;                /* the EVP_CIPHER for r->cipher (references; aes-openssl) */
    int is_root;              /* prints records and errors (MPI: rank 0) */
    int energy_reader;        /* opens/reads the energy source (MPI: node leaders) */

    /* data (on the root; other MPI ranks have NULL/0) */
    uint8_t *in;              /* input of the timed operation (be->alloc'ed) */
    size_t in_len;
    uint8_t *out;             /* output of the timed operation (be->alloc'ed) */
    size_t out_cap, out_len;
    uint8_t *plain;           /* the data set while it is prepared (freed after) */
    size_t plain_len;         /* its length: record "bytes" */
    uint8_t *ref;             /* expected output of the timed operation */
    size_t ref_len;
    uint8_t tag[16];          /* AEAD tag of the prepared ciphertext (aes-openssl) */
    int has_tag;
    cs_fingerprint fp;        /* digests of the binary and the data set (root) */
} cs_run;

struct cs_backend {
    const char *name;         /* record "backend": seq, omp, mpi, cuda, openssl */
    const char *prog;         /* binary name, used in messages: aes-seq ... */
    const char *version;      /* extra line for --version, may be NULL */
    unsigned flags;           /* CS_BE_* */
    /* Optional, before option parsing: set is_root, energy_reader, ranks (MPI). */
    int (*init)(cs_run *r);
    /* Optional, after parsing and the runner's own checks, before the input is read:
     * choose/check the impl, the cipher, the device.  Print one line with cs_error()
     * and return CS_EXIT_USAGE or CS_EXIT_FAIL, or return 0. */
    int (*setup)(cs_run *r);
    /* Optional: buffers for the timed region (e.g. pinned memory); default malloc. */
    void *(*alloc)(cs_run *r, size_t n);
    void (*dealloc)(cs_run *r, void *p);
    /* Optional: compute r->ref (r->ref_len) for the timed operation on r->in; the
     * default is OpenSSL EVP (cs_reference_evp). Root only. Returns 0 or CS_EXIT_*. */
    int (*reference)(cs_run *r);
    /* Required: one repetition, r->in/in_len -> r->out/out_len, fill the timings
     * (the runner has set them all to NAN).  Called on every rank.  Returns 0 or
     * CS_EXIT_FAIL after cs_error(). */
    int (*rep)(cs_run *r, cs_timings *t);
    /* Optional, after each repetition (outside the timed region): combine readings
     * across ranks (MPI: energy of node leaders, CPU times), add GPU energy (NVML). */
    void (*after_rep)(cs_run *r, cs_energy_reading *e, double *cpu_user, double *cpu_sys);
    /* Optional, root: verification other than/in addition to comparing r->out with
     * r->ref.  Returns 0, or -1 with *bad_off = first wrong byte offset. */
    int (*verify)(cs_run *r, size_t *bad_off);
    /* Optional: every rank gets the worst status of all ranks (MPI: MAX allreduce). */
    int (*agree)(cs_run *r, int status);
    /* Optional, root: fields of the backend's own appended to every record (e.g. aes-cuda:
     * streams, energy window, GPU clocks), with the cs_json_* writers. */
    void (*record_fields)(const cs_run *r, cs_buf *b);
    /* Optional: release the backend's resources (every rank, also after errors). */
    void (*finish)(cs_run *r);
};

/* Runs a backend; returns the process exit status. */
int cs_runner_main(int argc, char **argv, const cs_backend *be, void *ctx);

/* One line "prog: message" on stderr (root only). */
void cs_error(const cs_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* CLOCK_MONOTONIC in seconds. */
double cs_now(void);
/* The AES job described by the run (impl, mode, op, padding, IV) for key k. */
cs_aes_job cs_run_job(const cs_run *r, const cs_aes_key *k);
/* Default reference: OpenSSL EVP on r->in (root). */
int cs_reference_evp(cs_run *r);
/* Root: the data set, read from --input or generated (--size, --seed). */
int cs_load_data(cs_run *r, uint8_t **data, size_t *n);

#endif
