"""aes-pycryptodome: the PyCryptodome library timed in-process, as the Python studies
timed it (a clock read before and after the library call).

    python -m ciphersweep.job.kernel_pycryptodome --cipher aes-128-cbc --op encrypt \\
        --input FILE --reps N --warmup W [--key-bits B] [--json FILE]

Timed region: the cipher object's creation (key schedule: ``t_keyexp``), then the
PKCS#7 padding (ECB, CBC) and ``encrypt`` (or ``decrypt`` and the unpadding):
``t_compute``; ``t_total`` is both. Every output is compared with OpenSSL EVP's for
the same key, IV and input outside the timed region (decryption reads OpenSSL's
ciphertext of the input and must give the input back).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import Crypto
from Crypto.Cipher import AES, DES, DES3, Blowfish, ChaCha20
from Crypto.Util.Padding import pad, unpad

from ciphersweep.core import ciphers as cs_ciphers
from ciphersweep.job import pykernel

PROG = "aes-pycryptodome"


def factory(c: cs_ciphers.Cipher) -> Callable[[], Any]:
    """A function making a fresh PyCryptodome cipher object for ``c`` (key and IV as
    OpenSSL's reference uses them)."""
    key, iv = c.key(), c.iv()
    if c.family == "chacha20":
        # OpenSSL's IV = 32-bit little-endian block counter || 96-bit nonce
        counter = int.from_bytes(iv[:4], "little")

        def chacha() -> Any:
            obj = ChaCha20.new(key=key, nonce=iv[4:])
            if counter:
                obj.seek(64 * counter)
            return obj

        return chacha
    module: Any = {"des": DES, "des-ede3": DES3, "bf": Blowfish}.get(c.family, AES)
    mode = {
        "ecb": module.MODE_ECB,
        "cbc": module.MODE_CBC,
        "ofb": module.MODE_OFB,
        "ctr": getattr(module, "MODE_CTR", None),
    }[c.mode]
    if c.mode == "ecb":
        return lambda: module.new(key, mode)
    if c.mode == "ctr":
        # OpenSSL's CTR: the whole IV is one big-endian counter block
        return lambda: module.new(key, mode, nonce=b"", initial_value=iv)
    return lambda: module.new(key, mode, iv=iv)


def one_rep(
    c: cs_ciphers.Cipher, make: Callable[[], Any]
) -> Callable[[pykernel.Job], pykernel.Rep]:
    def rep(job: pykernel.Job) -> pykernel.Rep:
        t0 = time.perf_counter()
        obj = make()
        t1 = time.perf_counter()
        if job.encrypt:
            out = obj.encrypt(pad(job.data, c.block) if c.padded else job.data)
        else:
            out = obj.decrypt(job.data)
            if c.padded:
                try:
                    out = unpad(out, c.block)
                except ValueError as exc:
                    raise pykernel.KernelError(f"verification FAILED: {exc}") from None
        t2 = time.perf_counter()
        return pykernel.Rep(
            t_total=t2 - t0, t_compute=t2 - t1, t_keyexp=t1 - t0, output=out
        )

    return rep


def run(ns: Any) -> list[dict[str, Any]]:
    job = pykernel.prepare(ns)
    rec0 = pykernel.base_record(ns, job, "pycryptodome", "pycryptodome")
    rec0["clock"] = "perf_counter"
    rec0["library_version"] = f"PyCryptodome {Crypto.__version__}"
    rep = one_rep(job.cipher, factory(job.cipher))
    return pykernel.loop(ns, job, rec0, rep)


def main(argv: Sequence[str] | None = None) -> int:
    ns = pykernel.parse_args(PROG, argv)
    return pykernel.main(PROG, run, ns)


if __name__ == "__main__":
    sys.exit(main())
