"""SHA-256 digests of files, read in 1 MiB chunks: of one file, or of several files
(their names and contents) as one value."""

from __future__ import annotations

import hashlib
import os
from typing import Any

CHUNK = 1 << 20


def hash_file(h: Any, path: str | os.PathLike[str]) -> None:
    """Feed the bytes of ``path`` into the hash object ``h``."""
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            h.update(chunk)


def file_hexdigest(path: str | os.PathLike[str]) -> str:
    """The hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    hash_file(h, path)
    return h.hexdigest()


def files_digest(
    files: list[str], extra: str = "", root: str | os.PathLike[str] | None = None
) -> str:
    """``sha256:<hex>`` over the names and contents of ``files`` (in the given order)
    and ``extra``: what the kernels are built from, as one value. With ``root`` the
    names are hashed relative to it, so a checkout moved or cloned elsewhere gives the
    same value for the same files."""
    h = hashlib.sha256(extra.encode() + b"\0")
    for name in files:
        shown = os.path.relpath(name, root) if root is not None else name
        h.update(shown.encode() + b"\0")
        hash_file(h, name)
    return f"sha256:{h.hexdigest()}"
