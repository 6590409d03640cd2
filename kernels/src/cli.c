/* cli.c - the command-line contract shared by every kernel binary (getopt_long). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "evp.h"
#include "help.h"
#include "prov.h"

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

/* Why s is not a hex string of whole bytes, at most max of them (max < 0: no limit),
 * as the end of a one-line message; NULL when it is one. */
static const char *hex_problem(const char *s, int max, char *why, size_t n)
{
    const size_t len = strlen(s);
    for (size_t i = 0; i < len; i++)
        if (!isxdigit((unsigned char)s[i])) {
            snprintf(why, n, "'%c' at position %zu is not a hex digit (allowed: 0-9, a-f, A-F)",
                     s[i], i + 1);
            return why;
        }
    if (len % 2) {
        snprintf(why, n, "%zu hex digits, an odd number (allowed: two digits per byte)", len);
        return why;
    }
    if (max >= 0 && (len == 0 || len / 2 > (size_t)max)) {
        snprintf(why, n, "%zu bytes (allowed: 1..%d bytes)", len / 2, max);
        return why;
    }
    return NULL;
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

/* A finite number in (min, max]; returns 0 or -1. */
static int parse_num(const char *s, double min, double max, double *out)
{
    if (!s || !*s)
        return -1;
    errno = 0;
    char *end;
    const double v = strtod(s, &end);
    if (errno || *end || !(v > min) || !(v <= max))
        return -1;
    *out = v;
    return 0;
}

/* Option handlers: each takes one option of its group and returns OPT_OK, OPT_BAD (with
 * a one-line message in err) or OPT_NOT_MINE (the option belongs to another group). */
enum { OPT_OK = 0, OPT_BAD = 1, OPT_NOT_MINE = 2 };

enum { O_IMPL = 256, O_MODE, O_OP, O_CIPHER, O_SIZE, O_INPUT, O_SEED, O_GEN, O_KEY, O_IV,
       O_AD, O_NOPAD, O_CTIN, O_OUTPUT, O_JSON, O_REPS, O_WARMUP, O_THREADS, O_BT, O_DEVICE,
       O_ENERGY, O_FAULT, O_HELP, O_VERSION, O_STREAMS, O_CHUNK, O_TARGET_CI, O_MAX_REPS,
       O_MAX_SECONDS, O_KEYBITS, O_BATCH };

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
    {"key-bits", required_argument, NULL, O_KEYBITS},
    {"iv", required_argument, NULL, O_IV},
    {"ad", required_argument, NULL, O_AD},
    {"nopad", no_argument, NULL, O_NOPAD},
    {"ciphertext-input", no_argument, NULL, O_CTIN},
    {"output", required_argument, NULL, O_OUTPUT},
    {"json", required_argument, NULL, O_JSON},
    {"reps", required_argument, NULL, O_REPS},
    {"warmup", required_argument, NULL, O_WARMUP},
    {"batch", required_argument, NULL, O_BATCH},
    {"target-ci", required_argument, NULL, O_TARGET_CI},
    {"max-reps", required_argument, NULL, O_MAX_REPS},
    {"max-seconds", required_argument, NULL, O_MAX_SECONDS},
    {"threads", required_argument, NULL, O_THREADS},
    {"block-threads", required_argument, NULL, O_BT},
    {"device", required_argument, NULL, O_DEVICE},
    {"streams", required_argument, NULL, O_STREAMS},
    {"chunk", required_argument, NULL, O_CHUNK},
    {"energy", required_argument, NULL, O_ENERGY},
    {"inject-fault", required_argument, NULL, O_FAULT},
    {"help", no_argument, NULL, O_HELP},
    {"version", no_argument, NULL, O_VERSION},
    {NULL, 0, NULL, 0},
};

static int fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return OPT_BAD;
}

