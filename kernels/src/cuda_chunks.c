/* cuda_chunks.c - the chunk plan of aes-cuda's overlapped mode (see cuda_chunks.h). */
#include "cuda_chunks.h"

size_t cs_chunk_count(size_t out_len, size_t chunk_bytes)
{
    if (chunk_bytes == 0 || chunk_bytes % 16)
        return 0;
    return (out_len + chunk_bytes - 1) / chunk_bytes;
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

size_t cs_chunk_default(size_t out_len)
{
    const size_t mib = (size_t)1 << 20;
    const size_t per = (out_len + CS_CHUNK_TARGET_COUNT - 1) / CS_CHUNK_TARGET_COUNT;
    const size_t whole = (per + mib - 1) / mib * mib;
    return whole < CS_CHUNK_MIN ? CS_CHUNK_MIN : min_size(whole, CS_CHUNK_MAX);
}

size_t cs_chunk_plan(size_t in_len, size_t out_len, size_t chunk_bytes, int streams,
                     cs_chunk *chunks, size_t cap)
{
    const size_t count = cs_chunk_count(out_len, chunk_bytes);
    if (count == 0 || count > cap || streams < 1 || in_len > out_len)
        return 0;
    for (size_t i = 0; i < count; i++) {
        cs_chunk *c = &chunks[i];
        const size_t off = i * chunk_bytes;
        c->in_off = off;
        c->in_len = off < in_len ? min_size(chunk_bytes, in_len - off) : 0;
        c->out_off = off;
        c->out_len = min_size(chunk_bytes, out_len - off);
        c->first_block = (uint64_t)(off / 16);
        c->nblocks = (uint64_t)((c->out_len + 15) / 16);
        c->stream = (int)(i % (size_t)streams);
    }
    return count;
}

int cs_chunk_streams_used(size_t count, int streams)
{
    return count < (size_t)streams ? (int)count : streams;
}
