"""aes-pycryptodome (job/kernel_pycryptodome.py): the PyCryptodome library timed
in-process, AES on the library's own path or its portable C code."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ciphersweep.backends.base import Backend, axis, section

NAME = "pycryptodome"


def _impls_for(cipher: str, cfg: Mapping[str, Any]) -> list[str]:
    """Each AES cipher once per impl (AES path); every other cipher, which has one
    path, once as the library's own."""
    return list(cfg["impls"]) if cipher.lower().startswith("aes-") else [NAME]


# backends.pycryptodome in a campaign file (the JSON Schema of its section)
CONFIG = section(
    {
        "ciphers": axis("string", ["aes-128-cbc"]),
        "impls": axis(
            {"enum": [NAME, "portable"]},
            [NAME],
            uniqueItems=True,
            description="the AES code: pycryptodome, the library's own choice (AES-NI "
            "or ARMv8 Crypto Extensions where the CPU has them, as AES.new(key, mode) "
            "runs); portable, AES.new(..., use_aesni=False), its portable C code. Each "
            "AES cipher runs once per impl, every other cipher (one path) once, as "
            "pycryptodome; the record's aes_path names the code that ran",
        ),
    },
    description="the PyCryptodome library timed in-process (aes-pycryptodome)",
)

BACKEND = Backend(
    name=NAME,
    kind="python",
    order=60,
    impls=(NAME, "portable"),
    kernel_module=f"kernel_{NAME}",
    named=True,
    cipher_list=True,
    library_mode=True,
    cipher_flag=True,
    impl_flag=True,
    own_impl=NAME,
    start_s=0.3,
    rates={NAME: 20e6},
    impl_kinds={"": "library"},
    traits={"": ("python",)},
    libraries={"": (("PyCryptodome", "Crypto"),)},
    native_only=True,
    impls_for=_impls_for,
    config=CONFIG,
)