static void set_defaults(cs_opts *o)
{
    memset(o, 0, sizeof *o);
    o->impl = "auto";
    o->mode = CS_CTR;
    o->op = CS_ENCRYPT;
    o->size = 1u << 20;
    o->seed = 1;
    o->reps = 3;
    o->warmup = 1;
    o->batch = 1;
    o->max_reps = 1000;
    o->max_seconds = 10.0;
    o->threads = 1;
    o->block_threads = 256;
    o->streams = 1;
    o->energy = "auto";
}

/* What runs: --impl, --mode, --op, --cipher. */
static int opt_what(int c, const char *a, cs_opts *o, char *err, size_t n)
{
    switch (c) {
    case O_IMPL:
        if (!*a || strlen(a) > 31)
            return fail(err, n, "--impl: '%s' is not an impl", a);
        o->impl = a;
        return OPT_OK;
    case O_MODE:
        if (strcmp(a, "ecb") == 0)
            o->mode = CS_ECB;
        else if (strcmp(a, "ctr") == 0)
            o->mode = CS_CTR;
        else
            return fail(err, n, "--mode: '%s' is not a mode (allowed: ecb, ctr)", a);
        o->mode_given = 1;
        return OPT_OK;
    case O_OP:
        if (strcmp(a, "encrypt") == 0)
            o->op = CS_ENCRYPT;
        else if (strcmp(a, "decrypt") == 0)
            o->op = CS_DECRYPT;
        else
            return fail(err, n, "--op: '%s' is not an operation (allowed: encrypt, decrypt)", a);
        return OPT_OK;
    case O_CIPHER:
        if (!*a || strlen(a) > 63)
            return fail(err, n, "--cipher: '%s' is not a cipher name", a);
        o->cipher = a;
        return OPT_OK;
    default:
        return OPT_NOT_MINE;
    }
}

static int parse_seed(const char *a, uint64_t *seed)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)a[0]))
        return -1;
    *seed = strtoull(a, &end, 10);
    return (errno || *end) ? -1 : 0;
}

/* The data: --size, --input, --seed, --gen-input, --key, --iv, --nopad,
 * --ciphertext-input, --ad. */
static int opt_data(int c, const char *a, cs_opts *o, char *err, size_t n)
{
    char why[96];
    switch (c) {
    case O_SIZE: /* 0: the empty message, for the AEADs (SP 800-232, SP 800-38D) */
        if (strcmp(a, "0") == 0)
            o->size = 0;
        else if (cs_parse_size(a, &o->size) != 0)
            return fail(err, n, "--size: '%s' is not a size (allowed: 0, N, NKB, NMB, NGB, NKiB, "
                                "NMiB, NGiB; 0 for the AEADs only)", a);
        o->size_given = 1;
        return OPT_OK;
    case O_INPUT:
        o->input = a;
        return OPT_OK;
    case O_SEED:
        if (parse_seed(a, &o->seed) != 0)
            return fail(err, n, "--seed: '%s' is not a non-negative integer", a);
        return OPT_OK;
    case O_GEN:
        o->gen_input = a;
        return OPT_OK;
    case O_KEY:
        o->key_len = cs_parse_hex(a, o->key, 64);
        if (o->key_len < 0)
            return fail(err, n, "--key: '%s': %s", a, hex_problem(a, 64, why, sizeof why));
        return OPT_OK;
    case O_KEYBITS:
        if (parse_int(a, 8, 512, &o->key_bits) != 0 || o->key_bits % 8)
            return fail(err, n, "--key-bits: '%s' is not a key length (allowed: 8..512 in steps of 8)", a);
        return OPT_OK;
    case O_IV:
        o->iv_len = cs_parse_hex(a, o->iv, 64);
        if (o->iv_len < 0)
            return fail(err, n, "--iv: '%s': %s", a, hex_problem(a, 64, why, sizeof why));
        return OPT_OK;
    case O_AD:
        if (hex_problem(a, -1, why, sizeof why))
            return fail(err, n, "--ad: '%s': %s", a, why);
        o->ad_hex = a;
        return OPT_OK;
    case O_NOPAD:
        o->nopad = 1;
        return OPT_OK;
    case O_CTIN:
        o->ciphertext_input = 1;
        return OPT_OK;
    default:
        return OPT_NOT_MINE;
    }
}

