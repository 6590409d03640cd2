/* mykernel: AES-128 in CTR mode, a user's own kernel speaking ciphersweep's contract
 * (docs/kernel-contract.md):
 *
 *   mykernel --mode ctr --op encrypt|decrypt --key HEX --iv HEX --input FILE
 *            --output FILE --reps N --warmup W [--threads T]
 *
 * It reads the input, runs W untimed and N timed repetitions, writes the last
 * repetition's output to --output and prints one JSON object per timed repetition on
 * stdout (t_total, t_compute, bytes, ranks, threads). Flags it does not know are
 * ignored. Built with MPI, each rank encrypts a contiguous slice of the counter blocks
 * and rank 0 gathers the slices and prints the records.
 *
 * AES-128: FIPS-197 (the cipher: key expansion 5.2, SubBytes 5.1.1, ShiftRows 5.1.2,
 * MixColumns 5.1.3, AddRoundKey 5.1.4). CTR: NIST SP 800-38A, 6.5 (the IV is the first
 * counter block; the counter is the whole block as a 128-bit big-endian integer,
 * incremented by one per block, as OpenSSL does; decryption is encryption).
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef MYKERNEL_MPI
#include <mpi.h>
#endif

enum { BLOCK = 16, ROUNDS = 10, KEY_WORDS = 4 * (ROUNDS + 1) };

/* FIPS-197, Figure 7: the S-box. */
static const uint8_t SBOX[256] = {
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
};

/* FIPS-197, 4.2.1: multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1. */
static uint8_t xtime(uint8_t b) { return (uint8_t)((b << 1) ^ ((b & 0x80) ? 0x1b : 0x00)); }

/* FIPS-197, 5.2: the 44 words of the AES-128 key schedule, as 176 bytes. */
static void key_expansion(const uint8_t key[BLOCK], uint8_t rk[4 * KEY_WORDS]) {
    uint8_t rcon = 0x01;
    memcpy(rk, key, BLOCK);
    for (int i = 4; i < KEY_WORDS; i++) {
        uint8_t t[4];
        memcpy(t, rk + 4 * (i - 1), 4);
        if (i % 4 == 0) { /* RotWord, SubWord, Rcon */
            uint8_t first = t[0];
            t[0] = (uint8_t)(SBOX[t[1]] ^ rcon);
            t[1] = SBOX[t[2]];
            t[2] = SBOX[t[3]];
            t[3] = SBOX[first];
            rcon = xtime(rcon);
        }
        for (int j = 0; j < 4; j++) rk[4 * i + j] = (uint8_t)(rk[4 * (i - 4) + j] ^ t[j]);
    }
}

/* FIPS-197, 5.1: the cipher on one block (state in column order, as the input). */
static void encrypt_block(const uint8_t rk[4 * KEY_WORDS], const uint8_t in[BLOCK],
                          uint8_t out[BLOCK]) {
    uint8_t s[BLOCK];
    for (int i = 0; i < BLOCK; i++) s[i] = (uint8_t)(in[i] ^ rk[i]);
    for (int round = 1; round <= ROUNDS; round++) {
        uint8_t t[BLOCK];
        for (int c = 0; c < 4; c++) /* SubBytes and ShiftRows: row r moves left by r */
            for (int r = 0; r < 4; r++) t[4 * c + r] = SBOX[s[4 * ((c + r) % 4) + r]];
        if (round < ROUNDS) { /* MixColumns (not in the last round) */
            for (int c = 0; c < 4; c++) {
                uint8_t *col = t + 4 * c;
                uint8_t a0 = col[0], a1 = col[1], a2 = col[2], a3 = col[3];
                uint8_t all = (uint8_t)(a0 ^ a1 ^ a2 ^ a3);
                col[0] ^= (uint8_t)(all ^ xtime((uint8_t)(a0 ^ a1)));
                col[1] ^= (uint8_t)(all ^ xtime((uint8_t)(a1 ^ a2)));
                col[2] ^= (uint8_t)(all ^ xtime((uint8_t)(a2 ^ a3)));
                col[3] ^= (uint8_t)(all ^ xtime((uint8_t)(a3 ^ a0)));
            }
        }
        for (int i = 0; i < BLOCK; i++) s[i] = (uint8_t)(t[i] ^ rk[16 * round + i]);
    }
    memcpy(out, s, BLOCK);
}

/* SP 800-38A, 6.5 and B.1: the counter block of block index `n` (IV + n, 128-bit). */
static void counter_block(const uint8_t iv[BLOCK], uint64_t n, uint8_t ctr[BLOCK]) {
    unsigned carry = 0;
    for (int i = BLOCK - 1; i >= 0; i--) {
        unsigned add = (i >= BLOCK - 8) ? (unsigned)((n >> (8 * (BLOCK - 1 - i))) & 0xff) : 0;
        unsigned sum = iv[i] + add + carry;
        ctr[i] = (uint8_t)sum;
        carry = sum >> 8;
    }
}

/* SP 800-38A, 6.5: CTR over bytes [first, first + len) of a message whose block 0
 * uses the counter block `iv`; `first` is a multiple of the block size. */
static void ctr_crypt(const uint8_t rk[4 * KEY_WORDS], const uint8_t iv[BLOCK],
                      uint64_t first, const uint8_t *in, uint8_t *out, size_t len) {
    uint8_t ctr[BLOCK], ks[BLOCK];
    for (size_t off = 0; off < len; off += BLOCK) {
        counter_block(iv, (first + off) / BLOCK, ctr);
        encrypt_block(rk, ctr, ks);
        size_t n = len - off < BLOCK ? len - off : BLOCK;
        for (size_t i = 0; i < n; i++) out[off + i] = (uint8_t)(in[off + i] ^ ks[i]);
    }
}

