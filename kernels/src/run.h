/*
 * run.h - the state a kernel run shares between the runner's modules and the backend
 * (cs_run), the backend's callbacks (cs_backend), and the few functions on that state
 * every module uses (run.c).  It includes only the helpers below it (cipher cores,
 * options, energy, JSON buffer, timings), never the runner's own header.
 */
#ifndef CIPHERSWEEP_RUN_H
#define CIPHERSWEEP_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "aead.h"
#include "aes.h"
#include "cli.h"
#include "energy.h"
#include "fingerprint.h"
#include "json.h"
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
    const char *impls;        /* --help: --impl choices when not the AES core's, may be NULL */
    const char *impls_auto;   /* --help: what --impl auto picks */
    const char *help;         /* --help: the program's own lines, may be NULL */
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

/* One line "prog: message" on stderr (root only). */
void cs_error(const cs_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The AES job described by the run (impl, mode, op, padding, IV) for key k. */
cs_aes_job cs_run_job(const cs_run *r, const cs_aes_key *k);
/* The run's defaults for a backend (one rank, root, CLOCK_MONOTONIC, verified by openssl). */
void cs_run_init(cs_run *r, const cs_backend *be, void *ctx);
/* Buffers of the timed region: the backend's allocator, or malloc (n = 0 gets 1 byte). */
void *cs_run_alloc(cs_run *r, size_t n);
void cs_run_free(cs_run *r, void *p);
/* The worst status of all ranks (the backend's agree; one process: status itself). */
int cs_run_agree(cs_run *r, int status);

#endif
