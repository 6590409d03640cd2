/*
 * runner.c - the driver shared by every kernel binary (see runner.h).
 *
 * Verification: every repetition's output (warm-ups included) is compared in full with
 * the expected output, outside the timed region; records are kept in memory and printed
 * only after the last repetition has verified, so a failing run prints no record.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "aead_run.h"
#include "batch.h"
#include "likwid_marker.h"
#include "median_ci.h"
#include "runner.h"

void cs_error(const cs_run *r, const char *fmt, ...)
{
    if (r && !r->is_root)
        return;
    va_list ap;
    fprintf(stderr, "%s: ", r ? r->prog : "ciphersweep");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

double cs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

cs_aes_job cs_run_job(const cs_run *r, const cs_aes_key *k)
{
    cs_aes_job j;
    memset(&j, 0, sizeof j);
    j.impl = r->aes;
    j.key = k;
    j.mode = r->o.mode;
    j.op = r->o.op;
    j.pad = r->pad;
    memcpy(j.iv, r->iv, 16);
    return j;
}

/* ---- buffers ---- */

static void *be_alloc(cs_run *r, size_t n)
{
    if (n == 0)
        n = 1;
    return r->be->alloc ? r->be->alloc(r, n) : malloc(n);
}

static void be_free(cs_run *r, void *p)
{
    if (!p)
        return;
    if (r->be->dealloc)
        r->be->dealloc(r, p);
    else
        free(p);
}

/* ---- cipher, key and IV ---- */

static const char *evp_mode_name(int mode)
{
    switch (mode) {
    case EVP_CIPH_ECB_MODE: return "ecb";
    case EVP_CIPH_CBC_MODE: return "cbc";
    case EVP_CIPH_CFB_MODE: return "cfb";
    case EVP_CIPH_OFB_MODE: return "ofb";
    case EVP_CIPH_CTR_MODE: return "ctr";
    case EVP_CIPH_GCM_MODE: return "gcm";
    case EVP_CIPH_CCM_MODE: return "ccm";
    case EVP_CIPH_XTS_MODE: return "xts";
    case EVP_CIPH_WRAP_MODE: return "wrap";
    case EVP_CIPH_OCB_MODE: return "ocb";
    case EVP_CIPH_SIV_MODE: return "siv";
    case EVP_CIPH_STREAM_CIPHER: return "stream";
    default: return "other";
    }
}

