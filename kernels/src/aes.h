/*
 * aes.h - the AES core shared by every CPU backend (and by the host side of aes-cuda).
 *
 * Standards followed:
 *   FIPS-197  "Advanced Encryption Standard (AES)" (the cipher, section 5; the key
 *             expansion, section 5.2; the inverse cipher, 5.3; the equivalent inverse
 *             cipher, 5.3.5).
 *   SP 800-38A "Recommendation for Block Cipher Modes of Operation" (ECB, section 6.1;
 *             CTR, section 6.5; the counter is incremented as one 128-bit big-endian
 *             integer, Appendix B.1 with m = 128, exactly like OpenSSL's aes-*-ctr).
 *   PKCS#7 padding (RFC 5652 section 6.3) for ECB, as `openssl enc` applies it.
 *
 * Block implementations ("impls") are selected at run time through a small dispatch
 * table; each lives in its own file (aes_ref.c, aes_ttable.c, aes_aesni.c,
 * aes_vaes256.c, aes_vaes.c).
 * Every impl uses the same expanded key (cs_aes_key), so key expansion is portable C.
 */
#ifndef CIPHERSWEEP_AES_H
#define CIPHERSWEEP_AES_H

#include <stddef.h>
#include <stdint.h>

#define CS_AES_BLOCK 16
#define CS_AES_MAX_ROUNDS 14

/* Expanded key.  rk holds the encryption round keys w[0..4*(Nr+1)-1] of FIPS-197 5.2 as
 * bytes (word i is rk[4i..4i+3], most significant byte first), i.e. round key r is the
 * 16 bytes rk + 16*r, in the byte order of the state.  drk holds the round keys of the
 * equivalent inverse cipher (FIPS-197 5.3.5): drk round 0 = rk round Nr,
 * drk round r = InvMixColumns(rk round Nr-r) for 0 < r < Nr, drk round Nr = rk round 0. */
typedef struct {
    int nr;                                   /* rounds: 10, 12 or 14 */
    int key_bytes;                            /* 16, 24 or 32 */
    uint8_t rk[16 * (CS_AES_MAX_ROUNDS + 1)];
    uint8_t drk[16 * (CS_AES_MAX_ROUNDS + 1)];
} cs_aes_key;

/* FIPS-197 5.2 key expansion (plus the decryption schedule). key_bytes: 16, 24 or 32.
 * Returns 0, or -1 for an unsupported key length. */
int cs_aes_expand_key(cs_aes_key *k, const uint8_t *key, int key_bytes);

/* Block functions of the byte-oriented reference impl (also used by the tests). */
void cs_aes_ref_encrypt_block(const cs_aes_key *k, const uint8_t in[16], uint8_t out[16]);
void cs_aes_ref_decrypt_block(const cs_aes_key *k, const uint8_t in[16], uint8_t out[16]);

typedef enum { CS_ECB = 0, CS_CTR = 1 } cs_mode;
typedef enum { CS_ENCRYPT = 0, CS_DECRYPT = 1 } cs_op;

/* One block implementation.  ecb_*: nblocks whole blocks.  ctr: XORs the key stream of
 * the counter blocks ctr, ctr+1, ... (128-bit big-endian, carry across all 16 bytes)
 * into nbytes of in (the last block may be partial).  in and out may be the same. */
typedef struct {
    const char *name;
    int (*available)(void);   /* CPU has what the impl needs (run-time detection) */
    const char *needs;        /* what it needs, for the error message */
    void (*ecb_encrypt)(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t nblocks);
    void (*ecb_decrypt)(const cs_aes_key *k, const uint8_t *in, uint8_t *out, size_t nblocks);
    void (*ctr)(const cs_aes_key *k, const uint8_t ctr[16], const uint8_t *in, uint8_t *out,
                size_t nbytes);
} cs_aes_impl;

