/*
 * test_cuda_chunks.c - the chunk plan of aes-cuda's overlapped mode (cuda_chunks.c), on
 * the CPU: chunks cover the message and its result exactly, in order, without overlap,
 * round-robin over the streams (also with more streams than chunks); chunk sizes that
 * leave odd tails (1, 15, 17, 4097 bytes, 1 MiB + 48); and the result of running the
 * GPU block code chunk by chunk, each chunk from its own first block index (CTR counter
 * iv + first block, carried across 64 and 128 bits), equals OpenSSL's on the whole
 * message, for CTR and for ECB with PKCS#7 padding written in the last chunk.
 */
#include "aes.h"
#include "aes_block_gpu.h"
#include "aes_tables.h"
#include "cuda_chunks.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const cs_gpu_tables ENC = {cs_te0, cs_te1, cs_te2, cs_te3, NULL};

/* Structural checks of one plan. */
static void check_plan(size_t in_len, size_t out_len, size_t chunk, int streams)
{
    const size_t count = cs_chunk_count(out_len, chunk);
    cs_chunk *c = calloc(count ? count : 1, sizeof *c);
    if (!c) abort();
    CHECK(cs_chunk_plan(in_len, out_len, chunk, streams, c, count) == count,
          "plan %zu/%zu chunk %zu", in_len, out_len, chunk);
    size_t in_sum = 0, out_sum = 0;
    for (size_t i = 0; i < count; i++) {
        CHECK(c[i].out_off == out_sum && c[i].out_len > 0 && c[i].out_len <= chunk,
              "chunk %zu contiguous out (%zu, %zu)", i, c[i].out_off, c[i].out_len);
        CHECK(c[i].in_len == 0 || c[i].in_off == in_sum, "chunk %zu contiguous in", i);
        CHECK(c[i].first_block * 16 == c[i].out_off && c[i].nblocks == (c[i].out_len + 15) / 16,
              "chunk %zu blocks", i);
        CHECK(c[i].stream == (int)(i % (size_t)streams), "chunk %zu stream %d", i, c[i].stream);
        CHECK(i + 1 == count || c[i].out_len == chunk, "only the last chunk is short");
        in_sum += c[i].in_len;
        out_sum += c[i].out_len;
    }
    CHECK(in_sum == in_len && out_sum == out_len, "coverage %zu/%zu of %zu/%zu", in_sum, out_sum,
          in_len, out_len);
    CHECK(cs_chunk_streams_used(count, streams) == (count < (size_t)streams ? (int)count : streams),
          "streams used");
    free(c);
}

static void test_plans(void)
{
    static const size_t sizes[] = {1, 15, 16, 17, 4097, 1048576 + 48};
    static const size_t chunks[] = {16, 48, 4096, 65536};
    static const int streams[] = {1, 2, 3, 8, 64};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (size_t b = 0; b < sizeof chunks / sizeof *chunks; b++)
            for (size_t s = 0; s < sizeof streams / sizeof *streams; s++) {
                check_plan(sizes[a], sizes[a], chunks[b], streams[s]);          /* CTR */
                check_plan(sizes[a], cs_pkcs7_padded_len(sizes[a]), chunks[b], streams[s]);
            }
    cs_chunk c[4];
    CHECK(cs_chunk_plan(100, 100, 24, 1, c, 4) == 0, "chunk not a multiple of 16 refused");
    CHECK(cs_chunk_plan(100, 100, 0, 1, c, 4) == 0, "chunk 0 refused");
    CHECK(cs_chunk_plan(100, 100, 16, 1, c, 4) == 0, "too many chunks for cap refused");
    CHECK(cs_chunk_plan(0, 0, 16, 1, c, 4) == 0, "empty message: no chunks");
    CHECK(cs_chunk_plan(100, 112, 4096, 8, c, 4) == 1 && cs_chunk_streams_used(1, 8) == 1,
          "more streams than chunks: one chunk, one stream used");
}

/* Runs the kernel's per-block work over the message chunk by chunk (in reverse order,
 * as streams may finish in any order). mode 0 ECB encrypt with padding, 2 CTR. */
static void chunked(const uint32_t *rk, int nr, int mode, const uint32_t ivw[4],
                    const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                    size_t chunk, int streams)
{
    const size_t count = cs_chunk_count(out_len, chunk);
    cs_chunk *c = calloc(count, sizeof *c);
    uint8_t *dev = malloc(out_len + 16);
    if (!c || !dev) abort();
    CHECK(cs_chunk_plan(in_len, out_len, chunk, streams, c, count) == count, "plan");
    memset(dev, 0xA5, out_len + 16); /* stale device bytes */
    const uint32_t padv = mode == 0 ? (uint32_t)(out_len - in_len) : 0;
    for (size_t k = count; k-- > 0;) {
        memcpy(dev + c[k].in_off, in + c[k].in_off, c[k].in_len);       /* H2D */
        for (uint64_t b = 0; b < c[k].nblocks; b++) {                     /* kernel */
            const uint64_t idx = c[k].first_block + b;
            uint32_t w[4];
            memcpy(w, dev + 16 * idx, 16);
            if (padv) cs_gpu_pad_le_words(idx, in_len, padv, w);
            cs_gpu_process_le_words(&ENC, rk, nr, mode, ivw, idx, w);
            memcpy(dev + 16 * idx, w, 16);
        }
        memcpy(out + c[k].out_off, dev + c[k].out_off, c[k].out_len);  /* D2H */
    }
    free(c);
    free(dev);
}

