/*
 * aes_ref.c - the byte-oriented reference implementation, written the way FIPS-197
 * describes the algorithm: the state is a 4x4 array of bytes (section 3.4,
 * s[r][c] = in[r + 4c]) transformed by SubBytes, ShiftRows, MixColumns and AddRoundKey
 * (section 5.1); the inverse cipher uses InvShiftRows, InvSubBytes, InvMixColumns
 * (section 5.3).  The key expansion (section 5.2, RotWord/SubWord/Rcon) used by every
 * impl lives here too.  Slow on purpose: it is the "sequential implementation" of the
 * reference study, and the yardstick the T-table and AES-NI impls are compared with.
 */
#include <string.h>

#include "aes.h"
#include "aes_tables.h"

/* Multiplication by x (i.e. {02}) in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (4.2.1). */
static uint8_t xtime(uint8_t a) { return (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1b : 0x00)); }

/* General multiplication in GF(2^8) by repeated xtime (4.2.1). */
static uint8_t gmul(uint8_t a, uint8_t b)
{
    uint8_t r = 0;
    while (b) {
        if (b & 1)
            r ^= a;
        a = xtime(a);
        b >>= 1;
    }
    return r;
}

/* ---- key expansion (5.2) ---- */

static void sub_word(uint8_t w[4])
{
    for (int i = 0; i < 4; i++)
        w[i] = cs_sbox[w[i]];
}

static void rot_word(uint8_t w[4])
{
    uint8_t t = w[0];
    w[0] = w[1];
    w[1] = w[2];
    w[2] = w[3];
    w[3] = t;
}

static void inv_mix_columns(uint8_t s[16]);

int cs_aes_expand_key(cs_aes_key *k, const uint8_t *key, int key_bytes)
{
    if (key_bytes != 16 && key_bytes != 24 && key_bytes != 32)
        return -1;
    const int nk = key_bytes / 4, nr = nk + 6, nwords = 4 * (nr + 1);
    uint8_t *w = k->rk;
    uint8_t rcon = 0x01; /* Rcon[i/Nk] = [x^(i/Nk - 1), 0, 0, 0] (5.2) */
    k->nr = nr;
    k->key_bytes = key_bytes;
    memcpy(w, key, (size_t)key_bytes);
    for (int i = nk; i < nwords; i++) {
        uint8_t temp[4];
        memcpy(temp, w + 4 * (i - 1), 4);
        if (i % nk == 0) {
            rot_word(temp);
            sub_word(temp);
            temp[0] ^= rcon;
            rcon = xtime(rcon);
        } else if (nk > 6 && i % nk == 4) {
            sub_word(temp);
        }
        for (int j = 0; j < 4; j++)
            w[4 * i + j] = w[4 * (i - nk) + j] ^ temp[j];
    }
    /* Equivalent inverse cipher schedule (5.3.5): reversed, InvMixColumns on rounds
     * 1..Nr-1.  Used by the T-table, AES-NI and VAES decryption. */
    for (int r = 0; r <= nr; r++) {
        memcpy(k->drk + 16 * r, k->rk + 16 * (nr - r), 16);
        if (r > 0 && r < nr)
            inv_mix_columns(k->drk + 16 * r);
    }
    return 0;
}

/* ---- the cipher (5.1) ---- */

static void add_round_key(uint8_t s[16], const uint8_t *rk)
{
    for (int i = 0; i < 16; i++)
        s[i] ^= rk[i];
}

static void sub_bytes(uint8_t s[16])
{
    for (int i = 0; i < 16; i++)
        s[i] = cs_sbox[s[i]];
}

/* Row r is shifted left by r positions: s'[r][c] = s[r][(c + r) mod 4] (5.1.2). */
static void shift_rows(uint8_t s[16])
{
    uint8_t t[16];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            t[r + 4 * c] = s[r + 4 * ((c + r) % 4)];
    memcpy(s, t, 16);
}

