"""aes-purepy: ciphers written in Python, one block at a time with S-box and
permutation tables, as a study's own Python code runs them: no library, no AES-NI, no
vector code. AES-128/192/256 and 3DES (three keys) in ECB with PKCS#7 padding, and
ChaCha20. Two implementations (``--impl``): ``purepy``, Python lists and ints
(:mod:`ciphersweep.job.pure_aes`, :mod:`ciphersweep.job.pure_des`,
:mod:`ciphersweep.job.pure_chacha`), and ``numpy``, NumPy arrays
(:mod:`ciphersweep.job.numpy_aes`, :mod:`ciphersweep.job.numpy_des`,
:mod:`ciphersweep.job.numpy_chacha`).

    python -m ciphersweep.job.kernel_purepy --cipher aes-128-ecb --op encrypt \\
        --input FILE [--impl purepy|numpy] --reps N --warmup W [--json FILE]

Timed region: the key schedule (``t_keyexp``), then padding and the block loop (or
the block loop and unpadding): ``t_compute``; ``t_total`` is both. Every output is
compared with OpenSSL EVP's for the same key, IV and input outside the timed region
(the loop of :mod:`ciphersweep.job.pykernel`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ciphersweep.core import ciphers as cs_ciphers
from ciphersweep.job import (
    numpy_aes,
    numpy_chacha,
    numpy_des,
    pure_aes,
    pure_chacha,
    pure_des,
    pykernel,
)

PROG = "aes-purepy"
SUPPORTED = ("aes-128-ecb", "aes-192-ecb", "aes-256-ecb", "des-ede3-ecb", "chacha20")
# --impl -> the modules of its AES, 3DES and ChaCha20
IMPLS: dict[str, tuple[Any, Any, Any]] = {
    "purepy": (pure_aes, pure_des, pure_chacha),
    "numpy": (numpy_aes, numpy_des, numpy_chacha),
}

Crypt = Callable[[bytes, bool], bytes]


def _pad(data: bytes, n: int) -> bytes:
    k = n - len(data) % n
    return data + bytes([k]) * k


def _unpad(data: bytes, n: int) -> bytes:
    k = data[-1] if data else 0
    if not 1 <= k <= n or data[-k:] != bytes([k]) * k:
        raise pykernel.KernelError("verification FAILED: bad PKCS#7 padding")
    return data[:-k]


def _ecb(schedule: Any, enc: Callable, dec: Callable, n: int) -> Crypt:
    """ECB over a block function, one block at a time (SP 800-38A §6.1)."""

    def crypt(data: bytes, encrypt: bool) -> bytes:
        f = enc if encrypt else dec
        src = _pad(data, n) if encrypt else data
        out = b"".join(f(schedule, src[i : i + n]) for i in range(0, len(src), n))
        return out if encrypt else _unpad(out, n)

    return crypt


def keyed(c: cs_ciphers.Cipher, impl: str = "purepy") -> Callable[[], Crypt]:
    """A function doing the key schedule of ``c`` (in implementation ``impl``) and
    returning its en/decryption."""
    if c.name not in SUPPORTED:
        raise pykernel.KernelError(
            f"--cipher: {c.name!r} (allowed: {', '.join(SUPPORTED)})"
        )
    aes, des, chacha = IMPLS[impl]
    key, iv = c.key(), c.iv()
    if c.family == "chacha20":
        # OpenSSL's IV = 32-bit little-endian block counter || 96-bit nonce
        counter, nonce = int.from_bytes(iv[:4], "little"), iv[4:]
        return lambda: lambda d, _e: chacha.crypt(key, counter, nonce, d)
    if c.family == "des-ede3":
        return lambda: _ecb(
            des.tdes_keys(key), des.tdes_encrypt_block, des.tdes_decrypt_block, 8
        )
    return lambda: _ecb(aes.expand_key(key), aes.encrypt_block, aes.decrypt_block, 16)


def one_rep(make: Callable[[], Crypt]) -> Callable[[pykernel.Job], pykernel.Rep]:
    def rep(job: pykernel.Job) -> pykernel.Rep:
        t0 = time.perf_counter()
        crypt = make()
        t1 = time.perf_counter()
        out = crypt(job.data, job.encrypt)
        t2 = time.perf_counter()
        return pykernel.Rep(
            t_total=t2 - t0, t_compute=t2 - t1, t_keyexp=t1 - t0, output=out
        )

    return rep


def run(ns: Any) -> list[dict[str, Any]]:
    job = pykernel.prepare(ns)
    rec0 = pykernel.base_record(ns, job, "purepy", ns.impl)
    rec0["clock"] = "perf_counter"
    rec0["library_version"] = f"NumPy {np.__version__}" if ns.impl == "numpy" else None
    return pykernel.loop(ns, job, rec0, one_rep(keyed(job.cipher, ns.impl)))


def _impl_flag(ap: Any) -> None:
    ap.add_argument("--impl", choices=tuple(IMPLS), default="purepy")


def main(argv: Sequence[str] | None = None) -> int:
    ns = pykernel.parse_args(PROG, argv, _impl_flag)
    return pykernel.main(PROG, run, ns)


if __name__ == "__main__":
    sys.exit(main())
