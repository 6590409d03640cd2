"""aes-pycryptodome: the PyCryptodome library timed in-process, as the Python studies
timed it (a clock read before and after the library call).

    python -m ciphersweep.job.kernel_pycryptodome --cipher aes-128-cbc --op encrypt \\
        --input FILE [--impl pycryptodome|portable] --reps N --warmup W \\
        [--key-bits B] [--json FILE]

Two AES paths (``--impl``): ``pycryptodome``, the library's own choice (``AES.new(key,
mode)``: its AES-NI code on x86 CPUs that have AES-NI, ARMv8 Crypto Extensions on
AArch64, else its portable C code), and ``portable``, ``AES.new(key, mode,
use_aesni=False)``: the portable C code on every CPU. Every record names the AES code
that ran (``aes_path``: ``aesni``, ``armv8-ce`` or ``portable``; null for the other
ciphers, which have one path).

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
from Crypto.Util import _cpu_features
from Crypto.Util.Padding import pad, unpad

from ciphersweep.core import ciphers as cs_ciphers
from ciphersweep.job import pykernel

PROG = "aes-pycryptodome"
# --impl: the library's choice of AES code, or its portable C code (use_aesni=False)
IMPLS = ("pycryptodome", "portable")


def aes_path(c: cs_ciphers.Cipher, impl: str) -> str | None:
    """The AES code ``AES.new`` runs for ``impl``, decided as the library decides it:
    its hardware module (loaded only where the CPU has the instructions) unless
    ``use_aesni=False``; None for a cipher other than AES."""
    if not c.family.startswith("aes"):
        return None
    # PyCryptodome 4: _raw_aes_hw (AES-NI or ARMv8); 3.x: _raw_aesni_lib (AES-NI)
    hw = getattr(AES, "_raw_aes_hw", None) or getattr(AES, "_raw_aesni_lib", None)
    if impl == "portable" or not hw:
        return "portable"
    return "aesni" if _cpu_features.have_aes_ni() else "armv8-ce"


def factory(c: cs_ciphers.Cipher, impl: str = "pycryptodome") -> Callable[[], Any]:
    """A function making a fresh PyCryptodome cipher object for ``c`` (key and IV as
    OpenSSL's reference uses them) on the AES path ``impl`` asks for."""
    if impl == "portable" and not c.family.startswith("aes"):
        raise pykernel.KernelError(
            f"--impl portable: AES only ({c.name} has one path: --impl pycryptodome)"
        )
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
    # AES only: False selects the portable C code (the other ciphers have no such key)
    path: dict[str, Any] = {"use_aesni": False} if impl == "portable" else {}
    if c.mode == "ecb":
        return lambda: module.new(key, mode, **path)
    if c.mode == "ctr":
        # OpenSSL's CTR: the whole IV is one big-endian counter block
        return lambda: module.new(key, mode, nonce=b"", initial_value=iv, **path)
    return lambda: module.new(key, mode, iv=iv, **path)


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
    rep = one_rep(job.cipher, factory(job.cipher, ns.impl))
    rec0 = pykernel.base_record(ns, job, "pycryptodome", ns.impl)
    rec0["clock"] = "perf_counter"
    rec0["library_version"] = f"PyCryptodome {Crypto.__version__}"
    rec0["aes_path"] = aes_path(job.cipher, ns.impl)
    return pykernel.loop(ns, job, rec0, rep)


def _impl_flag(ap: Any) -> None:
    ap.add_argument("--impl", choices=IMPLS, default="pycryptodome")


def main(argv: Sequence[str] | None = None) -> int:
    ns = pykernel.parse_args(PROG, argv, _impl_flag)
    return pykernel.main(PROG, run, ns)


if __name__ == "__main__":
    sys.exit(main())
