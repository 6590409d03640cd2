"""THE registry of backends: every backend, built-in or the user's, is one module of
this package declaring a :class:`~ciphersweep.backends.base.Backend` as ``BACKEND``;
:data:`ALL` is the one list of them, in their ``order``. Adding a Python-side backend
is its module here and its kernel in ``job/kernel_<name>.py`` (docs/architecture.md).
"""

from __future__ import annotations

import importlib
import pkgutil

from ciphersweep.backends.base import KINDS, Backend

# modules of this package that declare no backend
_NOT_BACKENDS = {"base", "codepath"}


def _discover() -> tuple[Backend, ...]:
    found = []
    for mod in pkgutil.iter_modules(__path__):
        if mod.name not in _NOT_BACKENDS:
            found.append(importlib.import_module(f"{__name__}.{mod.name}").BACKEND)
    return tuple(sorted(found, key=lambda b: b.order))


ALL: tuple[Backend, ...] = _discover()
BY_NAME = {b.name: b for b in ALL}
NAMES = tuple(BY_NAME)


def get(name: str) -> Backend:
    """The backend named ``name`` (KeyError: there is none)."""
    return BY_NAME[name]


def names(*kinds: str) -> tuple[str, ...]:
    """The backends of these kinds (every backend without), in order."""
    bad = set(kinds) - set(KINDS)
    if bad:
        raise ValueError(f"unknown backend kinds {sorted(bad)} (allowed: {KINDS})")
    return tuple(b.name for b in ALL if not kinds or b.kind in kinds)


def where(**facts: object) -> tuple[str, ...]:
    """The backends whose fields equal ``facts`` (``named=True``...), in order."""
    return tuple(
        b.name for b in ALL if all(getattr(b, k) == v for k, v in facts.items())
    )


__all__ = ["ALL", "BY_NAME", "NAMES", "Backend", "get", "names", "where"]
