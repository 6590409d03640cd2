"""Writing a set of output files all or nothing.

The analysis writes every output under a temporary name next to it and renames them
into place only when all were written: a failed or interrupted analysis leaves the
previous outputs as they were, never half-written (the rules mark these outputs
``update``, so Snakemake keeps them too when the job fails). A temporary file left by
a writer that was killed (``kill -9``) is removed by the next write of the same file;
temporary names are hidden (``.<name>.<pid>.tmp<suffix>``), and :func:`is_temp` tells
them from outputs."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

_TEMP_RE = re.compile(r"^\..+\.[0-9]+\.tmp(\.[^.]*)?$")


def temp_name(path: str | Path, pid: int | None = None) -> Path:
    """A hidden name beside ``path`` with the same suffix (writers pick the format
    from it)."""
    p = Path(path)
    return p.with_name(f".{p.stem}.{os.getpid() if pid is None else pid}.tmp{p.suffix}")


def is_temp(path: str | Path) -> bool:
    """Whether ``path`` is a temporary name of this module (never an output)."""
    return bool(_TEMP_RE.match(Path(path).name))


def remove_leftovers(path: str | Path) -> list[Path]:
    """Remove the temporary files of ``path`` that earlier writers left (a writer
    killed before it could clean up); returns what was removed."""
    p = Path(path)
    if not p.parent.is_dir():
        return []
    prefix, mine = f".{p.stem}.", temp_name(p)
    gone = []
    for f in p.parent.iterdir():
        rest = f.name.removeprefix(prefix)
        if (
            f.name.startswith(prefix)
            and f != mine
            and rest == f"{rest.split('.', 1)[0]}.tmp{p.suffix}"
            and rest.split(".", 1)[0].isdigit()
            and f.is_file()
        ):
            f.unlink(missing_ok=True)
            gone.append(f)
    return gone


@contextmanager
def replacing(paths: Sequence[str | Path]) -> Iterator[list[Path]]:
    """Yield temporary paths for ``paths``; rename them into place if the block ends
    normally, remove them if it raises."""
    tmps = [temp_name(p) for p in paths]
    for p, t in zip(paths, tmps):
        t.parent.mkdir(parents=True, exist_ok=True)
        remove_leftovers(p)
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
