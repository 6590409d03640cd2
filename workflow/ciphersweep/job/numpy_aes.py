"""AES (FIPS-197) in Python with NumPy arrays, one 16-byte block at a time, written from
the description of Centellas Claros et al. (2021, §4.1, §5.2): the state is a NumPy
array of 16 bytes (column-major, FIPS-197 §3.4); AddRoundKey XORs it with the round
key through ``np.vectorize``; SubBytes walks it with ``np.nditer`` and looks each byte
up in the S-box table; ShiftRows is the fixed permutation of §4.1.1; MixColumns
replaces each column with its product by the fixed matrix, computed with xtime
(FIPS-197 §4.2.1) on the column's bytes; the key expansion works on 4-byte words
(§5.2). The S-box values are those of :mod:`ciphersweep.job.pure_aes`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ciphersweep.job import pure_aes

Bytes = npt.NDArray[np.uint8]

SBOX: Bytes = np.array(pure_aes.SBOX, dtype=np.uint8)
INV_SBOX: Bytes = np.array(pure_aes.INV_SBOX, dtype=np.uint8)
# ShiftRows on the column-major state: byte i of the result is byte SHIFT[i] of the
# input (FIPS-197 §5.1.2; the study's {0,5,10,15,4,9,14,3,...}); its inverse §5.3.1
SHIFT = np.array([(i + 4 * (i % 4)) % 16 for i in range(16)], dtype=np.intp)
INV_SHIFT = np.argsort(SHIFT)

# AddRoundKey: byte-wise XOR of two arrays, a Python function NumPy broadcasts
_xor = np.vectorize(lambda a, b: a ^ b, otypes=[np.uint8])


def add_round_key(state: Bytes, key: Bytes) -> Bytes:
    """AddRoundKey (FIPS-197 §5.1.4): the state XOR the round key."""
    out: Bytes = _xor(state, key)
    return out


def sub_bytes(state: Bytes, box: Bytes = SBOX) -> Bytes:
    """SubBytes (§5.1.1) with the S-box table, or InvSubBytes (§5.3.2) with its
    inverse: every byte replaced by its entry."""
    out = np.empty_like(state)
    for i, b in enumerate(np.nditer(state)):
        out[i] = box[b]
    return out


def xtime(a: Bytes) -> Bytes:
    """Multiplication by x ({02}) in GF(2^8) of each byte (FIPS-197 §4.2.1): shift
    left, reduce by {1b} where the top bit was set."""
    out: Bytes = (a << 1) ^ np.where(a & 0x80, 0x1B, 0).astype(np.uint8)
    return out


def mix_column(col: Bytes) -> Bytes:
    """One column times the MixColumns matrix (§5.1.3: 02 03 01 01, rotated), with
    xtime: s'_r = s_r ^ t ^ xtime(s_r ^ s_(r+1)), t = s_0 ^ s_1 ^ s_2 ^ s_3."""
    t = col[0] ^ col[1] ^ col[2] ^ col[3]
    out: Bytes = col ^ t ^ xtime(col ^ np.roll(col, -1))
    return out


def inv_mix_column(col: Bytes) -> Bytes:
    """One column times the InvMixColumns matrix (§5.3.3: 0e 0b 0d 09): the column
    plus {04}(s_r ^ s_(r+2)) (two xtimes), then MixColumns, since
    {0e 0b 0d 09} = {02 03 01 01} x {05 00 04 00} as polynomials (Daemen and
    Rijmen, The Design of Rijndael, §4.1.3)."""
    return mix_column(col ^ xtime(xtime(col ^ np.roll(col, -2))))


def mix_columns(state: Bytes, column: Callable[[Bytes], Bytes] = mix_column) -> Bytes:
    """MixColumns (or, with ``inv_mix_column``, InvMixColumns): each of the four
    columns replaced."""
    return np.concatenate([column(state[4 * c : 4 * c + 4]) for c in range(4)])


def expand_key(key: bytes) -> Bytes:
    """The round keys (FIPS-197 §5.2, KeyExpansion), one row of 16 bytes per round."""
    nk, nr = len(key) // 4, pure_aes.ROUNDS[len(key)]
    w = [np.frombuffer(key[4 * i : 4 * i + 4], dtype=np.uint8) for i in range(nk)]
    for i in range(nk, 4 * (nr + 1)):
        t = w[i - 1]
        if i % nk == 0:  # SubWord(RotWord(t)) XOR Rcon
            t = sub_bytes(np.roll(t, -1))
            t = _xor(t, np.array([pure_aes.RCON[i // nk - 1], 0, 0, 0], np.uint8))
        elif nk > 6 and i % nk == 4:
            t = sub_bytes(t)
        w.append(_xor(w[i - nk], t))
    return np.concatenate(w).reshape(nr + 1, 16)


def encrypt_block(rk: Bytes, block: bytes) -> bytes:
    """Cipher (FIPS-197 §5.1): round 0 AddRoundKey; rounds 1 .. Nr-1 SubBytes,
    ShiftRows, MixColumns, AddRoundKey; round Nr without MixColumns."""
    s = add_round_key(np.frombuffer(block, dtype=np.uint8), rk[0])
    nr = len(rk) - 1
    for r in range(1, nr + 1):
        s = sub_bytes(s)[SHIFT]
        if r < nr:
            s = mix_columns(s)
        s = add_round_key(s, rk[r])
    return s.tobytes()


def decrypt_block(rk: Bytes, block: bytes) -> bytes:
    """InvCipher (FIPS-197 §5.3): the study's order (§4.1.2): InvShiftRows,
    InvSubBytes, AddRoundKey, InvMixColumns; the last round without InvMixColumns."""
    s = add_round_key(np.frombuffer(block, dtype=np.uint8), rk[-1])
    for r in range(len(rk) - 2, -1, -1):
        s = add_round_key(sub_bytes(s[INV_SHIFT], INV_SBOX), rk[r])
        if r > 0:
            s = mix_columns(s, inv_mix_column)
    return s.tobytes()
