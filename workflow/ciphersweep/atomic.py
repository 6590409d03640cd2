"""Writing a set of output files all or nothing.

The analysis writes every output under a temporary name next to it and renames them
into place only when all were written: a failed or interrupted analysis leaves the
previous outputs as they were, never half-written (the rules mark these outputs
``update``, so Snakemake keeps them too when the job fails)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


def temp_name(path: str | Path) -> Path:
    """A hidden name beside ``path`` with the same suffix (writers pick the format
    from it)."""
    p = Path(path)
    return p.with_name(f".{p.stem}.{os.getpid()}.tmp{p.suffix}")


@contextmanager
def replacing(paths: Sequence[str | Path]) -> Iterator[list[Path]]:
    """Yield temporary paths for ``paths``; rename them into place if the block ends
    normally, remove them if it raises."""
    tmps = [temp_name(p) for p in paths]
    for t in tmps:
        t.parent.mkdir(parents=True, exist_ok=True)
    try:
        yield tmps
    except BaseException:
        for t in tmps:
            if t.is_file():
                t.unlink()
        raise
    for t, p in zip(tmps, paths):
        os.replace(t, p)


def write_text(path: str | Path, text: str) -> None:
    """``path`` holds ``text`` in full, or keeps what it held."""
    with replacing([path]) as (tmp,):
        tmp.write_text(text)
