"""AES (FIPS-197) in pure Python, one 16-byte block at a time with S-box tables, the
way a study's own Python code does it (no T-tables, no library): SubBytes, ShiftRows,
MixColumns and AddRoundKey on a list of 16 bytes, column-major as FIPS-197 §3.4.
MixColumns and InvMixColumns look their products up in multiplication tables, one
256-entry table per coefficient (01 02 03, 09 0b 0d 0e), built once from xtime; the
NumPy implementation (:mod:`ciphersweep.job.numpy_aes`) computes them with xtime.
"""

from __future__ import annotations


def _rotl8(x: int, s: int) -> int:
    return ((x << s) | (x >> (8 - s))) & 0xFF


def _sbox() -> tuple[list[int], list[int]]:
    """The S-box from its definition (FIPS-197 §5.1.1): the inverse in GF(2^8)
    followed by the affine transformation; and its inverse."""
    sbox, inv = [0] * 256, [0] * 256
    p = q = 1
    while True:  # p runs over the multiplicative group (generator 3), q = 1/p
        p = p ^ ((p << 1) & 0xFF) ^ (0x1B if p & 0x80 else 0)
        q ^= q << 1
        q ^= q << 2
        q ^= q << 4
        q &= 0xFF
        if q & 0x80:
            q ^= 0x09
        x = q ^ _rotl8(q, 1) ^ _rotl8(q, 2) ^ _rotl8(q, 3) ^ _rotl8(q, 4) ^ 0x63
        sbox[p] = x
        if p == 1:
            break
    sbox[0] = 0x63
    for i, v in enumerate(sbox):
        inv[v] = i
    return sbox, inv


SBOX, INV_SBOX = _sbox()
RCON = (0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36)
ROUNDS = {16: 10, 24: 12, 32: 14}


def xtime(b: int) -> int:
    """Multiplication by x in GF(2^8) (FIPS-197 §4.2.1)."""
    return ((b << 1) ^ 0x1B) & 0xFF if b & 0x80 else b << 1


def mul(a: int, b: int) -> int:
    out = 0
    while b:
        if b & 1:
            out ^= a
        a, b = xtime(a), b >> 1
    return out


# multiplication tables of the MixColumns / InvMixColumns coefficients
MUL = {k: [mul(b, k) for b in range(256)] for k in (1, 2, 3, 9, 11, 13, 14)}


def expand_key(key: bytes) -> list[list[int]]:
    """The round keys, 16 bytes each (FIPS-197 §5.2, KeyExpansion)."""
    nk, nr = len(key) // 4, ROUNDS[len(key)]
    w = [list(key[4 * i : 4 * i + 4]) for i in range(nk)]
    for i in range(nk, 4 * (nr + 1)):
        t = list(w[i - 1])
        if i % nk == 0:
            t = [SBOX[b] for b in t[1:] + t[:1]]
            t[0] ^= RCON[i // nk - 1]
        elif nk > 6 and i % nk == 4:
            t = [SBOX[b] for b in t]
        w.append([a ^ b for a, b in zip(w[i - nk], t, strict=True)])
    return [[b for word in w[4 * r : 4 * r + 4] for b in word] for r in range(nr + 1)]


def _shift(s: list[int], sign: int) -> list[int]:
    """ShiftRows (sign 1, §5.1.2) or InvShiftRows (sign -1, §5.3.1)."""
    return [s[(4 * (c + sign * r) + r) % 16] for c in range(4) for r in range(4)]


def _mix(s: list[int], m: tuple[int, int, int, int]) -> list[int]:
    """MixColumns with the circulant row ``m`` (§5.1.3 / §5.3.3)."""
    t = [MUL[k] for k in m]
    out = []
    for c in range(4):
        col = s[4 * c : 4 * c + 4]
        for r in range(4):
            v = 0
            for k in range(4):
                v ^= t[(k - r) % 4][col[k]]
            out.append(v)
    return out


def encrypt_block(rk: list[list[int]], block: bytes) -> bytes:
    """Cipher (FIPS-197 §5.1)."""
    s = [b ^ k for b, k in zip(block, rk[0], strict=True)]
    for r in range(1, len(rk)):
        s = _shift([SBOX[b] for b in s], 1)
        if r < len(rk) - 1:
            s = _mix(s, (2, 3, 1, 1))
        s = [b ^ k for b, k in zip(s, rk[r], strict=True)]
    return bytes(s)


def decrypt_block(rk: list[list[int]], block: bytes) -> bytes:
    """InvCipher (FIPS-197 §5.3)."""
    s = [b ^ k for b, k in zip(block, rk[-1], strict=True)]
    for r in range(len(rk) - 2, -1, -1):
        s = [INV_SBOX[b] for b in _shift(s, -1)]
        s = [b ^ k for b, k in zip(s, rk[r], strict=True)]
        if r > 0:
            s = _mix(s, (14, 11, 13, 9))
    return bytes(s)
