/* cli.c - the command-line contract shared by every kernel binary (getopt_long). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

#ifndef CS_VERSION
#define CS_VERSION "0.0.0"
#endif

int cs_parse_size(const char *s, uint64_t *out)
{
    static const struct {
        const char *suffix;
        uint64_t mult;
    } units[] = {{"", 1},           {"B", 1},           {"KB", 1000ULL},       {"MB", 1000000ULL},
                 {"GB", 1000000000ULL}, {"KiB", 1ULL << 10}, {"MiB", 1ULL << 20}, {"GiB", 1ULL << 30}};
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    const unsigned long long n = strtoull(s, &end, 10);
    if (errno || n == 0)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            if (n > UINT64_MAX / units[i].mult)
                return -1;
            *out = n * units[i].mult;
            return 0;
        }
    }
    return -1;
}

int cs_parse_hex(const char *s, uint8_t *out, int max)
{
    const size_t len = strlen(s);
    if (len == 0 || len % 2 || len / 2 > (size_t)max)
        return -1;
    for (size_t i = 0; i < len; i += 2) {
        if (!isxdigit((unsigned char)s[i]) || !isxdigit((unsigned char)s[i + 1]))
            return -1;
        const char pair[3] = {s[i], s[i + 1], 0};
        out[i / 2] = (uint8_t)strtoul(pair, NULL, 16);
    }
    return (int)(len / 2);
}

static int parse_int(const char *s, long min, long max, int *out)
{
    if (!s || !*s)
        return -1;
    errno = 0;
    char *end;
    const long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

static void usage(const cs_backend *be)
{
    printf("usage: %s [options]\n"
           "  --impl ref|ttable|aesni|vaes|auto   block implementation (default auto: the best\n"
           "                                      the CPU has, vaes > aesni > ttable%s)\n"
           "  --mode ecb|ctr                      (default ctr)\n"
           "  --op encrypt|decrypt                (default encrypt)\n"
           "  --cipher NAME                       %s\n"
           "  --size N[B|KB|MB|GB|KiB|MiB|GiB]    generated input (default 1MiB; KB=1000, KiB=1024)\n"
           "  --input FILE                        input from a file instead\n"
           "  --seed S                            generator seed (default 1)\n"
           "  --gen-input FILE                    write the generated input to FILE and exit\n"
           "  --key HEX                           default 000102...: the FIPS-197 C.1 key for AES-128\n"
           "  --iv HEX                            default f0f1f2...: the SP 800-38A F.5 counter\n"
           "  --nopad                             ECB without PKCS#7 padding (like openssl enc -nopad)\n"
           "  --ciphertext-input                  decrypt: the input is ciphertext as it is\n"
           "  --output FILE                       result bytes of the last repetition\n"
           "  --json FILE                         records (JSON Lines; default stdout)\n"
           "  --reps N                            timed repetitions (default 3)\n"
           "  --warmup W                          untimed warm-up repetitions (default 1)\n"
           "  --threads T                         %s\n"
           "  --block-threads N, --device N       aes-cuda: threads per block (256), GPU (0)\n"
           "  --energy auto|rapl|none             energy source (default auto)\n"
           "  --inject-fault corrupt              test hook: corrupt the output before verification\n"
           "  --help, --version\n"
           "Exit status: 0 ok, 1 runtime failure (e.g. verification), 2 bad usage.\n",
           be->prog, (be->flags & CS_BE_EVP) ? "; aes-openssl: evp" : "",
           (be->flags & CS_BE_EVP) ? "any OpenSSL EVP cipher (default aes-128-<mode>)"
                                   : "aes-128|192|256-ecb|ctr (default aes-128-<mode>)",
           (be->flags & CS_BE_THREADS) ? "OpenMP threads (default 1)" : "only 1 (aes-omp runs more)");
}

static int bad(const cs_backend *be, int quiet, const char *fmt, ...)
{
    if (!quiet) {
        va_list ap;
        fprintf(stderr, "%s: ", be->prog);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    return CS_EXIT_USAGE;
}

int cs_parse_options(int argc, char **argv, const cs_backend *be, cs_opts *o, int quiet)
{
    enum { O_IMPL = 256, O_MODE, O_OP, O_CIPHER, O_SIZE, O_INPUT, O_SEED, O_GEN, O_KEY, O_IV,
           O_NOPAD, O_CTIN, O_OUTPUT, O_JSON, O_REPS, O_WARMUP, O_THREADS, O_BT, O_DEVICE,
           O_ENERGY, O_FAULT, O_HELP, O_VERSION };
    static const struct option longopts[] = {
        {"impl", required_argument, NULL, O_IMPL},
        {"mode", required_argument, NULL, O_MODE},
        {"op", required_argument, NULL, O_OP},
        {"cipher", required_argument, NULL, O_CIPHER},
        {"size", required_argument, NULL, O_SIZE},
        {"input", required_argument, NULL, O_INPUT},
        {"seed", required_argument, NULL, O_SEED},
        {"gen-input", required_argument, NULL, O_GEN},
        {"key", required_argument, NULL, O_KEY},
        {"iv", required_argument, NULL, O_IV},
        {"nopad", no_argument, NULL, O_NOPAD},
        {"ciphertext-input", no_argument, NULL, O_CTIN},
        {"output", required_argument, NULL, O_OUTPUT},
        {"json", required_argument, NULL, O_JSON},
        {"reps", required_argument, NULL, O_REPS},
        {"warmup", required_argument, NULL, O_WARMUP},
        {"threads", required_argument, NULL, O_THREADS},
        {"block-threads", required_argument, NULL, O_BT},
        {"device", required_argument, NULL, O_DEVICE},
        {"energy", required_argument, NULL, O_ENERGY},
        {"inject-fault", required_argument, NULL, O_FAULT},
        {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->impl = "auto";
    o->mode = CS_CTR;
    o->op = CS_ENCRYPT;
    o->size = 1u << 20;
    o->seed = 1;
    o->reps = 3;
    o->warmup = 1;
    o->threads = 1;
    o->block_threads = 256;
    o->energy = "auto";

    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        const char *a = optarg;
        switch (c) {
        case O_IMPL:
            if (!*a || strlen(a) > 31)
                return bad(be, quiet, "--impl: '%s' is not an impl", a);
            o->impl = a;
            break;
        case O_MODE:
            if (strcmp(a, "ecb") == 0)
                o->mode = CS_ECB;
            else if (strcmp(a, "ctr") == 0)
                o->mode = CS_CTR;
            else
                return bad(be, quiet, "--mode: '%s' is not a mode (allowed: ecb, ctr)", a);
            o->mode_given = 1;
            break;
        case O_OP:
            if (strcmp(a, "encrypt") == 0)
                o->op = CS_ENCRYPT;
            else if (strcmp(a, "decrypt") == 0)
                o->op = CS_DECRYPT;
            else
                return bad(be, quiet, "--op: '%s' is not an operation (allowed: encrypt, decrypt)", a);
            break;
        case O_CIPHER:
            if (!*a || strlen(a) > 63)
                return bad(be, quiet, "--cipher: '%s' is not a cipher name", a);
            o->cipher = a;
            break;
        case O_SIZE:
            if (cs_parse_size(a, &o->size) != 0)
                return bad(be, quiet, "--size: '%s' is not a size (allowed: N, NKB, NMB, NGB, NKiB, "
                                      "NMiB, NGiB; N >= 1)", a);
            o->size_given = 1;
            break;
        case O_INPUT:
            o->input = a;
            break;
        case O_SEED: {
            char *end;
            errno = 0;
            if (!isdigit((unsigned char)a[0]))
                return bad(be, quiet, "--seed: '%s' is not a non-negative integer", a);
            o->seed = strtoull(a, &end, 10);
            if (errno || *end)
                return bad(be, quiet, "--seed: '%s' is not a non-negative integer", a);
            break;
        }
        case O_GEN:
            o->gen_input = a;
            break;
        case O_KEY:
            o->key_len = cs_parse_hex(a, o->key, 64);
            if (o->key_len < 0)
                return bad(be, quiet, "--key: '%s' is not an even number of hex digits (at most 64 bytes)", a);
            break;
        case O_IV:
            o->iv_len = cs_parse_hex(a, o->iv, 64);
            if (o->iv_len < 0)
                return bad(be, quiet, "--iv: '%s' is not an even number of hex digits", a);
            break;
        case O_NOPAD:
            o->nopad = 1;
            break;
        case O_CTIN:
            o->ciphertext_input = 1;
            break;
        case O_OUTPUT:
            o->output = a;
            break;
        case O_JSON:
            o->json = a;
            break;
        case O_REPS:
            if (parse_int(a, 1, 1000000, &o->reps) != 0)
                return bad(be, quiet, "--reps: '%s' is not an integer >= 1", a);
            break;
        case O_WARMUP:
            if (parse_int(a, 0, 1000000, &o->warmup) != 0)
                return bad(be, quiet, "--warmup: '%s' is not an integer >= 0", a);
            break;
        case O_THREADS:
            if (parse_int(a, 1, 4096, &o->threads) != 0)
                return bad(be, quiet, "--threads: '%s' is not an integer >= 1", a);
            o->threads_given = 1;
            break;
        case O_BT:
            if (parse_int(a, 1, 1024, &o->block_threads) != 0)
                return bad(be, quiet, "--block-threads: '%s' is not an integer in 1..1024", a);
            o->block_threads_given = 1;
            break;
        case O_DEVICE:
            if (parse_int(a, 0, 1024, &o->device) != 0)
                return bad(be, quiet, "--device: '%s' is not an integer >= 0", a);
            o->device_given = 1;
            break;
        case O_ENERGY:
            if (strcmp(a, "auto") && strcmp(a, "rapl") && strcmp(a, "none"))
                return bad(be, quiet, "--energy: '%s' is not a source (allowed: auto, rapl, none)", a);
            o->energy = a;
            break;
        case O_FAULT:
            if (strcmp(a, "corrupt") != 0)
                return bad(be, quiet, "--inject-fault: '%s' is not a fault (allowed: corrupt)", a);
            o->inject_fault = 1;
            break;
        case O_HELP:
            if (!quiet)
                usage(be);
            return -1;
        case O_VERSION:
            if (!quiet) {
                printf("%s (ciphersweep) %s, %s, %s\n", be->prog, CS_VERSION, cs_compiler(),
                       cs_openssl_version());
                if (be->version)
                    printf("%s\n", be->version);
            }
            return -1;
        case ':':
            return bad(be, quiet, "option '%s' needs a value (see --help)", argv[optind - 1]);
        default:
            return bad(be, quiet, "unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return bad(be, quiet, "unexpected argument '%s' (see --help)", argv[optind]);
    if (o->input && o->size_given)
        return bad(be, quiet, "--size and --input exclude each other");
    if (o->input && o->gen_input)
        return bad(be, quiet, "--gen-input writes generated data; it does not take --input");
    if (o->ciphertext_input && o->op != CS_DECRYPT)
        return bad(be, quiet, "--ciphertext-input needs --op decrypt");
    if (o->threads != 1 && !(be->flags & CS_BE_THREADS))
        return bad(be, quiet, "--threads: %s runs one thread (use aes-omp for more)", be->prog);
    if ((o->block_threads_given || o->device_given) && !(be->flags & CS_BE_GPU))
        return bad(be, quiet, "--block-threads/--device apply to aes-cuda only");
    return 0;
}