/* How often and where to: --output, --json, --reps, --warmup, --batch, --target-ci,
 * --max-reps, --max-seconds. */
static int opt_run(int c, const char *a, cs_opts *o, char *err, size_t n)
{
    switch (c) {
    case O_OUTPUT:
        o->output = a;
        return OPT_OK;
    case O_JSON:
        o->json = a;
        return OPT_OK;
    case O_REPS:
        if (parse_int(a, 1, 1000000, &o->reps) != 0)
            return fail(err, n, "--reps: '%s' is not an integer in 1..1000000", a);
        return OPT_OK;
    case O_WARMUP:
        if (parse_int(a, 0, 1000000, &o->warmup) != 0)
            return fail(err, n, "--warmup: '%s' is not an integer in 0..1000000", a);
        return OPT_OK;
    case O_BATCH:
        if (parse_int(a, 1, 1000000, &o->batch) != 0)
            return fail(err, n, "--batch: '%s' is not an integer in 1..1000000", a);
        return OPT_OK;
    case O_TARGET_CI:
        if (parse_num(a, 0.0, 1.0, &o->target_ci) != 0)
            return fail(err, n, "--target-ci: '%s' is not a number in (0, 1] (e.g. 0.02)", a);
        return OPT_OK;
    case O_MAX_REPS:
        if (parse_int(a, 1, 1000000, &o->max_reps) != 0)
            return fail(err, n, "--max-reps: '%s' is not an integer in 1..1000000", a);
        o->calib_given = 1;
        return OPT_OK;
    case O_MAX_SECONDS:
        if (parse_num(a, 0.0, 86400.0, &o->max_seconds) != 0)
            return fail(err, n, "--max-seconds: '%s' is not a number in (0, 86400]", a);
        o->calib_given = 1;
        return OPT_OK;
    default:
        return OPT_NOT_MINE;
    }
}

/* Where it runs and with what: --threads, --block-threads, --device, --streams, --chunk,
 * --energy, --inject-fault. */
static int opt_place(int c, const char *a, cs_opts *o, char *err, size_t n)
{
    switch (c) {
    case O_THREADS:
        if (parse_int(a, 1, CS_MAX_THREADS, &o->threads) != 0)
            return fail(err, n, "--threads: '%s' is not an integer in 1..%d", a, CS_MAX_THREADS);
        o->threads_given = 1;
        return OPT_OK;
    case O_BT:
        if (parse_int(a, 1, 1024, &o->block_threads) != 0)
            return fail(err, n, "--block-threads: '%s' is not an integer in 1..1024", a);
        o->block_threads_given = 1;
        return OPT_OK;
    case O_DEVICE:
        if (parse_int(a, 0, 1024, &o->device) != 0)
            return fail(err, n, "--device: '%s' is not an integer in 0..1024", a);
        o->device_given = 1;
        return OPT_OK;
    case O_STREAMS:
        if (parse_int(a, 1, 64, &o->streams) != 0)
            return fail(err, n, "--streams: '%s' is not an integer in 1..64", a);
        return OPT_OK;
    case O_CHUNK:
        if (cs_parse_size(a, &o->chunk) != 0 || o->chunk % 16)
            return fail(err, n, "--chunk: '%s' is not a size that is a multiple of 16 bytes "
                                "(e.g. 32MiB)", a);
        return OPT_OK;
    case O_ENERGY:
        if (strcmp(a, "auto") && strcmp(a, "rapl") && strcmp(a, "none"))
            return fail(err, n, "--energy: '%s' is not a source (allowed: auto, rapl, none)", a);
        o->energy = a;
        return OPT_OK;
    case O_FAULT:
        if (strcmp(a, "corrupt") != 0)
            return fail(err, n, "--inject-fault: '%s' is not a fault (allowed: corrupt)", a);
        o->inject_fault = 1;
        return OPT_OK;
    default:
        return OPT_NOT_MINE;
    }
}

