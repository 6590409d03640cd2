/*
 * aes_modes.c - modes of operation on top of the block impls: ECB (SP 800-38A 6.1),
 * CTR (SP 800-38A 6.5 with the standard incrementing function of Appendix B.1 over the
 * whole 128-bit block, as OpenSSL's aes-*-ctr does) and PKCS#7 padding (RFC 5652 6.3,
 * as `openssl enc` applies it to ECB).
 */
#include <string.h>

#include "aes.h"

void cs_ctr_add(const uint8_t ctr[16], uint64_t blocks, uint8_t out[16])
{
    unsigned carry = 0;
    for (int i = 15; i >= 0; i--) {
        unsigned sum = (unsigned)ctr[i] + (unsigned)(blocks & 0xff) + carry;
        out[i] = (uint8_t)sum;
        carry = sum >> 8;
        blocks >>= 8;
    }
}

static void store_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

void cs_ctr_blocks(uint64_t hi, uint64_t lo, size_t n, uint8_t *out)
{
    for (size_t j = 0; j < n; j++) {
        const uint64_t l = lo + (uint64_t)j;
        store_be64(out + 16 * j, hi + (l < lo));
        store_be64(out + 16 * j + 8, l);
    }
}

static void ctr_inc(uint8_t c[16])
{
    for (int i = 15; i >= 0; i--)
        if (++c[i])
            break;
}

void cs_ctr_generic(cs_block_fn enc, const cs_aes_key *k, const uint8_t ctr[16],
                    const uint8_t *in, uint8_t *out, size_t nbytes)
{
    uint8_t c[16], ks[16];
    memcpy(c, ctr, 16);
    while (nbytes > 0) {
        const size_t n = nbytes < 16 ? nbytes : 16;
        enc(k, c, ks);
        for (size_t i = 0; i < n; i++)
            out[i] = in[i] ^ ks[i];
        ctr_inc(c);
        in += n;
        out += n;
        nbytes -= n;
    }
}

size_t cs_pkcs7_padded_len(size_t n) { return (n / 16 + 1) * 16; }

int cs_pkcs7_check(const uint8_t *buf, size_t n, size_t *unpadded)
{
    if (n == 0 || n % 16 != 0)
        return -1;
    const uint8_t p = buf[n - 1];
    if (p == 0 || p > 16)
        return -1;
    for (size_t i = n - p; i < n; i++)
        if (buf[i] != p)
            return -1;
    *unpadded = n - p;
    return 0;
}

size_t cs_aes_chunk(const cs_aes_job *j, uint64_t first_block, const uint8_t *in,
                    size_t in_len, uint8_t *out, int last)
{
    if (j->mode == CS_CTR) {
        uint8_t c[16];
        cs_ctr_add(j->iv, first_block, c);
        if (in_len)
            j->impl->ctr(j->key, c, in, out, in_len);
        return in_len;
    }
    const size_t full = in_len / 16, tail = in_len % 16;
    if (j->op == CS_DECRYPT) {
        if (tail)
            return (size_t)-1;
        if (full)
            j->impl->ecb_decrypt(j->key, in, out, full);
        return in_len;
    }
    const int pad_here = last && j->pad;
    if (tail && !pad_here)
        return (size_t)-1;
    if (full)
        j->impl->ecb_encrypt(j->key, in, out, full);
    if (!pad_here)
        return 16 * full;
    uint8_t b[16];
    memcpy(b, in + 16 * full, tail);
    memset(b + tail, (int)(16 - tail), 16 - tail);
    j->impl->ecb_encrypt(j->key, b, out + 16 * full, 1);
    return 16 * (full + 1);
}

int cs_aes_crypt(const cs_aes_job *j, const uint8_t *in, size_t in_len, uint8_t *out,
                 size_t *out_len, const char **err)
{
    const size_t r = cs_aes_chunk(j, 0, in, in_len, out, 1);
    if (r == (size_t)-1) {
        *err = "input length is not a multiple of 16 bytes (ECB without padding)";
        return -1;
    }
    *out_len = r;
    if (j->mode == CS_ECB && j->op == CS_DECRYPT && j->pad) {
        if (cs_pkcs7_check(out, r, out_len) != 0) {
            *err = "bad decrypt: wrong PKCS#7 padding";
            return -1;
        }
    }
    return 0;
}
