/* help.c - --help of a kernel binary (see help.h).  Each program lists exactly its own
 * impls (from the dispatch tables, or its cs_prog_info.impls) and the options it takes
 * (from its CS_BE_* flags). */
#include <stdio.h>
#include <string.h>

#include "aead.h"
#include "aes.h"
#include "help.h"

#define COL "                                      " /* the description column */

/* The impls of each project AEAD, one line each (aead_impl.c). */
static void aead_impl_lines(void)
{
    static const char *const ciphers[] = {"ascon-aead128", "aes-128-gcm"};
    const cs_aead_impl *const *t = cs_aead_impls();
    for (size_t c = 0; c < sizeof ciphers / sizeof *ciphers; c++) {
        printf(COL "%s: ", ciphers[c]);
        for (int i = 0; t[i]; i++)
            if (strcmp(t[i]->cipher, ciphers[c]) == 0)
                printf("%s|", t[i]->name);
        printf("auto\n");
    }
}

/* What runs: --impl, --mode, --op, --cipher (and --key-bits for OpenSSL). */
static void usage_what(const cs_prog_info *be)
{
    char aes[128];
    cs_aes_impl_names(aes, sizeof aes, "|");
    if (be->impls)
        printf("  --impl NAME                         implementation (default auto: %s):\n"
               COL "%s\n", be->impls_auto ? be->impls_auto : "the best available", be->impls);
    else if (be->flags & CS_BE_AES_IMPLS)
        printf("  --impl NAME                         block implementation (default auto: the best\n"
               COL "the CPU has; ref is never chosen by auto):\n" COL "%s\n", aes);
    if (be->flags & CS_BE_AEAD)
        aead_impl_lines();
    printf("  --mode ecb|ctr                      (default ctr)\n"
           "  --op encrypt|decrypt                (default encrypt)\n");
    if (be->flags & CS_BE_EVP)
        printf("  --cipher NAME                       any OpenSSL EVP cipher (default aes-128-<mode>)\n"
               "  --key-bits N                        key length of a variable-length cipher\n"
               COL "(e.g. 64 for bf-cbc; default: OpenSSL's)\n");
    else
        printf("  --cipher NAME                       aes-128|192|256-ecb|ctr%s\n"
               COL "(default aes-128-<mode>)\n",
               (be->flags & CS_BE_AEAD) ? ", ascon-aead128, aes-128-gcm" : "");
}

/* The data: size or file, seed, key, IV, AD, padding. */
static void usage_data(const cs_prog_info *be)
{
    printf("  --size N[B|KB|MB|GB|KiB|MiB|GiB]    generated input (default 1MiB; KB=1000, KiB=1024)\n"
           "  --input FILE                        input from a file instead\n"
           "  --seed S                            generator seed (default 1)\n"
           "  --gen-input FILE                    write the generated input to FILE and exit\n"
           "  --key HEX                           default 000102...: the FIPS-197 C.1 key for AES-128\n"
           "  --iv HEX                            default f0f1f2...: the SP 800-38A F.5 counter\n");
    if (be->flags & CS_BE_AEAD)
        printf(COL "(AEADs: the nonce, 16 bytes Ascon, 12 bytes GCM)\n"
               "  --ad HEX                            AEAD associated data (default empty; an empty\n"
               COL "message authenticates the AD alone)\n");
    printf("  --nopad                             ECB without PKCS#7 padding (like openssl enc -nopad)\n"
           "  --ciphertext-input                  decrypt: the input is ciphertext as it is\n");
}

/* How often and where to: output, records, repetitions, calibration. */
static void usage_reps(void)
{
    printf("  --output FILE                       result bytes of the last repetition\n"
           "  --json FILE                         records (JSON Lines; default stdout)\n"
           "  --reps N                            timed repetitions (default 3)\n"
           "  --warmup W                          untimed warm-up repetitions (default 1)\n"
           "  --batch K                           one record per K timed repetitions: their\n"
           COL "per-repetition means (default 1)\n"
           "  --target-ci X                       repeat until the 95%% CI of the median t_total\n"
           COL "is within +-X (relative, e.g. 0.02); --reps is\n"
           COL "then the fewest repetitions\n"
           "  --max-reps N, --max-seconds S       ... or until N repetitions (default 1000) or S\n"
           COL "seconds of timed repetitions (default 10)\n");
}

/* Where it runs: threads, GPU, energy; the program's own notes; exit status. */
static void usage_place(const cs_prog_info *be)
{
    if (be->flags & CS_BE_THREADS)
        printf("  --threads T                         OpenMP threads (default 1)\n");
    if (be->flags & CS_BE_GPU)
        printf("  --block-threads N, --device N       threads per block (256), GPU (0)\n"
               "  --streams N, --chunk SIZE           overlap copies and kernel over N streams\n"
               COL "in chunks of SIZE (default 1 stream; size/16, 4-32MiB)\n");
    printf("  --energy auto|rapl|none             energy source (default auto)\n"
           "  --inject-fault corrupt              test hook: corrupt the output before verification\n"
           "  --help, --version\n");
    if (be->help)
        printf("%s\n", be->help);
    printf("Exit status: 0 ok, 1 runtime failure (e.g. verification), 2 bad usage.\n");
}

void cs_usage(const cs_prog_info *be)
{
    printf("usage: %s [options]\n", be->prog);
    usage_what(be);
    usage_data(be);
    usage_reps();
    usage_place(be);
}