/* Dispatch table (aes_impl.c). */
extern const cs_aes_impl cs_aes_impl_ref;
extern const cs_aes_impl cs_aes_impl_ttable;
extern const cs_aes_impl cs_aes_impl_aesni;
extern const cs_aes_impl cs_aes_impl_vaes256;
extern const cs_aes_impl cs_aes_impl_vaes;
/* NULL-terminated list, slowest first. */
const cs_aes_impl *const *cs_aes_impls(void);
/* "ref<sep>ttable<sep>...<sep>auto": every impl name and auto, into buf (n bytes). */
void cs_aes_impl_names(char *buf, size_t n, const char *sep);
/* Look an impl up by name; "auto" = the best the CPU has
 * (vaes > vaes256 > aesni > ttable).
 * Returns NULL when the name is unknown; *missing = 1 when it is known but the CPU
 * lacks what it needs, 2 when it is switched off by the environment variable
 * CIPHERSWEEP_DISABLE_IMPLS (comma-separated impl names; emulates a lesser CPU). */
const cs_aes_impl *cs_aes_impl_find(const char *name, int *missing);
int cs_aes_impl_disabled(const char *name);

/* Modes (aes_modes.c). */
/* counter + blocks, 128-bit big-endian with carry across all 16 bytes (mod 2^128). */
void cs_ctr_add(const uint8_t ctr[16], uint64_t blocks, uint8_t out[16]);
/* The counter block as native integers: (hi, lo) = its two big-endian halves. */
static inline uint64_t cs_load_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}
/* n consecutive counter blocks from (hi, lo), each with its own carry into hi (mod
 * 2^128), as 16-byte big-endian blocks into out (for the batches of the vector impls
 * in which the low 64 bits wrap). */
void cs_ctr_blocks(uint64_t hi, uint64_t lo, size_t n, uint8_t *out);
/* Length of the PKCS#7-padded message: a full block is added when n % 16 == 0. */
size_t cs_pkcs7_padded_len(size_t n);
/* Check the PKCS#7 padding of a decrypted buffer (n a positive multiple of 16).
 * Returns 0 and sets *unpadded, or -1 for bad padding. */
int cs_pkcs7_check(const uint8_t *buf, size_t n, size_t *unpadded);

/* What to do: impl, key, mode, op, padding and IV. */
typedef struct {
    const cs_aes_impl *impl;
    const cs_aes_key *key;
    cs_mode mode;
    cs_op op;
    int pad;              /* ECB: PKCS#7 padding (encrypt adds it, decrypt checks it) */
    uint8_t iv[16];       /* CTR: initial counter block */
} cs_aes_job;

/* Process one contiguous chunk of a message that starts at block index first_block of
 * the whole message (CTR: its counter is iv + first_block).  Every chunk but the last
 * is a whole number of blocks.  On the last chunk (last != 0), ECB encryption with
 * padding appends the PKCS#7 block, so out needs room for cs_pkcs7_padded_len(in_len)
 * bytes there.  ECB decryption does not strip the padding (the caller checks it once on
 * the whole message with cs_pkcs7_check).  Returns the number of bytes written, or
 * (size_t)-1 when in_len is not acceptable (ECB without padding and a partial block). */
size_t cs_aes_chunk(const cs_aes_job *j, uint64_t first_block, const uint8_t *in,
                    size_t in_len, uint8_t *out, int last);

/* The whole message on one thread: cs_aes_chunk + padding check on decryption.
 * Returns 0 and *out_len, or -1 (bad length or bad padding; *err says which). */
int cs_aes_crypt(const cs_aes_job *j, const uint8_t *in, size_t in_len, uint8_t *out,
                 size_t *out_len, const char **err);

/* Generic ECB/CTR drivers for impls that only have a one-block function. */
typedef void (*cs_block_fn)(const cs_aes_key *k, const uint8_t in[16], uint8_t out[16]);
void cs_ctr_generic(cs_block_fn enc, const cs_aes_key *k, const uint8_t ctr[16],
                    const uint8_t *in, uint8_t *out, size_t nbytes);

#endif
