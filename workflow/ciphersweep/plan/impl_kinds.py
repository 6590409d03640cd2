"""The kind of code every built-in implementation is, declared once: a byte-oriented
AES, a T-table one, one on the CPU's AES instructions, a library, a command-line
program, ... A study's finding about one kind of implementation is judged only on
points of that kind: a claim's side names the study's kind (``kind:`` in the claims
file) and the comparison checks the measured points' kinds, from here, against it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ciphersweep import backends as registry

# kind -> what code of that kind is
KINDS: dict[str, str] = {
    "byte-oriented": "AES as FIPS-197 writes it: a byte state, S-box lookups, xtime "
    "MixColumns, one block at a time (tiny-AES-c; aes_ref.c)",
    "table": "AES with T-tables: a round as table lookups on 32-bit columns",
    "aes-ni": "AES on the CPU's AES instructions (AES-NI, VAES; PCLMULQDQ for GHASH)",
    "ascon-reference": "Ascon as the standard writes it, step by step (the Ascon "
    "team's ref)",
    "ascon-64bit": "Ascon on 64-bit words, rounds unrolled (the Ascon team's opt64)",
    "ascon-compact": "Ascon in few instructions: one round function in a loop (the "
    "Ascon team's opt64_lowsize)",
    "gpu": "a CUDA kernel on a GPU",
    "library": "a cryptographic library called in-process (OpenSSL EVP, a Python library)",
    "cli": "a command-line program run as a process per message (openssl enc, ...)",
    "pure-python": "Python code on lists and integers",
    "numpy": "Python code on NumPy arrays",
    "user": "a user's own kernel (backends.user, docs/kernel-contract.md)",
}

# the impls of the C kernels' dispatch (kernels/src/aes.h, aead.h); a backend whose
# impls are its own declares their kinds (its ``impl_kinds``: every impl of one kind
# where its impl names are the user's, or paths inside one library)
_BY_IMPL = {
    "ref": "byte-oriented",
    "gcm-byte": "byte-oriented",
    "ttable": "table",
    "gcm-ref": "table",
    "aesni": "aes-ni",
    "vaes256": "aes-ni",
    "vaes": "aes-ni",
    "gcm-aesni": "aes-ni",
    "ascon-ref": "ascon-reference",
    "ascon-opt64": "ascon-64bit",
    "ascon-lowsize": "ascon-compact",
}


def kind_of(backend: str, impl: str) -> str | None:
    """The kind of a point's implementation; None where the kernel picks it at run
    time (``auto``: the best the machine has)."""
    b = registry.BY_NAME.get(backend)
    return (b.kind_of(impl) if b is not None else None) or _BY_IMPL.get(impl)


def claim_sides(c: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every side selector of a claim, in its order: ``faster``, ``slower``, each item
    of ``order`` (a tier's members one by one), the ``where`` of each stated value."""
    for key in ("faster", "slower"):
        if isinstance(c.get(key), dict):
            yield c[key]
    order = c.get("order")
    for item in order if isinstance(order, list) else []:
        yield from (
            s
            for s in (item if isinstance(item, list) else [item])
            if isinstance(s, dict)
        )
    expect = c.get("expect")
    for e in expect if isinstance(expect, list) else []:
        if isinstance(e, dict) and isinstance(e.get("where"), dict):
            yield e["where"]


def stated_kinds(side: dict[str, Any], where: dict[str, Any]) -> list[str]:
    """The kinds a side names (``kind:``, one or a list), else its claim's ``where``
    names for every side; empty where neither does."""
    want = side.get("kind", where.get("kind"))
    if want is None:
        return []
    return [str(k) for k in want] if isinstance(want, list) else [str(want)]