/* Each column times a(x) = {03}x^3 + {01}x^2 + {01}x + {02} (5.1.3). */
static void mix_columns(uint8_t s[16])
{
    for (int c = 0; c < 4; c++) {
        uint8_t *a = s + 4 * c;
        const uint8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        a[0] = (uint8_t)(xtime(a0) ^ (xtime(a1) ^ a1) ^ a2 ^ a3);
        a[1] = (uint8_t)(a0 ^ xtime(a1) ^ (xtime(a2) ^ a2) ^ a3);
        a[2] = (uint8_t)(a0 ^ a1 ^ xtime(a2) ^ (xtime(a3) ^ a3));
        a[3] = (uint8_t)((xtime(a0) ^ a0) ^ a1 ^ a2 ^ xtime(a3));
    }
}

void cs_aes_ref_encrypt_block(const cs_aes_key *k, const uint8_t in[16], uint8_t out[16])
{
    uint8_t s[16];
    memcpy(s, in, 16);
    add_round_key(s, k->rk);
    for (int round = 1; round < k->nr; round++) {
        sub_bytes(s);
        shift_rows(s);
        mix_columns(s);
        add_round_key(s, k->rk + 16 * round);
    }
    sub_bytes(s);
    shift_rows(s);
    add_round_key(s, k->rk + 16 * k->nr);
    memcpy(out, s, 16);
}

/* ---- the inverse cipher (5.3) ---- */

static void inv_sub_bytes(uint8_t s[16])
{
    for (int i = 0; i < 16; i++)
        s[i] = cs_inv_sbox[s[i]];
}

/* s'[r][(c + r) mod 4] = s[r][c] (5.3.1). */
static void inv_shift_rows(uint8_t s[16])
{
    uint8_t t[16];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            t[r + 4 * ((c + r) % 4)] = s[r + 4 * c];
    memcpy(s, t, 16);
}

/* Each column times a^-1(x) = {0b}x^3 + {0d}x^2 + {09}x + {0e} (5.3.3). */
static void inv_mix_columns(uint8_t s[16])
{
    for (int c = 0; c < 4; c++) {
        uint8_t *a = s + 4 * c;
        const uint8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        a[0] = gmul(a0, 0x0e) ^ gmul(a1, 0x0b) ^ gmul(a2, 0x0d) ^ gmul(a3, 0x09);
        a[1] = gmul(a0, 0x09) ^ gmul(a1, 0x0e) ^ gmul(a2, 0x0b) ^ gmul(a3, 0x0d);
        a[2] = gmul(a0, 0x0d) ^ gmul(a1, 0x09) ^ gmul(a2, 0x0e) ^ gmul(a3, 0x0b);
        a[3] = gmul(a0, 0x0b) ^ gmul(a1, 0x0d) ^ gmul(a2, 0x09) ^ gmul(a3, 0x0e);
    }
}

void cs_aes_ref_decrypt_block(const cs_aes_key *k, const uint8_t in[16], uint8_t out[16])
{
    uint8_t s[16];
    memcpy(s, in, 16);
    add_round_key(s, k->rk + 16 * k->nr);
    for (int round = k->nr - 1; round >= 1; round--) {
        inv_shift_rows(s);
        inv_sub_bytes(s);
        add_round_key(s, k->rk + 16 * round);
        inv_mix_columns(s);
    }
    inv_shift_rows(s);
    inv_sub_bytes(s);
    add_round_key(s, k->rk);
    memcpy(out, s, 16);
}

/* ---- the impl: ECB (SP 800-38A 6.1) and CTR (6.5) one block at a time ---- */

static int ref_available(void) { return 1; }

static void ref_ecb_encrypt(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t nblocks)
{
    for (size_t i = 0; i < nblocks; i++)
        cs_aes_ref_encrypt_block(k, in + 16 * i, out + 16 * i);
}

static void ref_ecb_decrypt(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t nblocks)
{
    for (size_t i = 0; i < nblocks; i++)
        cs_aes_ref_decrypt_block(k, in + 16 * i, out + 16 * i);
}

static void ref_ctr(const cs_aes_key *k, const uint8_t ctr[16], const uint8_t *in, uint8_t *out,
                    size_t nbytes)
{
    cs_ctr_generic(cs_aes_ref_encrypt_block, k, ctr, in, out, nbytes);
}

const cs_aes_impl cs_aes_impl_ref = {
    "ref", ref_available, "nothing", ref_ecb_encrypt, ref_ecb_decrypt, ref_ctr,
};
