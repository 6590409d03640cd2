/*
 * cuda_chunks.h - how aes-cuda's overlapped mode (--streams N --chunk BYTES) splits one
 * message into chunks: chunk i covers the 16-byte blocks [i*C, min((i+1)*C, B)) of the
 * B blocks of the device buffer (C = chunk bytes / 16), goes to stream i mod N, and its
 * three steps (copy in, kernel, copy out) are queued on that stream, so that the copies
 * of one chunk overlap the kernel of another.  CTR: block j of the message uses counter
 * iv + j (SP 800-38A 6.5, 128-bit big-endian with carry), so a chunk's kernel only needs
 * its first block index; ECB encryption with PKCS#7 padding: the pad block belongs to
 * the last chunk, which copies in only the message bytes it holds.
 *
 * Plain C (no CUDA), so the arithmetic is unit-tested on any machine
 * (tests/test_cuda_chunks.c).
 */
#ifndef CIPHERSWEEP_CUDA_CHUNKS_H
#define CIPHERSWEEP_CUDA_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t in_off, in_len;    /* message bytes copied host -> device (in_len may be 0) */
    size_t out_off, out_len;  /* result bytes copied device -> host */
    uint64_t first_block;     /* index of the chunk's first block in the message */
    uint64_t nblocks;         /* blocks the chunk's kernel processes */
    int stream;               /* which of the streams it is queued on */
} cs_chunk;

/* Number of chunks for out_len result bytes in chunks of chunk_bytes (a positive
 * multiple of 16); 0 when out_len is 0. */
size_t cs_chunk_count(size_t out_len, size_t chunk_bytes);

/* Fills chunks[0 .. count-1] (count = cs_chunk_count(out_len, chunk_bytes)) for a message
 * of in_len bytes whose result has out_len bytes (out_len >= in_len; ECB encryption with
 * padding: the padded length), over `streams` streams (>= 1).  Returns count, or 0 with
 * nothing written when chunk_bytes is not a positive multiple of 16 or cap < count. */
size_t cs_chunk_plan(size_t in_len, size_t out_len, size_t chunk_bytes, int streams,
                     cs_chunk *chunks, size_t cap);

/* The default chunk for out_len result bytes (--chunk not given): out_len / 16 rounded
 * up to whole MiB, within [CS_CHUNK_MIN, CS_CHUNK_MAX].  Few chunks leave the pipeline's
 * fill and drain (the first chunk's copy in, the last one's copy out) uncovered; small
 * ones lose bandwidth to the per-copy cost.  Measured on one H100 (4 streams, end to
 * end, gpu-lanes CTR): 1 MiB chunks ran at 0.6 of the best at every size; the best were
 * 4 MiB at 64 MiB (16 chunks), 16-32 MiB at 256 MiB and 32 MiB at 1 GiB. */
#define CS_CHUNK_TARGET_COUNT 16u
#define CS_CHUNK_MIN ((size_t)4 << 20)
#define CS_CHUNK_MAX ((size_t)32 << 20)
size_t cs_chunk_default(size_t out_len);

/* Streams that get at least one chunk: min(streams, count). */
int cs_chunk_streams_used(size_t count, int streams);

#ifdef __cplusplus
}
#endif
#endif
