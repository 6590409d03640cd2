"""DES and Triple DES (NIST SP 800-67 Rev. 2, DES from FIPS 46-3) in Python with NumPy
arrays, one 8-byte block at a time, written from the description of Centellas
Claros et al. (2021, §4.2, §5.2): a block is a NumPy array of 64 bits; IP, E, P,
PC-1, PC-2 and IP^-1 are index arrays applied to it; the S-boxes are tables looked
up by the six bits of each group; 3DES is DES three times, E_K3(D_K2(E_K1(x))). The
tables are those of :mod:`ciphersweep.job.pure_des` (1-based there, 0-based here).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ciphersweep.job import pure_des as tables

Bits = npt.NDArray[np.uint8]


def _index(table: tuple[int, ...]) -> npt.NDArray[np.intp]:
    return np.array(table, dtype=np.intp) - 1


IP, FP, E, P = (_index(t) for t in (tables.IP, tables.FP, tables.E, tables.P))
PC1, PC2 = _index(tables.PC1), _index(tables.PC2)
SBOXES = np.array(tables.S, dtype=np.uint8)  # (8, 64), row-major by (row, column)
_BOX = np.arange(8)


def subkeys(key: bytes) -> Bits:
    """The 16 48-bit round keys of one DES key (FIPS 46-3 key schedule: PC-1, left
    shifts of C and D, PC-2), one row per round."""
    k = np.unpackbits(np.frombuffer(key, dtype=np.uint8))[PC1]
    c, d, out = k[:28], k[28:], []
    for s in tables.SHIFTS:
        c, d = np.roll(c, -s), np.roll(d, -s)
        out.append(np.concatenate([c, d])[PC2])
    return np.array(out)


def _f(r: Bits, k: Bits) -> Bits:
    """The cipher function f: expansion E, XOR the round key, the eight S-boxes
    (row: bits 1 and 6 of the group, column: bits 2..5), permutation P."""
    x = (r[E] ^ k).reshape(8, 6)
    row = 2 * x[:, 0] + x[:, 5]
    col = 8 * x[:, 1] + 4 * x[:, 2] + 2 * x[:, 3] + x[:, 4]
    v = SBOXES[_BOX, 16 * row + col]
    return np.unpackbits(v[:, None], axis=1)[:, 4:].ravel()[P]


def des_block(ks: Bits, block: Bits, decrypt: bool = False) -> Bits:
    """One DES block of 64 bits: IP, 16 rounds (the keys reversed to decrypt),
    R16 L16, IP^-1 (FIPS 46-3)."""
    bits = block[IP]
    left, right = bits[:32], bits[32:]
    for k in ks[::-1] if decrypt else ks:
        left, right = right, left ^ _f(right, k)
    return np.concatenate([right, left])[FP]


def tdes_keys(key: bytes) -> Bits:
    """Keying option 1 (three independent keys, SP 800-67 §3.2): (3, 16, 48)."""
    return np.array([subkeys(key[i : i + 8]) for i in (0, 8, 16)])


def _bits(block: bytes) -> Bits:
    return np.unpackbits(np.frombuffer(block, dtype=np.uint8))


def tdes_encrypt_block(ks: Bits, block: bytes) -> bytes:
    """TDEA encryption: E_K3(D_K2(E_K1(I))) (SP 800-67 §3.1)."""
    x = des_block(ks[0], _bits(block))
    x = des_block(ks[2], des_block(ks[1], x, True))
    return np.packbits(x).tobytes()


def tdes_decrypt_block(ks: Bits, block: bytes) -> bytes:
    """TDEA decryption: D_K1(E_K2(D_K3(I)))."""
    x = des_block(ks[2], _bits(block), True)
    x = des_block(ks[0], des_block(ks[1], x), True)
    return np.packbits(x).tobytes()
