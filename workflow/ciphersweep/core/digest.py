"""One digest over a list of files: what the kernels are built from, as one value."""

from __future__ import annotations

import hashlib


def files_digest(files: list[str], extra: str = "") -> str:
    """``sha256:<hex>`` over the names and contents of ``files`` (in the given order)
    and ``extra``: what the kernels are built from, as one value."""
    h = hashlib.sha256(extra.encode() + b"\0")
    for name in files:
        h.update(name.encode() + b"\0")
        with open(name, "rb") as fh:
            for chunk in iter(lambda fh=fh: fh.read(1 << 20), b""):
                h.update(chunk)
    return f"sha256:{h.hexdigest()}"
