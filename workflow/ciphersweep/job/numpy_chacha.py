"""ChaCha20 (RFC 8439) in Python with NumPy arrays, one 64-byte block at a time,
written from the description of Centellas Claros et al. (2021, §4.3, §5.2): the
state is a NumPy array of 16 32-bit words (constants, key, block counter, nonce,
little-endian, RFC 8439 §2.3); 20 rounds of quarter rounds, alternately on the
columns and the diagonals; the initial state added word by word modulo 2^32; the
key-stream block XORed with the data. The four quarter rounds of a round run on
arrays of four words (one NumPy operation covers the four columns, or the four
diagonals), which is the same arithmetic as RFC 8439 §2.2's four calls.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ciphersweep.job import pure_chacha

Words = npt.NDArray[np.uint32]

CONSTANTS = np.array(pure_chacha.CONSTANTS, dtype=np.uint32)  # "expand 32-byte k"


def _rotl(v: Words, c: int) -> Words:
    out: Words = (v << np.uint32(c)) | (v >> np.uint32(32 - c))
    return out


def _quarter(a: Words, b: Words, c: Words, d: Words) -> None:
    """The quarter round (RFC 8439 §2.2) on four lanes at once (in place; uint32
    arithmetic wraps modulo 2^32)."""
    a += b
    d[:] = _rotl(d ^ a, 16)
    c += d
    b[:] = _rotl(b ^ c, 12)
    a += b
    d[:] = _rotl(d ^ a, 8)
    c += d
    b[:] = _rotl(b ^ c, 7)


def initial_state(key: bytes, counter: int, nonce: bytes) -> Words:
    """The 4x4 initial state (RFC 8439 §2.3), rows: constants, key (two rows),
    counter and nonce."""
    words = np.concatenate(
        [
            CONSTANTS,
            np.frombuffer(key, dtype="<u4"),
            np.array([counter & 0xFFFFFFFF], dtype=np.uint32),
            np.frombuffer(nonce, dtype="<u4"),
        ]
    )
    return words.astype(np.uint32).reshape(4, 4)


def block(key: bytes, counter: int, nonce: bytes) -> bytes:
    """The ChaCha20 block function (RFC 8439 §2.3): 64 bytes of key stream."""
    init = initial_state(key, counter, nonce)
    s = init.copy()
    for _ in range(10):
        _quarter(s[0], s[1], s[2], s[3])  # column round: QR(0,4,8,12) ...
        # diagonal round: QR(0,5,10,15), QR(1,6,11,12) ...: rows 1..3 rotated left
        # by 1..3 put each diagonal in one column
        b, c, d = np.roll(s[1], -1), np.roll(s[2], -2), np.roll(s[3], -3)
        _quarter(s[0], b, c, d)
        s[1], s[2], s[3] = np.roll(b, 1), np.roll(c, 2), np.roll(d, 3)
    return (s + init).astype("<u4").tobytes()


def crypt(key: bytes, counter: int, nonce: bytes, data: bytes) -> bytes:
    """Encryption and decryption (RFC 8439 §2.4): the data XOR the key stream, one
    64-byte block at a time from ``counter``."""
    src = np.frombuffer(data, dtype=np.uint8)
    out = np.empty_like(src)
    for j in range(0, len(src), 64):
        ks = np.frombuffer(block(key, counter + j // 64, nonce), dtype=np.uint8)
        n = min(64, len(src) - j)
        out[j : j + n] = src[j : j + n] ^ ks[:n]
    return out.tobytes()