struct options {
    const char *mode, *op, *key, *iv, *input, *output;
    long reps, warmup, threads;
};

static int hex_bytes(const char *hex, uint8_t out[BLOCK]) {
    if (hex == NULL || strlen(hex) != 2 * BLOCK) return -1;
    for (int i = 0; i < BLOCK; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

/* getopt_long over the contract's flags; an unknown flag (and a value after it) is
 * ignored, as the contract asks. */
static int parse(int argc, char **argv, struct options *o) {
    static const struct option longopts[] = {
        {"mode", required_argument, NULL, 'm'},   {"op", required_argument, NULL, 'o'},
        {"key", required_argument, NULL, 'k'},    {"iv", required_argument, NULL, 'v'},
        {"input", required_argument, NULL, 'i'},  {"output", required_argument, NULL, 'O'},
        {"reps", required_argument, NULL, 'r'},   {"warmup", required_argument, NULL, 'w'},
        {"threads", required_argument, NULL, 't'}, {NULL, 0, NULL, 0},
    };
    *o = (struct options){.mode = "ctr", .op = "encrypt", .reps = 3, .warmup = 1, .threads = 1};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': o->mode = optarg; break;
        case 'o': o->op = optarg; break;
        case 'k': o->key = optarg; break;
        case 'v': o->iv = optarg; break;
        case 'i': o->input = optarg; break;
        case 'O': o->output = optarg; break;
        case 'r': o->reps = strtol(optarg, NULL, 10); break;
        case 'w': o->warmup = strtol(optarg, NULL, 10); break;
        case 't': o->threads = strtol(optarg, NULL, 10); break;
        default: break; /* not ours: ignored */
        }
    }
    if (strcmp(o->mode, "ctr") != 0) {
        fprintf(stderr, "mykernel: --mode %s: only ctr is implemented\n", o->mode);
        return -1;
    }
    if (!o->input || !o->output || o->reps < 1 || o->warmup < 0) {
        fprintf(stderr, "mykernel: --input, --output and --reps >= 1 are required\n");
        return -1;
    }
    return 0;
}

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            uint8_t *grown = realloc(buf, cap);
            if (!grown) { free(buf); fclose(f); return NULL; }
            buf = grown;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return buf;
}

static double now(void) {
#ifdef MYKERNEL_MPI
    return MPI_Wtime();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

/* The work of one rank: its slice of whole blocks (the last rank takes the rest). */
static void slice(size_t len, int rank, int ranks, size_t *first, size_t *count) {
    size_t blocks = (len + BLOCK - 1) / BLOCK;
    size_t per = blocks / (size_t)ranks, lo = per * (size_t)rank * BLOCK;
    size_t hi = rank == ranks - 1 ? len : per * (size_t)(rank + 1) * BLOCK;
    *first = lo < len ? lo : len;
    *count = (hi < len ? hi : len) - *first;
}

static int run(const struct options *o, int rank, int ranks) {
    uint8_t key[BLOCK], iv[BLOCK], rk[4 * KEY_WORDS];
    if (hex_bytes(o->key, key) || hex_bytes(o->iv, iv)) {
        fprintf(stderr, "mykernel: --key and --iv must be 32 hex digits (AES-128)\n");
        return 2;
    }
    size_t len = 0;
    uint8_t *in = read_file(o->input, &len);
    uint8_t *out = malloc(len ? len : 1);
    if (!in || !out) {
        fprintf(stderr, "mykernel: cannot read %s: %s\n", o->input, strerror(errno));
        return 1;
    }
    size_t first, count;
    slice(len, rank, ranks, &first, &count);
    for (long r = 0; r < o->warmup + o->reps; r++) {
#ifdef MYKERNEL_MPI
        MPI_Barrier(MPI_COMM_WORLD);
#endif
        double t0 = now();
        key_expansion(key, rk);
        ctr_crypt(rk, iv, first, in + first, out + first, count);
        double t1 = now();
#ifdef MYKERNEL_MPI
        if (ranks > 1) { /* rank 0 gathers every slice */
            int *counts = malloc(sizeof(int) * (size_t)ranks);
            int *displs = malloc(sizeof(int) * (size_t)ranks);
            for (int k = 0; k < ranks; k++) {
                size_t f, n;
                slice(len, k, ranks, &f, &n);
                counts[k] = (int)n;
                displs[k] = (int)f;
            }
            MPI_Gatherv(rank == 0 ? MPI_IN_PLACE : out + first, (int)count, MPI_BYTE, out,
                        counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
            free(counts);
            free(displs);
        }
#endif
        double t2 = now();
        if (rank == 0 && r >= o->warmup)
            printf("{\"t_total\": %.9f, \"t_compute\": %.9f, \"t_gather\": %.9f, "
                   "\"bytes\": %zu, \"ranks\": %d, \"threads\": 1}\n",
                   t2 - t0, t1 - t0, t2 - t1, len, ranks);
    }
    int rc = 0;
    if (rank == 0) {
        FILE *f = fopen(o->output, "wb");
        if (!f || fwrite(out, 1, len, f) != len || fclose(f) != 0) {
            fprintf(stderr, "mykernel: cannot write %s\n", o->output);
            rc = 1;
        }
    }
    free(in);
    free(out);
    return rc;
}

int main(int argc, char **argv) {
    int rank = 0, ranks = 1;
#ifdef MYKERNEL_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
#endif
    struct options o;
    int rc = parse(argc, argv, &o) ? 2 : run(&o, rank, ranks);
    fflush(stdout);
#ifdef MYKERNEL_MPI
    if (rc != 0) MPI_Abort(MPI_COMM_WORLD, rc);
    MPI_Finalize();
#endif
    return rc;
}
