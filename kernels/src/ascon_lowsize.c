/*
 * ascon_lowsize.c - Ascon-AEAD128 (NIST SP 800-232) for small code: one round function
 * run in a loop (round constants computed: c_{4+r} = ((15 - r) << 4) | r for r = 0..11,
 * which reproduces Table 5), the rate handled byte by byte through one helper, and one routine that does
 * both encryption (Algorithm 3) and decryption (Algorithm 4).
 */
#include <string.h>

#include "aead.h"

typedef struct {
    uint64_t x[5];
} st;

static uint64_t ror(uint64_t v, int n) { return (v >> n) | (v << (64 - n)); }

/* Ascon-p[rnd]: rounds 16 - rnd .. 15 of p_L o p_S o p_C (sections 3.2-3.4), r = i - 4. */
static void permute(st *s, int rnd)
{
    static const uint8_t R[5][2] = {{19, 28}, {61, 39}, {1, 6}, {10, 17}, {7, 41}};
    uint64_t *x = s->x, t[5];
    for (int r = 12 - rnd; r < 12; r++) {
        x[2] ^= (uint64_t)(((15 - r) << 4) | r);
        x[0] ^= x[4];
        x[4] ^= x[3];
        x[2] ^= x[1];
        for (int j = 0; j < 5; j++)
            t[j] = x[j] ^ (~x[(j + 1) % 5] & x[(j + 2) % 5]);
        t[1] ^= t[0];
        t[0] ^= t[4];
        t[3] ^= t[2];
        t[2] = ~t[2];
        for (int j = 0; j < 5; j++)
            x[j] = t[j] ^ ror(t[j], R[j][0]) ^ ror(t[j], R[j][1]);
    }
}

/* Byte i (0..15) of the rate S0 || S1, little-endian (section 2.1). */
static uint8_t get_byte(const st *s, size_t i) { return (uint8_t)(s->x[i / 8] >> (8 * (i % 8))); }

static void xor_byte(st *s, size_t i, uint8_t b) { s->x[i / 8] ^= (uint64_t)b << (8 * (i % 8)); }

static uint64_t load(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* Absorb n <= 16 bytes into the rate.  mode 0: data (AD) is XORed in; 1: encryption,
 * out = rate ^ in and the rate becomes out; 2: decryption, out = rate ^ in and the rate
 * becomes in.  pad: the padding bit follows the last byte (n < 16). */
static void absorb(st *s, const uint8_t *in, uint8_t *out, size_t n, int mode, int pad)
{
    for (size_t i = 0; i < n; i++) {
        const uint8_t r = get_byte(s, i), o = (uint8_t)(r ^ in[i]);
        if (mode)
            out[i] = o;
        xor_byte(s, i, mode == 2 ? o : in[i]); /* decryption: rate ^= rate ^ c */
    }
    if (pad)
        xor_byte(s, n, 0x01);
}

/* Algorithms 3 (dec = 0) and 4 (dec = 1).  n: plaintext/ciphertext length without the
 * tag.  The computed tag goes to tag. */
static void ascon_crypt(const uint8_t *key, const uint8_t *nonce, const uint8_t *ad, size_t ad_len,
                  const uint8_t *in, size_t n, uint8_t *out, int dec, uint8_t tag[16])
{
    const uint64_t k0 = load(key), k1 = load(key + 8);
    st s = {{0x00001000808c0001ull, k0, k1, load(nonce), load(nonce + 8)}};
    permute(&s, 12);
    s.x[3] ^= k0;
    s.x[4] ^= k1;
    for (size_t off = 0; ad_len && off <= ad_len; off += 16) {
        const size_t len = ad_len - off < 16 ? ad_len - off : 16;
        absorb(&s, ad + off, NULL, len, 0, len < 16);
        permute(&s, 8);
    }
    s.x[4] ^= 1ull << 63;
    for (size_t off = 0; off <= n; off += 16) {
        const size_t len = n - off < 16 ? n - off : 16;
        absorb(&s, in + off, out + off, len, 1 + dec, len < 16);
        if (len < 16)
            break;
        permute(&s, 8);
    }
    s.x[2] ^= k0;
    s.x[3] ^= k1;
    permute(&s, 12);
    s.x[3] ^= k0;
    s.x[4] ^= k1;
    for (size_t i = 0; i < 16; i++)
        tag[i] = (uint8_t)(s.x[3 + i / 8] >> (8 * (i % 8)));
}

static void low_setup(cs_aead_key *k, const uint8_t key[16]) { memcpy(k->key, key, 16); }

static void low_encrypt(const cs_aead_key *k, const uint8_t *nonce, const uint8_t *ad,
                        size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    ascon_crypt(k->key, nonce, ad, ad_len, in, n, out, 0, out + n);
}

static int low_decrypt(const cs_aead_key *k, const uint8_t *nonce, const uint8_t *ad,
                       size_t ad_len, const uint8_t *in, size_t n, uint8_t *out)
{
    uint8_t tag[16];
    ascon_crypt(k->key, nonce, ad, ad_len, in, n - 16, out, 1, tag);
    if (cs_aead_tag_differs(tag, in + n - 16)) {
        memset(out, 0, n - 16);
        return -1;
    }
    return 0;
}

static int always(void) { return 1; }

const cs_aead_impl cs_aead_ascon_lowsize = {
    "ascon-lowsize", "ascon-aead128", CS_ASCON_NONCE, always, "nothing",
    low_setup, low_encrypt, low_decrypt,
};