/* Options that are valid alone but not together, or not for this program. */
static int check_combination(const cs_prog_info *be, const cs_opts *o, char *err, size_t n)
{
    if (o->input && o->size_given)
        return fail(err, n, "--size and --input exclude each other");
    if (o->input && o->gen_input)
        return fail(err, n, "--gen-input writes generated data; it does not take --input");
    if (o->ciphertext_input && o->op != CS_DECRYPT)
        return fail(err, n, "--ciphertext-input needs --op decrypt");
    if (o->calib_given && o->target_ci <= 0)
        return fail(err, n, "--max-reps/--max-seconds apply with --target-ci only");
    if (o->target_ci > 0 && o->max_reps < o->reps)
        return fail(err, n, "--max-reps %d is less than --reps %d (the fewest repetitions)",
                    o->max_reps, o->reps);
    if (o->threads != 1 && !(be->flags & CS_BE_THREADS))
        return fail(err, n, "--threads: %s runs one thread (use aes-omp for more)", be->prog);
    if ((o->block_threads_given || o->device_given) && !(be->flags & CS_BE_GPU))
        return fail(err, n, "--block-threads/--device apply to aes-cuda only");
    if ((o->streams != 1 || o->chunk) && !(be->flags & CS_BE_GPU))
        return fail(err, n, "--streams/--chunk apply to aes-cuda only");
    if (o->key_bits && !(be->flags & CS_BE_EVP))
        return fail(err, n, "--key-bits applies to aes-openssl only (%s takes the key length "
                            "from --cipher aes-128|192|256-...)", be->prog);
    return OPT_OK;
}

static void print_version(const cs_prog_info *be)
{
    printf("%s (ciphersweep) %s, %s, %s\n", be->prog, CS_VERSION, cs_compiler(),
           cs_openssl_version());
    if (be->version)
        printf("%s\n", be->version);
}

static int bad(const cs_prog_info *be, int quiet, const char *msg)
{
    if (!quiet)
        fprintf(stderr, "%s: %s\n", be->prog, msg);
    return CS_EXIT_USAGE;
}

int cs_parse_options(int argc, char **argv, const cs_prog_info *be, cs_opts *o, int quiet)
{
    char err[512];
    set_defaults(o);
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (c == O_HELP || c == O_VERSION) {
            if (!quiet)
                c == O_HELP ? cs_usage(be) : print_version(be);
            return -1;
        }
        if (c == ':' || c == '?') {
            snprintf(err, sizeof err, c == ':' ? "option '%s' needs a value (see --help)"
                                               : "unknown option '%s' (see --help)",
                     argv[optind - 1]);
            return bad(be, quiet, err);
        }
        int rc = opt_what(c, optarg, o, err, sizeof err);
        if (rc == OPT_NOT_MINE)
            rc = opt_data(c, optarg, o, err, sizeof err);
        if (rc == OPT_NOT_MINE)
            rc = opt_run(c, optarg, o, err, sizeof err);
        if (rc == OPT_NOT_MINE)
            rc = opt_place(c, optarg, o, err, sizeof err);
        if (rc != OPT_OK)
            return bad(be, quiet, rc == OPT_BAD ? err : "unhandled option (see --help)");
    }
    if (optind < argc) {
        snprintf(err, sizeof err, "unexpected argument '%s' (see --help)", argv[optind]);
        return bad(be, quiet, err);
    }
    return check_combination(be, o, err, sizeof err) == OPT_OK ? 0 : bad(be, quiet, err);
}
