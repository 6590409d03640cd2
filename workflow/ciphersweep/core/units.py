"""Data sizes with units, as the kernels accept them (KB = 1000, KiB = 1024)."""

from __future__ import annotations

import re

_FACTORS = {
    "": 1,
    "B": 1,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "KIB": 1024,
    "MIB": 1024**2,
    "GIB": 1024**3,
}
_SIZE_RE = re.compile(r"^\s*([0-9]+)\s*([A-Za-z]*)\s*$")
ALLOWED = "N, NB, NKB, NMB, NGB, NKiB, NMiB, NGiB (KB = 1000, KiB = 1024; N >= 1)"
MAX_BYTES = 2**40  # 1 TiB: far above any machine's memory, within every size type


def _bounded(value: str | int, n: int) -> int:
    if n < 1:
        raise ValueError(f"{value!r} is not a size (allowed: {ALLOWED})")
    if n > MAX_BYTES:
        raise ValueError(
            f"{value!r} is too large (allowed: at most 1TiB, {MAX_BYTES} bytes)"
        )
    return n


def parse_size(value: str | int) -> int:
    """Return the size in bytes; raise ValueError with the allowed forms otherwise."""
    if isinstance(value, bool):
        raise TypeError(f"{value!r} is not a size (allowed: {ALLOWED})")
    if isinstance(value, int):
        return _bounded(value, value)
    m = _SIZE_RE.match(str(value))
    if not m or m.group(2).upper() not in _FACTORS:
        raise ValueError(f"{value!r} is not a size (allowed: {ALLOWED})")
    return _bounded(value, int(m.group(1)) * _FACTORS[m.group(2).upper()])


def size_label(value: str | int) -> str:
    """Canonical label of a size for file names and table columns (``1KiB``, ``15MB``)."""
    if isinstance(value, int):
        return f"{value}B"
    m = _SIZE_RE.match(str(value))
    if not m:
        raise ValueError(f"{value!r} is not a size (allowed: {ALLOWED})")
    unit = m.group(2).upper()
    canon = {
        "": "B",
        "B": "B",
        "KB": "KB",
        "MB": "MB",
        "GB": "GB",
        "KIB": "KiB",
        "MIB": "MiB",
        "GIB": "GiB",
    }[unit]
    return f"{int(m.group(1))}{canon}"


def human_bytes(n: int) -> str:
    """Short human label for a byte count (binary units where exact)."""
    for unit, f in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n % f == 0:
            return f"{n // f}{unit}"
    return f"{n}B"


# ------------------------------------------------------------------ per data size
# the formulas over a data size, one place each: every table, plot, comparison and
# summary column that shows a rate or an amount per MB computes it here

MB = _FACTORS["MB"]  # MB/s and J/MB: MB = 10^6 bytes


def rate(nbytes: float, seconds: float | None, per: float = MB) -> float | None:
    """Throughput: ``nbytes`` over ``seconds``, in units of ``per`` bytes a second
    (MB/s by default; MiB/s with 2^20); None where the time is missing (None, NaN) or
    not above 0."""
    if seconds is None or not seconds > 0:
        return None
    return nbytes / seconds / per


def per_mb(amount: float, nbytes: float) -> float:
    """An amount (joules) per MB of data: J/MB (MB = 10^6 bytes)."""
    return amount / (nbytes / MB)
