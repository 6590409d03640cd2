/*
 * runner.h - the driver every kernel binary shares (aes-seq, aes-omp, aes-mpi,
 * aes-openssl, aes-cuda).  It parses the command-line contract, loads or generates the
 * input, prepares the timed operation's input and the expected output (OpenSSL EVP,
 * outside the timed region), runs the warm-ups and timed repetitions through the
 * backend's callbacks, measures CPU time (getrusage) and energy around each one,
 * verifies every repetition's output, and prints one JSON record per timed repetition
 * only once every repetition has verified.
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

#include "aes.h"
#include "energy.h"

enum { CS_EXIT_OK = 0, CS_EXIT_FAIL = 1, CS_EXIT_USAGE = 2 };

/* What a backend accepts (cs_backend.flags). */
#define CS_BE_AES_IMPLS 0x1u /* --impl ref|ttable|aesni|vaes|auto: runner resolves r->aes */
#define CS_BE_THREADS 0x2u   /* --threads T > 1 */
#define CS_BE_GPU 0x4u       /* --block-threads N, --device N */
#define CS_BE_EVP 0x8u       /* --cipher: any EVP name (the backend's setup checks it) */

/* The parsed command line (cs_parse_options). Strings point into argv. */
typedef struct {
    const char *impl;         /* default "auto" */
    cs_mode mode;             /* default CS_CTR */
    int mode_given;
    cs_op op;                 /* default CS_ENCRYPT */
    const char *cipher;       /* NULL: aes-128-<mode> */
    uint64_t size;            /* default 1 MiB */
    int size_given;
    const char *input;        /* --input FILE */
    uint64_t seed;            /* default 1 */
    const char *gen_input;    /* --gen-input FILE */
    uint8_t key[64];
    int key_len;              /* 0: not given (default key) */
    uint8_t iv[64];
    int iv_len;               /* 0: not given (default IV) */
    int nopad;
    int ciphertext_input;
    const char *output;       /* --output FILE */
    const char *json;         /* --json FILE (default stdout) */
    int reps;                 /* default 3 */
    int warmup;               /* default 1 */
    int threads;              /* default 1 */
    int threads_given;
    int block_threads;        /* default 256 */
    int block_threads_given;
    int device;               /* default 0 */
    int device_given;
    const char *energy;       /* auto|rapl|none */
    int inject_fault;         /* --inject-fault corrupt */
} cs_opts;

/* Timings of one repetition, seconds; NAN = does not apply (written as null). */
typedef struct {
    double t_total, t_compute, t_keyexp, t_h2d, t_d2h, t_bcast, t_scatter, t_gather;
} cs_timings;

typedef struct cs_backend cs_backend;

/* State shared by the runner and the backend. */
typedef struct {
    const cs_backend *be;
    void *ctx;                /* the backend's own state (cs_runner_main's ctx) */
    const char *prog;         /* "aes-seq" ... */
    cs_opts o;

    /* what runs: the runner fills these from the options; setup may change them */
    const cs_aes_impl *aes;   /* CS_BE_AES_IMPLS: the resolved block impl */
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

/* ---- building blocks (cli.c, input.c, json.c, evp.c, prov.c) ---- */

/* Parse argv; prints one line and returns CS_EXIT_USAGE on bad usage, -1 after
 * --help/--version (exit 0), 0 otherwise. quiet: print nothing (MPI ranks != 0). */
int cs_parse_options(int argc, char **argv, const cs_backend *be, cs_opts *o, int quiet);
/* "12MiB" -> bytes; returns 0 or -1. */
int cs_parse_size(const char *s, uint64_t *out);
/* Hex string -> bytes (at most max); returns the length or -1. */
int cs_parse_hex(const char *s, uint8_t *out, int max);

/* The one input generator: splitmix64 stream from seed, 8 bytes little-endian each. */
void cs_generate(uint8_t *buf, size_t n, uint64_t seed);
/* Whole file into a fresh malloc'ed buffer; returns 0 or -1 (errno set). */
int cs_read_file(const char *path, uint8_t **buf, size_t *n);
int cs_write_file(const char *path, const uint8_t *buf, size_t n);

/* Growable text buffer and a flat JSON object writer. */
typedef struct {
    char *p;
    size_t len, cap;
    int first;                /* no field written yet in the current object */
} cs_buf;
void cs_buf_free(cs_buf *b);
void cs_buf_printf(cs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cs_json_begin(cs_buf *b);
void cs_json_end(cs_buf *b); /* "}\n" */
void cs_json_str(cs_buf *b, const char *key, const char *val); /* NULL -> null */
void cs_json_int(cs_buf *b, const char *key, long long val);
void cs_json_num(cs_buf *b, const char *key, double val);     /* NAN/inf -> null */
void cs_json_bool(cs_buf *b, const char *key, int val);
void cs_json_null(cs_buf *b, const char *key);
void cs_json_escape(cs_buf *b, const char *s);

/* OpenSSL EVP (evp.c).  cs_evp_fetch: 0, or CS_EXIT_USAGE with a message in err
 * (unknown cipher, legacy provider missing).  The returned cipher is EVP_CIPHER *. */
int cs_evp_fetch(const char *name, void **cipher, char *err, size_t errlen);
void cs_evp_free(void *cipher);
/* One-shot encryption/decryption; tag: AEAD tag (16 bytes; written on encryption,
 * checked on decryption; may be NULL for other ciphers).  out needs n + 32 bytes.
 * Returns 0, or -1 with a message in err. */
int cs_evp_crypt(void *cipher, int enc, int pad, const uint8_t *key, const uint8_t *iv,
                 const uint8_t *in, size_t n, uint8_t *out, size_t *out_n, uint8_t *tag,
                 char *err, size_t errlen);
const char *cs_openssl_version(void);

/* Provenance and CPU time (prov.c). */
void cs_cpu_times(double *user, double *sys); /* getrusage(RUSAGE_SELF) */
void cs_hostname(char *buf, size_t n);
void cs_cpu_model(char *buf, size_t n);       /* empty when unknown */
int cs_cpu_count(void);
const char *cs_compiler(void);
const char *cs_cflags(void);
void cs_timestamp(char *buf, size_t n);       /* ISO 8601 UTC, microseconds */

#endif
