/* cli.h - the command-line contract every kernel binary shares (cli.c, getopt_long). */
#ifndef CIPHERSWEEP_CLI_H
#define CIPHERSWEEP_CLI_H

#include <stdint.h>

#include "aes.h"
#include "exit_status.h"

/* --threads: the most OpenMP threads a kernel accepts. */
#define CS_MAX_THREADS 4096

/* What a program accepts beyond the common options (cs_prog_info.flags). */
#define CS_BE_AES_IMPLS 0x1u /* --impl ref|ttable|aesni|vaes|auto: runner resolves r->aes */
#define CS_BE_THREADS 0x2u   /* --threads T > 1 */
#define CS_BE_GPU 0x4u       /* --block-threads N, --device N, --streams N, --chunk SIZE */
#define CS_BE_EVP 0x8u       /* --cipher: any EVP name (the backend's setup checks it) */
#define CS_BE_AEAD 0x10u     /* --cipher ascon-aead128|aes-128-gcm: the project's AEADs */

/* The program being parsed for: its name in messages, --version's extra line, flags. */
typedef struct {
    const char *prog;         /* aes-seq ... */
    const char *version;      /* may be NULL */
    unsigned flags;           /* CS_BE_* */
    const char *impls;        /* --impl choices when not the AES core's (e.g. "evp|auto") */
    const char *impls_auto;   /* what --impl auto picks (with impls) */
    const char *help;         /* the program's own lines of --help, may be NULL */
} cs_prog_info;

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
    int key_bits;             /* --key-bits: 0 = the cipher's default length */
    uint8_t iv[64];
    int iv_len;               /* 0: not given (default IV) */
    const char *ad_hex;       /* --ad HEX: AEAD associated data (NULL: none) */
    int nopad;
    int ciphertext_input;
    const char *output;       /* --output FILE */
    const char *json;         /* --json FILE (default stdout) */
    int reps;                 /* default 3; with --target-ci the fewest */
    double target_ci;         /* --target-ci: relative CI half-width; 0 = fixed reps */
    int batch;                /* --batch K: one record per K timed repetitions (default 1) */
    int max_reps;             /* --max-reps (default 1000), with --target-ci */
    double max_seconds;       /* --max-seconds (default 10), with --target-ci */
    int calib_given;          /* --max-reps or --max-seconds given */
    int warmup;               /* default 1 */
    int threads;              /* default 1 */
    int threads_given;
    int block_threads;        /* default 256 */
    int block_threads_given;
    int device;               /* default 0 */
    int device_given;
    int streams;              /* aes-cuda: default 1 (copies and kernel in sequence) */
    uint64_t chunk;           /* aes-cuda: bytes per chunk; 0 = by size (cs_chunk_default) */
    const char *energy;       /* auto|rapl|none */
    int inject_fault;         /* --inject-fault corrupt */
} cs_opts;

/* Parse argv; prints one line and returns CS_EXIT_USAGE on bad usage, -1 after
 * --help/--version (exit 0), 0 otherwise. quiet: print nothing (MPI ranks != 0). */
int cs_parse_options(int argc, char **argv, const cs_prog_info *prog, cs_opts *o, int quiet);
/* "12MiB" -> bytes; returns 0 or -1. */
int cs_parse_size(const char *s, uint64_t *out);
/* Hex string -> bytes (at most max); returns the length or -1. */
int cs_parse_hex(const char *s, uint8_t *out, int max);

#endif
