"""ChaCha20 (RFC 8439) in pure Python, one 64-byte block at a time: the quarter round
on a list of 16 32-bit words, the way a study's own Python code does it.
"""

from __future__ import annotations

import struct

CONSTANTS = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)  # "expand 32-byte k"
M32 = 0xFFFFFFFF


def _rotl(v: int, c: int) -> int:
    return ((v << c) & M32) | (v >> (32 - c))


def _quarter(s: list[int], a: int, b: int, c: int, d: int) -> None:
    """The ChaCha quarter round (RFC 8439 §2.2)."""
    s[a] = (s[a] + s[b]) & M32
    s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & M32
    s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & M32
    s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & M32
    s[b] = _rotl(s[b] ^ s[c], 7)


def block(key: bytes, counter: int, nonce: bytes) -> bytes:
    """The ChaCha20 block function (RFC 8439 §2.3): 64 bytes of key stream."""
    init = [
        *CONSTANTS,
        *struct.unpack("<8L", key),
        counter & M32,
        *struct.unpack("<3L", nonce),
    ]
    s = list(init)
    for _ in range(10):  # 20 rounds: column and diagonal rounds
        _quarter(s, 0, 4, 8, 12)
        _quarter(s, 1, 5, 9, 13)
        _quarter(s, 2, 6, 10, 14)
        _quarter(s, 3, 7, 11, 15)
        _quarter(s, 0, 5, 10, 15)
        _quarter(s, 1, 6, 11, 12)
        _quarter(s, 2, 7, 8, 13)
        _quarter(s, 3, 4, 9, 14)
    return struct.pack("<16L", *((a + b) & M32 for a, b in zip(s, init, strict=True)))


def crypt(key: bytes, counter: int, nonce: bytes, data: bytes) -> bytes:
    """Encryption and decryption (RFC 8439 §2.4): XOR with the key stream, block by
    block from ``counter``."""
    out = bytearray()
    for j in range(0, len(data), 64):
        ks = block(key, counter + j // 64, nonce)
        out += bytes(a ^ b for a, b in zip(data[j : j + 64], ks, strict=False))
    return bytes(out)