static int resolve_cipher(cs_run *r, void **evp)
{
    const cs_opts *o = &r->o;
    char err[512];
    if (o->cipher)
        snprintf(r->cipher, sizeof r->cipher, "%s", o->cipher);
    else
        snprintf(r->cipher, sizeof r->cipher, "aes-128-%s", o->mode == CS_ECB ? "ecb" : "ctr");
    for (char *p = r->cipher; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    if (!(r->be->flags & CS_BE_EVP) && cs_aead_run_cipher(r->cipher))
        return cs_aead_resolve(r, evp);
    if (strcmp(r->cipher, "ascon-aead128") == 0) {
        cs_error(r, "--cipher ascon-aead128: OpenSSL has no Ascon; the project's impls run on aes-seq");
        return CS_EXIT_USAGE;
    }
    if (o->ad_hex) {
        cs_error(r, "--ad: associated data applies to ascon-aead128 and aes-128-gcm on aes-seq only");
        return CS_EXIT_USAGE;
    }
    if (!(r->be->flags & CS_BE_EVP)) {
        int bits = 0;
        char m[8] = "";
        if (sscanf(r->cipher, "aes-%d-%7s", &bits, m) != 2 ||
            (bits != 128 && bits != 192 && bits != 256) || (strcmp(m, "ecb") && strcmp(m, "ctr"))) {
            cs_error(r, "--cipher: '%s' is not supported here (allowed: aes-128|192|256-ecb|ctr, "
                        "ascon-aead128, aes-128-gcm; aes-openssl takes any OpenSSL cipher)", o->cipher);
            return CS_EXIT_USAGE;
        }
        const cs_mode cm = strcmp(m, "ecb") == 0 ? CS_ECB : CS_CTR;
        if (o->mode_given && cm != o->mode) {
            cs_error(r, "--mode %s contradicts --cipher %s", o->mode == CS_ECB ? "ecb" : "ctr",
                     r->cipher);
            return CS_EXIT_USAGE;
        }
        r->o.mode = cm;
        r->key_bytes = bits / 8;
    }
    const int rc = cs_evp_fetch(r->cipher, evp, err, sizeof err);
    if (rc) {
        cs_error(r, "%s", err);
        return rc;
    }
    const EVP_CIPHER *c = (const EVP_CIPHER *)*evp;
    const int mode = EVP_CIPHER_get_mode(c);
    if (mode == EVP_CIPH_CCM_MODE || mode == EVP_CIPH_WRAP_MODE || mode == EVP_CIPH_SIV_MODE) {
        cs_error(r, "--cipher: %s (%s mode) is not supported by this benchmark", r->cipher,
                 evp_mode_name(mode));
        return CS_EXIT_USAGE;
    }
    snprintf(r->mode_name, sizeof r->mode_name, "%s", evp_mode_name(mode));
    r->key_len = EVP_CIPHER_get_key_length(c);
    r->iv_len = EVP_CIPHER_get_iv_length(c);
    if (o->key_bits) {
        if (o->key_bits != 8 * r->key_len && !cs_evp_key_length_ok(c, o->key_bits / 8)) {
            cs_error(r, "--key-bits: OpenSSL refuses a %d-bit key for %s (its default: %d)",
                     o->key_bits, r->cipher, 8 * r->key_len);
            return CS_EXIT_USAGE;
        }
        r->key_len = o->key_bits / 8;
    }
    if (r->key_len > 64 || r->iv_len > 16) {
        cs_error(r, "--cipher: %s has a key or IV longer than this benchmark supports", r->cipher);
        return CS_EXIT_USAGE;
    }
    if (o->key_len) {
        if (o->key_len != r->key_len) {
            cs_error(r, "--key: %s needs a %d-byte key (%d hex digits), got %d bytes", r->cipher,
                     r->key_len, 2 * r->key_len, o->key_len);
            return CS_EXIT_USAGE;
        }
        memcpy(r->key, o->key, (size_t)r->key_len);
    } else {
        for (int i = 0; i < r->key_len; i++) /* 000102...: FIPS-197 C.1/C.2/C.3 keys */
            r->key[i] = (uint8_t)i;
    }
    memset(r->iv, 0, sizeof r->iv);
    if (r->iv_len) {
        if (o->iv_len) {
            if (o->iv_len != r->iv_len) {
                cs_error(r, "--iv: %s needs a %d-byte IV (%d hex digits), got %d bytes", r->cipher,
                         r->iv_len, 2 * r->iv_len, o->iv_len);
                return CS_EXIT_USAGE;
            }
            memcpy(r->iv, o->iv, (size_t)r->iv_len);
        } else {
            for (int i = 0; i < r->iv_len; i++) /* f0f1...ff: SP 800-38A F.5 counter */
                r->iv[i] = (uint8_t)(0xf0 + i);
        }
    }
    r->pad = EVP_CIPHER_get_block_size(c) > 1 && (mode == EVP_CIPH_ECB_MODE || mode == EVP_CIPH_CBC_MODE)
             && !o->nopad;
    return 0;
}

/* ---- data ---- */

int cs_reference_evp(cs_run *r)
{
    char err[512];
    r->ref = malloc(r->in_len + 64);
    if (!r->ref) {
        cs_error(r, "out of memory");
        return CS_EXIT_FAIL;
    }
    const int aead = (EVP_CIPHER_get_flags((const EVP_CIPHER *)r->evp) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    if (aead && r->o.op == CS_DECRYPT && !r->has_tag) {
        cs_error(r, "--ciphertext-input: %s is an AEAD cipher and the tag is unknown; decrypt "
                    "generated plaintext instead", r->cipher);
        return CS_EXIT_USAGE;
    }
    if (cs_evp_crypt(r->evp, r->o.op == CS_ENCRYPT, r->pad, r->key, r->key_len, r->iv, r->in, r->in_len, r->ref,
                     &r->ref_len, aead ? r->tag : NULL, err, sizeof err) != 0) {
        cs_error(r, "OpenSSL reference failed: %s", err);
        return CS_EXIT_FAIL;
    }
    if (aead && r->o.op == CS_ENCRYPT)
        r->has_tag = 1;
    return 0;
}

int cs_load_data(cs_run *r, uint8_t **out, size_t *out_n)
{
    const cs_opts *o = &r->o;
    uint8_t *data = NULL;
    size_t n = 0;
    if (o->input) {
        if (cs_read_file(o->input, &data, &n) != 0) {
            cs_error(r, "--input: cannot read '%s': %s", o->input, strerror(errno));
            return CS_EXIT_USAGE;
        }
        if (n == 0) {
            free(data);
            cs_error(r, "--input: '%s' is empty (at least 1 byte is needed)", o->input);
            return CS_EXIT_USAGE;
        }
    } else {
        if (o->size > (uint64_t)SIZE_MAX - 64) {
            cs_error(r, "--size: too large for this machine");
            return CS_EXIT_USAGE;
        }
        n = (size_t)o->size;
        data = malloc(n);
        if (!data) {
            cs_error(r, "--size: cannot allocate %zu bytes", n);
            return CS_EXIT_FAIL;
        }
        cs_generate(data, n, o->seed);
    }
    cs_fingerprint_take(&r->fp, data, n); /* outside the timed region */
    *out = data;
    *out_n = n;
    return 0;
}

/* Root: read or generate the data set, then the timed input and the expected output. */
static int prepare_data(cs_run *r)
{
    const cs_opts *o = &r->o;
    uint8_t *data = NULL;
    size_t n = 0;
    char err[512];
    const int loaded = cs_load_data(r, &data, &n);
    if (loaded)
        return loaded;
    r->plain = data;
    r->plain_len = n;
    const int block = EVP_CIPHER_get_block_size((const EVP_CIPHER *)r->evp);
    const int whole_blocks = r->pad || !strcmp(r->mode_name, "ecb") || !strcmp(r->mode_name, "cbc");
    if (whole_blocks && block > 1 && n % (size_t)block != 0 &&
        (!r->pad || (o->op == CS_DECRYPT && o->ciphertext_input))) {
        cs_error(r, "%s: %zu bytes is not a multiple of the %d-byte block (%s)",
                 o->input ? "--input" : "--size", n, block,
                 r->pad ? "ciphertext" : "--nopad / no padding");
        return CS_EXIT_USAGE;
    }

    if (o->op == CS_ENCRYPT || o->ciphertext_input) {
        r->in = be_alloc(r, n);
        if (!r->in) {
            cs_error(r, "out of memory");
            return CS_EXIT_FAIL;
        }
        memcpy(r->in, data, n);
        r->in_len = n;
        free(data); /* only its length is needed from here on */
        r->plain = NULL;
        const int rc = r->be->reference ? r->be->reference(r) : cs_reference_evp(r);
        if (rc)
            return rc;
    } else {
        /* decrypt from plaintext: encrypt it with OpenSSL, untimed; expect it back */
        const int aead = (EVP_CIPHER_get_flags((const EVP_CIPHER *)r->evp) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
        r->in = be_alloc(r, n + 64);
        if (!r->in) {
            cs_error(r, "out of memory");
            return CS_EXIT_FAIL;
        }
        if (cs_evp_crypt(r->evp, 1, r->pad, r->key, r->key_len, r->iv, data, n, r->in, &r->in_len,
                         aead ? r->tag : NULL, err, sizeof err) != 0) {
            cs_error(r, "OpenSSL encryption of the input failed: %s", err);
            return CS_EXIT_FAIL;
        }
        r->has_tag = aead;
        r->ref = data; /* the plaintext is what decryption must give back */
        r->ref_len = n;
        r->plain = NULL;
    }
    r->out_cap = r->in_len + 64;
    r->out = be_alloc(r, r->out_cap);
    if (!r->out) {
        cs_error(r, "out of memory");
        return CS_EXIT_FAIL;
    }
    return 0;
}

/* ---- verification ---- */

static int verify(cs_run *r, size_t *bad_off)
{
    if (r->out_len != r->ref_len) {
        *bad_off = r->out_len < r->ref_len ? r->out_len : r->ref_len;
        return -1;
    }
    if (memcmp(r->out, r->ref, r->ref_len) != 0) {
        size_t i = 0;
        while (r->out[i] == r->ref[i])
            i++;
        *bad_off = i;
        return -1;
    }
    if (r->aead)
        return cs_aead_verify(r, bad_off);
    if (r->be->verify)
        return r->be->verify(r, bad_off);
    return 0;
}

/* ---- records ---- */

typedef struct {
    char host[256];
    char cpu_model[256];
    int cpu_cores;
} prov_t;

static void record(const cs_run *r, const prov_t *p, cs_buf *b, int rep, int batch,
                   const cs_timings *t, const cs_energy_reading *e, double user, double sys,
                   double wall)
{
    const cs_opts *o = &r->o;
    char ts[64];
    cs_timestamp(ts, sizeof ts);
    cs_json_begin(b);
    cs_json_int(b, "schema", 1);
    cs_json_str(b, "status", "ok");
    cs_json_str(b, "backend", r->be->name);
    cs_json_str(b, "impl", r->impl_name);
    cs_json_str(b, "cipher", r->cipher);
    cs_json_str(b, "mode", r->mode_name);
    if (r->key_len) /* the AEAD path keeps its key length to itself */
        cs_json_int(b, "key_bits", 8LL * r->key_len);
    else
        cs_json_null(b, "key_bits");
    cs_json_str(b, "op", o->op == CS_ENCRYPT ? "encrypt" : "decrypt");
    cs_json_bool(b, "padding", r->pad);
    cs_json_int(b, "bytes", (long long)r->plain_len);
    cs_json_int(b, "out_bytes", (long long)r->out_len);
    cs_json_int(b, "ranks", r->ranks);
    cs_json_int(b, "threads", r->threads);
    cs_json_int(b, "gpu", r->gpus);
    if (r->block_threads >= 0)
        cs_json_int(b, "block_threads", r->block_threads);
    else
        cs_json_null(b, "block_threads");
    cs_json_int(b, "rep", rep);
    cs_json_int(b, "batch", batch);
    cs_json_int(b, "warmup", o->warmup);
    if (o->input)
        cs_json_null(b, "seed");
    else
        cs_json_int(b, "seed", (long long)o->seed);
    cs_json_str(b, "input", o->input);
    cs_json_num(b, "t_total", t->t_total);
    cs_json_num(b, "t_compute", t->t_compute);
    cs_json_num(b, "t_keyexp", t->t_keyexp);
    cs_json_num(b, "t_h2d", t->t_h2d);
    cs_json_num(b, "t_d2h", t->t_d2h);
    cs_json_num(b, "t_bcast", t->t_bcast);
    cs_json_num(b, "t_scatter", t->t_scatter);
    cs_json_num(b, "t_gather", t->t_gather);
    cs_json_str(b, "clock", r->clock);
    cs_json_bool(b, "verified", 1);
    cs_json_str(b, "verified_by", r->verified_by);
    if (r->aead)
        cs_json_int(b, "ad_bytes", (long long)r->ad_len);
    else
        cs_json_null(b, "ad_bytes");
    cs_json_num(b, "cpu_user_s", user);
    cs_json_num(b, "cpu_sys_s", sys);
    cs_json_int(b, "cores_used", r->cores_used);
    /* the seed study's "CPU %": CPU time over the timed region's wall time (t_total, so
     * that the record alone reproduces the value) times the cores used */
    const double span = (isfinite(t->t_total) && t->t_total > 0) ? t->t_total : wall;
    cs_json_num(b, "cpu_util", span > 0 ? (user + sys) / (span * r->cores_used) : NAN);
    cs_json_num(b, "joules", e->joules);
    cs_json_num(b, "joules_pkg", e->joules_pkg);
    cs_json_num(b, "joules_core", e->joules_core);
    cs_json_num(b, "joules_dram", e->joules_dram);
    cs_json_num(b, "joules_gpu", e->joules_gpu);
    cs_json_num(b, "joules_h2d", e->joules_h2d);
    cs_json_num(b, "joules_kernel", e->joules_kernel);
    cs_json_num(b, "joules_d2h", e->joules_d2h);
    cs_json_str(b, "energy_source", e->source);
    cs_json_str(b, "energy_scope", e->scope[0] ? e->scope : NULL);
    if (e->source && e->nodes > 0)
        cs_json_int(b, "energy_nodes", e->nodes);
    else
        cs_json_null(b, "energy_nodes");
    cs_json_str(b, "energy_note", e->note[0] ? e->note : NULL);
    cs_json_str(b, "host", p->host);
    cs_json_str(b, "cpu_model", p->cpu_model[0] ? p->cpu_model : NULL);
    cs_json_int(b, "cpu_cores", p->cpu_cores);
    cs_json_str(b, "gpu_model", r->gpu_model[0] ? r->gpu_model : NULL);
    cs_json_str(b, "gpu_driver", r->gpu_driver[0] ? r->gpu_driver : NULL);
    cs_json_str(b, "compiler", cs_compiler());
    cs_json_str(b, "cflags", cs_cflags());
    cs_json_str(b, "mpi_version", r->mpi_version[0] ? r->mpi_version : NULL);
    cs_json_str(b, "openssl_version", cs_openssl_version());
    cs_json_str(b, "timestamp", ts);
    cs_json_str(b, "slurm_job_id", getenv("SLURM_JOB_ID"));
    cs_json_str(b, "slurm_nodelist", getenv("SLURM_JOB_NODELIST"));
    const cs_fp_shape shape = {r->ranks, r->threads, r->gpus, r->cipher, r->impl_name,
                               r->mode_name, o->op == CS_ENCRYPT ? "encrypt" : "decrypt"};
    cs_fingerprint_json(b, &r->fp, &shape);
    if (r->be->record_fields)
        r->be->record_fields(r, b);
    cs_json_end(b);
}

/* Fields every record gets once the repetitions are done: how many ran, why they
 * stopped, and the interval of the median t_total they reached. */
static void calib_trailer(cs_buf *b, cs_calib *c)
{
    const cs_median_ci m = cs_calib_result(c);
    cs_buf_printf(b, ", \"reps_run\": %ld, \"stop_reason\": \"%s\"", c->n,
                  cs_stop_name(c->stop) ? cs_stop_name(c->stop) : "fixed");
    if (isfinite(m.rel_hw))
        cs_buf_printf(b, ", \"ci_rel_hw\": %.6g, \"ci_level\": %.6g", m.rel_hw, m.coverage);
    else
        cs_buf_printf(b, ", \"ci_rel_hw\": null, \"ci_level\": %.6g", m.coverage);
    if (c->target > 0)
        cs_buf_printf(b, ", \"target_ci\": %.6g", c->target);
    else
        cs_buf_printf(b, ", \"target_ci\": null");
}

/* The records with the trailer added before each closing brace (one object a line). */
static int records_with_trailer(const cs_buf *in, const cs_buf *trailer, cs_buf *out)
{
    size_t start = 0;
    for (size_t i = 0; i < in->len; i++) {
        if (in->p[i] != '\n')
            continue;
        if (i == start || in->p[i - 1] != '}')
            return -1;
        cs_buf_printf(out, "%.*s%.*s}\n", (int)(i - 1 - start), in->p + start,
                      (int)trailer->len, trailer->p);
        start = i + 1;
    }
    return start == in->len ? 0 : -1;
}

static int write_records(cs_run *r, const cs_buf *b)
{
    FILE *f = stdout;
    if (r->o.json) {
        f = fopen(r->o.json, "w");
        if (!f) {
            cs_error(r, "--json: cannot write '%s': %s", r->o.json, strerror(errno));
            return CS_EXIT_FAIL;
        }
    }
    const size_t put = b->len ? fwrite(b->p, 1, b->len, f) : 0;
    const int rc = (f == stdout) ? fflush(f) : fclose(f);
    if (put != b->len || rc != 0) {
        cs_error(r, "writing the records failed");
        return CS_EXIT_FAIL;
    }
    return 0;
}

/* ---- the driver ---- */

static int agree(cs_run *r, int status)
{
    return r->be->agree ? r->be->agree(r, status) : status;
}

/* What the timed loop measures with, besides the clock. */
typedef struct {
    cs_energy energy;
    int energy_open;
    int marker_on;
    prov_t prov;
    cs_buf records;           /* held until every repetition has verified */
    cs_batch batch;           /* timed repetitions not yet in a record (--batch) */
    int nrecords;             /* records so far: the next record's "rep" */
    cs_calib calib;           /* timed repetitions so far; when to stop (root) */
    double t_total;           /* t_total of the last repetition */
} instruments;

static void run_init(cs_run *r, const cs_backend *be, void *ctx)
{
    memset(r, 0, sizeof *r);
    r->be = be;
    r->ctx = ctx;
    r->prog = be->prog;
    r->is_root = 1;
    r->energy_reader = 1;
    r->ranks = 1;
    r->block_threads = -1;
    r->clock = "CLOCK_MONOTONIC";
    r->verified_by = "openssl";
}

/* --gen-input: write the generated data set and stop (root writes, all agree). */
static int write_generated_input(cs_run *r)
{
    int status = 0;
    if (r->is_root) {
        uint8_t *buf = malloc(r->o.size ? (size_t)r->o.size : 1);
        if (!buf) {
            cs_error(r, "--gen-input: cannot allocate %llu bytes", (unsigned long long)r->o.size);
            status = CS_EXIT_FAIL;
        } else {
            cs_generate(buf, (size_t)r->o.size, r->o.seed);
            if (cs_write_file(r->o.gen_input, buf, (size_t)r->o.size) != 0) {
                cs_error(r, "--gen-input: cannot write '%s': %s", r->o.gen_input, strerror(errno));
                status = CS_EXIT_FAIL;
            }
            free(buf);
        }
    }
    return agree(r, status);
}

/* --impl for the backends that run the AES core (CS_BE_AES_IMPLS). */
static int resolve_impl(cs_run *r)
{
    if (r->aead)
        return 0; /* resolved with the cipher (aead_run.c) */
    if (!(r->be->flags & CS_BE_AES_IMPLS)) {
        r->impl_name = r->o.impl;
        return 0;
    }
    int missing = 0;
    r->aes = cs_aes_impl_find(r->o.impl, &missing);
    if (!r->aes) {
        cs_error(r, "--impl: '%s' is not an impl (allowed: ref, ttable, aesni, vaes, auto)",
                 r->o.impl);
        return CS_EXIT_USAGE;
    }
    if (missing == 2) {
        cs_error(r, "--impl %s: switched off by CIPHERSWEEP_DISABLE_IMPLS", r->aes->name);
        return CS_EXIT_USAGE;
    }
    if (missing) {
        cs_error(r, "--impl %s: not available on this CPU (it needs %s)", r->aes->name, r->aes->needs);
        return CS_EXIT_USAGE;
    }
    r->impl_name = r->aes->name;
    return 0;
}

/* Options, cipher, impl, the backend's setup and the data (every rank agrees). */
static int prepare(cs_run *r, int argc, char **argv, void **evp)
{
    const cs_backend *be = r->be;
    const cs_prog_info info = {be->prog, be->version, be->flags};
    int status = cs_parse_options(argc, argv, &info, &r->o, !r->is_root);
    if (status)
        return status;
    r->threads = r->o.threads;
    if (r->o.gen_input)
        return write_generated_input(r) ? CS_EXIT_FAIL : -1;
    if ((status = resolve_cipher(r, evp)) != 0)
        return status;
    r->evp = *evp;
    if ((status = resolve_impl(r)) != 0)
        return status;
    if (be->setup && (status = be->setup(r)) != 0)
        return status;
    if (!r->cores_used)
        r->cores_used = r->threads * r->ranks;
    status = r->is_root ? (r->aead ? cs_aead_prepare_data(r) : prepare_data(r)) : 0;
    return agree(r, status);
}

static void instruments_open(cs_run *r, instruments *m)
{
    memset(m, 0, sizeof *m);
    cs_batch_reset(&m->batch, r->o.batch);
    if (r->energy_reader) {
        cs_energy_open(&m->energy, r->o.energy);
        m->energy_open = 1;
    }
    if (getenv("LIKWID_MODE") && getenv("LIKWID_FILEPATH") && getenv("LIKWID_EVENTS") &&
        getenv("LIKWID_THREADS")) {
        CS_MARKER_INIT();
        m->marker_on = 1;
    }
    cs_hostname(m->prov.host, sizeof m->prov.host);
    cs_cpu_model(m->prov.cpu_model, sizeof m->prov.cpu_model);
    m->prov.cpu_cores = cs_cpu_count();
}

static void instruments_close(instruments *m)
{
    if (m->marker_on)
        CS_MARKER_CLOSE();
    cs_buf_free(&m->records);
    cs_calib_free(&m->calib);
}

/* Root: the record of the open batch (per-repetition means), if it has repetitions. */
static void flush_batch(cs_run *r, instruments *m)
{
    if (m->batch.n == 0)
        return;
    cs_timings t;
    cs_energy_reading e;
    double user, sys, wall;
    cs_batch_mean(&m->batch, &t, &e, &user, &sys, &wall);
    record(r, &m->prov, &m->records, m->nrecords++, m->batch.n, &t, &e, user, sys, wall);
    cs_batch_reset(&m->batch, r->o.batch);
}

/* Root: compare repetition i's output with the reference; keep its record if timed. */
static int check_rep(cs_run *r, instruments *m, int i, const cs_timings *t,
                     const cs_energy_reading *e, double user, double sys, double wall)
{
    size_t bad = 0;
    if (r->o.inject_fault && r->out_len > 0)
        r->out[r->out_len / 2] ^= 0x01;
    if (verify(r, &bad) != 0) {
        cs_error(r, "verification FAILED: first differing block %zu (byte offset %zu)%s",
                 bad / 16, bad, i < r->o.warmup ? " in a warm-up repetition" : "");
        return CS_EXIT_FAIL;
    }
    if (i >= r->o.warmup) {
        cs_batch_add(&m->batch, t, e, user, sys, wall);
        if (cs_batch_full(&m->batch))
            flush_batch(r, m);
    }
    return 0;
}

/* One repetition (warm-up or timed): run, read the instruments, verify. */
static int one_rep(cs_run *r, instruments *m, int i)
{
    cs_timings t = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    cs_energy_reading e;
    double u0, s0, u1, s1;
    r->out_len = 0;
    cs_cpu_times(&u0, &s0);
    const double w0 = cs_now();
    if (m->energy_open)
        cs_energy_begin(&m->energy);
    if (m->marker_on)
        CS_MARKER_START();
    int status = r->aead ? cs_aead_rep(r, &t) : r->be->rep(r, &t);
    if (m->marker_on)
        CS_MARKER_STOP();
    if (m->energy_open)
        cs_energy_end(&m->energy, &e);
    else
        cs_energy_reading_none(&e, "energy is read by one rank per node");
    const double wall = cs_now() - w0;
    m->t_total = t.t_total;
    cs_cpu_times(&u1, &s1);
    if ((status = agree(r, status)) != 0)
        return status;
    double user = u1 - u0, sys = s1 - s0;
    if (r->be->after_rep)
        r->be->after_rep(r, &e, &user, &sys);
    if (r->is_root)
        status = check_rep(r, m, i, &t, &e, user, sys, wall);
    return agree(r, status);
}

/* Root: the last output (--output) and the records, once everything has verified. */
static int write_results(cs_run *r, instruments *m)
{
    if (r->o.output && cs_write_file(r->o.output, r->out, r->out_len) != 0) {
        cs_error(r, "--output: cannot write '%s': %s", r->o.output, strerror(errno));
        return CS_EXIT_FAIL;
    }
    cs_buf trailer = {0}, all = {0};
    calib_trailer(&trailer, &m->calib);
    int status = records_with_trailer(&m->records, &trailer, &all);
    if (status != 0)
        cs_error(r, "internal error: a record is not one JSON object a line");
    else
        status = write_records(r, &all);
    cs_buf_free(&trailer);
    cs_buf_free(&all);
    return status ? CS_EXIT_FAIL : 0;
}

/* Timed repetitions until the calibration says stop (fixed count without --target-ci);
 * the root decides, every rank agrees. */
static int timed_reps(cs_run *r, instruments *m)
{
    const cs_opts *o = &r->o;
    const int ok = cs_calib_init(&m->calib, o->target_ci, o->reps, o->max_reps,
                                 o->max_seconds) == 0;
    if (agree(r, ok ? 0 : CS_EXIT_FAIL) != 0) {
        cs_error(r, "out of memory");
        return CS_EXIT_FAIL;
    }
    const double t0 = cs_now();
    for (long i = 0;; i++) {
        int status = one_rep(r, m, o->warmup + (int)i);
        if (status != 0)
            return status;
        int flag = 0; /* 0: go on, 1: stop, 2: out of memory; the root decides */
        if (r->is_root) {
            const int stop = cs_calib_add(&m->calib, m->t_total, cs_now() - t0);
            flag = stop < 0 ? 2 : stop;
        }
        flag = agree(r, flag);
        if (flag == 2) {
            cs_error(r, "out of memory");
            return CS_EXIT_FAIL;
        }
        if (flag)
            return 0;
    }
}

static int measure(cs_run *r)
{
    instruments m;
    instruments_open(r, &m);
    int status = 0;
    for (int i = 0; i < r->o.warmup && status == 0; i++)
        status = one_rep(r, &m, i);
    if (status == 0)
        status = timed_reps(r, &m);
    if (status == 0 && r->is_root)
        flush_batch(r, &m); /* a last, shorter batch (--target-ci stopped early) */
    if (status == 0) {
        status = r->is_root ? write_results(r, &m) : 0;
        status = agree(r, status);
    }
    instruments_close(&m);
    return status;
}

int cs_runner_main(int argc, char **argv, const cs_backend *be, void *ctx)
{
    cs_run run, *r = &run;
    run_init(r, be, ctx);
    void *evp = NULL;
    int status = be->init ? be->init(r) : 0;
    if (status)
        return status;
    status = prepare(r, argc, argv, &evp);
    if (status == 0)
        status = measure(r);
    else if (status == -1) /* --help, --version, --gen-input done */
        status = 0;
    if (be->finish)
        be->finish(r);
    free(r->plain);
    be_free(r, r->in);
    be_free(r, r->out);
    free(r->ref);
    free(r->ad);
    cs_evp_free(evp);
    return status;
}