static void test_chunked_vs_openssl(void)
{
    static const size_t sizes[] = {1, 15, 17, 4097, 1048576 + 48};
    static const char *const ivs[] = {"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
                                      "0123456789abcdeffffffffffffffff0", /* 64-bit carry */
                                      "fffffffffffffffffffffffffffffffe"}; /* 128-bit wrap */
    uint8_t key[16], iv[16];
    for (int i = 0; i < 16; i++) key[i] = (uint8_t)(0x3c ^ (i * 29));
    cs_aes_key k;
    cs_aes_expand_key(&k, key, 16);
    uint32_t rk[4 * (CS_AES_MAX_ROUNDS + 1)], ivw[4];
    cs_gpu_round_key_words(k.rk, k.nr, rk);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        const size_t n = sizes[si], padded = cs_pkcs7_padded_len(n);
        uint8_t *in = malloc(n), *ref = malloc(padded + 16), *out = malloc(padded);
        if (!in || !ref || !out) abort();
        for (size_t i = 0; i < n; i++) in[i] = (uint8_t)(i * 131 + 7);
        for (size_t v = 0; v < sizeof ivs / sizeof *ivs; v++) {
            for (int b = 0; b < 16; b++) {
                unsigned x;
                sscanf(ivs[v] + 2 * b, "%2x", &x);
                iv[b] = (uint8_t)x;
            }
            for (int c = 0; c < 4; c++) ivw[c] = cs_gpu_load_be32(iv + 4 * c);
            EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
            int l1 = 0, l2 = 0;
            EVP_EncryptInit_ex(ctx, EVP_aes_128_ctr(), NULL, key, iv);
            EVP_EncryptUpdate(ctx, ref, &l1, in, (int)n);
            EVP_EncryptFinal_ex(ctx, ref + l1, &l2);
            EVP_CIPHER_CTX_free(ctx);
            chunked(rk, k.nr, 2, ivw, in, n, out, n, 48, 3);
            CHECK(memcmp(out, ref, n) == 0, "CTR in 48-byte chunks, %zu bytes, iv %s", n, ivs[v]);
            chunked(rk, k.nr, 2, ivw, in, n, out, n, 4096, 64);
            CHECK(memcmp(out, ref, n) == 0, "CTR in 4 KiB chunks on 64 streams, %zu bytes", n);
        }
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        int l1 = 0, l2 = 0;
        EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), NULL, key, NULL);
        EVP_EncryptUpdate(ctx, ref, &l1, in, (int)n);
        EVP_EncryptFinal_ex(ctx, ref + l1, &l2);
        EVP_CIPHER_CTX_free(ctx);
        CHECK((size_t)(l1 + l2) == padded, "EVP ECB padded length");
        chunked(rk, k.nr, 0, ivw, in, n, out, padded, 32, 4);
        CHECK(memcmp(out, ref, padded) == 0, "ECB+PKCS#7 in 32-byte chunks, %zu bytes", n);
        free(in);
        free(ref);
        free(out);
    }
}

/* The default chunk: size/16 in whole MiB, between 4 and 32 MiB. */
static void test_default_chunk(void)
{
    const size_t mib = (size_t)1 << 20;
    CHECK(cs_chunk_default(0) == 4 * mib, "empty: the smallest chunk");
    CHECK(cs_chunk_default(16) == 4 * mib, "16 bytes: the smallest chunk");
    CHECK(cs_chunk_default(64 * mib) == 4 * mib, "64 MiB: 4 MiB (16 chunks)");
    CHECK(cs_chunk_default(100 * mib) == 7 * mib, "100 MiB: 6.25 MiB up to 7 MiB");
    CHECK(cs_chunk_default(256 * mib) == 16 * mib, "256 MiB: 16 MiB (16 chunks)");
    CHECK(cs_chunk_default(256 * mib + 16) == 17 * mib, "256 MiB + pad: whole MiB");
    CHECK(cs_chunk_default(1024 * mib) == 32 * mib, "1 GiB: 32 MiB");
    CHECK(cs_chunk_default(64 * 1024 * mib) == 32 * mib, "64 GiB: the largest chunk");
    CHECK(cs_chunk_count(256 * mib, cs_chunk_default(256 * mib)) == 16, "256 MiB: 16 chunks");
}

int main(void)
{
    test_default_chunk();
    test_plans();
    test_chunked_vs_openssl();
    printf("test_cuda_chunks: %d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
