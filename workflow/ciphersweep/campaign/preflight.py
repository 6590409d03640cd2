"""Checks of the machine a campaign is about to run on, before any job starts.

They only read (no file is created, changed or removed), so a dry run, ``--list`` or a
run refused by the lock stays free of side effects:

* the result paths: a directory where an output file belongs, a file where a directory
  belongs, a directory that cannot be written;
* memory: every point's input, output and reference buffers fit in the available
  memory of this machine (local runs);
* OpenSSL: every cipher of ``backends.openssl.ciphers`` is one the installed OpenSSL
  provides, or the provider it needs is installed (asked once per process);
* the history store (``history.enabled``): no file yet, or a whole store of a schema
  this release reads that can be written (read without adding a file beside it).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from ciphersweep.analysis import compare
from ciphersweep.analysis.history import store
from ciphersweep.core.units import size_label
from ciphersweep.plan.config import ConfigError
from ciphersweep.plan.sweep import Point

GIB = 2**30


def _fail(where: str, msg: str) -> ConfigError:
    return ConfigError(f"invalid config: {where}: {msg}")


# --------------------------------------------------------------------------- outputs


def output_problem(paths: Iterable[str | Path]) -> str | None:
    """Why the workflow could not write ``paths`` (None: it can), as one line. Each
    folder is looked at once (with the folders above it), and its entries with one
    listing where it exists: a 100,000-point campaign's raw files are one folder's,
    not 100,000 look-ups."""
    by_folder: dict[str, list[str]] = {}
    for path in map(os.fspath, paths):
        head, name = os.path.split(path)
        by_folder.setdefault(head, []).append(name)
    seen: set[Path] = set()
    for head, names in by_folder.items():
        folder = Path(head)
        problem = _folder_problem(folder, seen)
        if problem:
            return problem
        taken = _folders_among(folder, names) if folder.is_dir() else set()
        for name in filter(taken.__contains__, names):
            return f"{folder / name} is a directory (allowed: a file, or nothing there)"
    return None


def _folders_among(folder: Path, names: list[str]) -> set[str]:
    """Which of ``names`` are folders in ``folder``: one listing (each name looked up
    where the folder cannot be listed, only written)."""
    wanted = set(names)
    try:
        with os.scandir(folder) as entries:
            return {e.name for e in entries if e.name in wanted and e.is_dir()}
    except OSError:
        return {n for n in wanted if (folder / n).is_dir()}


def _folder_problem(folder: Path, seen: set[Path]) -> str | None:
    """Why nothing could be written in ``folder`` (None: it can): the nearest of it
    and the folders above it that is there decides (a file; a folder this user cannot
    write; the ones missing below it are made there). The folders above that one do not
    matter: a store at ``/project/team/history.sqlite`` needs ``/project/team``, not
    ``/``, to be writable. ``seen``: folders already decided, with all above them."""
    for parent in (folder, *folder.parents):
        if parent in seen:
            return None  # decided with a folder below it (a problem ended the check)
        seen.add(parent)
        if str(parent) in ("", ".") or not os.path.lexists(parent):
            continue  # the working directory, or made when written
        if not parent.is_dir():
            return f"{parent} is a file (allowed: a directory, or nothing there)"
        if not os.access(parent, os.W_OK | os.X_OK):
            return f"{parent} is not writable (allowed: a directory you can write)"
        return None
    return None


# --------------------------------------------------------------------------- uniqueness


def check_unique(cfg: dict[str, Any], outputs: Sequence[str | Path]) -> None:
    """Each output is made once: a table of ``tables`` named like a generic table (or
    like another table's ``per`` part) would be two jobs writing one file."""
    seen: set[str] = set()
    for path in map(str, outputs):
        if path in seen:
            name = Path(path).stem
            idx = [
                i
                for i, t in enumerate(cfg.get("tables") or [])
                if name == t["name"] or name.startswith(t["name"] + "_")
            ]
            where = f"tables[{idx[-1]}].name" if idx else "tables"
            raise _fail(
                where,
                f"{name!r} is the name of another table of this campaign (allowed: a "
                "name no generic table and no other table's per-value table takes)",
            )
        seen.add(path)


def check_references(cfg: dict[str, Any], points: Sequence[Point]) -> None:
    """Each of ``compare.references`` selects at least one point (a reference that
    selects none would check nothing, and a run meant to fail on it would pass)."""
    for i, ref in enumerate((cfg.get("compare") or {}).get("references", [])):
        if not compare.matching(points, compare.selector(ref["where"])):
            raise _fail(
                f"compare.references[{i}].where",
                f"{ref['where']!r} selects no point of this campaign (allowed: a "
                "selector of at least one point)",
            )


# --------------------------------------------------------------------------- memory


def buffer_bytes(point: Point) -> int:
    """Bytes a point's kernel holds at once on one machine: input, output and the
    reference output it is verified against (MPI: plus every rank's share of input and
    output, all on this machine in a local run), with a block of padding each."""
    n = point.size_bytes + 16
    if point.backend == "mpi" and point.ranks > 1:
        return 5 * n
    return 3 * n


def available_bytes(meminfo: str = "/proc/meminfo") -> int | None:
    """MemAvailable of this machine (None where the kernel does not say)."""
    try:
        text = Path(meminfo).read_text()
    except OSError:
        return None
    m = re.search(r"^MemAvailable:\s+(\d+) kB", text, re.MULTILINE)
    return int(m.group(1)) * 1024 if m else None


def _data_key(cfg: dict[str, Any], point: Point) -> str:
    if point.input_path is None:
        for i, s in enumerate(cfg["sizes"]):
            if size_label(s) == point.input_name:
                return f"sizes[{i}]"
        return "sizes"
    for i, item in enumerate(cfg["inputs"]):
        if item.get("name") == point.input_name:
            return f"inputs[{i}]"
    return "inputs"


def check_memory(
    cfg: dict[str, Any], points: Sequence[Point], available: int | None
) -> None:
    if available is None or not points:
        return
    worst = max(points, key=buffer_bytes)
    need = buffer_bytes(worst)
    if need > available:
        raise _fail(
            _data_key(cfg, worst),
            f"{worst.size_label} needs about {need / GIB:.1f} GiB for the input, output "
            f"and reference buffers of {worst.id}; {available / GIB:.1f} GiB of memory "
            "is available here (allowed: sizes whose buffers fit in available memory)",
        )


# --------------------------------------------------------------------------- OpenSSL


@lru_cache(maxsize=1)
def openssl_ciphers() -> tuple[frozenset[str], frozenset[str]] | None:
    """(names a provider of the installed OpenSSL offers, names libcrypto knows at all),
    lower case, from ``openssl list -cipher-algorithms`` with the default and the legacy
    provider (the legacy one only where it is installed); None without ``openssl``."""

    def ask(*providers: str) -> str | None:
        args = [a for p in providers for a in ("-provider", p)]
        try:
            proc = subprocess.run(
                ["openssl", "list", "-cipher-algorithms", *args],
                capture_output=True,
                text=True,
                timeout=20,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return proc.stdout if proc.returncode == 0 else None

    text = ask("default", "legacy") or ask("default")
    if text is None:
        return None
    provided: set[str] = set()
    known: set[str] = set()
    section = ""
    for line in text.splitlines():
        if line.strip().endswith(":") and not line.startswith(" "):
            section = line.strip()[:-1].lower()
            continue
        if section == "provided" and "@" in line:
            names = line.split("@")[0].strip().strip("{} ")
            provided.update(n.strip().lower() for n in names.split(","))
        elif section == "legacy":
            known.update(n.strip().lower() for n in line.split("=>"))
    return frozenset(provided), frozenset(known | provided)


def check_ciphers(cfg: dict[str, Any]) -> None:
    ssl = cfg["backends"].get("openssl")
    if ssl is None or cfg["platform"]["container"]["runtime"] != "none":
        return
    names = openssl_ciphers()
    if names is None:  # no openssl command: the kernel says it per point
        return
    provided, known = names
    for i, c in enumerate(ssl["ciphers"]):
        key = f"backends.openssl.ciphers[{i}]"
        low = c.lower()
        if low in provided:
            continue
        if low in known:
            raise _fail(
                key,
                f"{c!r} needs an OpenSSL provider that is not installed here (e.g. "
                "the legacy provider; allowed: ciphers of `openssl list "
                "-cipher-algorithms` marked @ default)",
            )
        raise _fail(
            key,
            f"{c!r} is not a cipher of the installed OpenSSL (allowed: a name from "
            "`openssl list -cipher-algorithms`, e.g. aes-128-ctr, aes-256-cbc, chacha20)",
        )


# --------------------------------------------------------------------------- history


def check_history_store(cfg: dict[str, Any]) -> None:
    """The store the campaign will append to, as it is now (only read)."""
    hist = cfg["history"]
    if not hist["enabled"]:
        return
    path = Path(hist["path"])
    try:
        store.check(path)
    except store.StoreError as exc:
        raise _fail("history.path", str(exc)) from None
    if path.is_file() and not os.access(path, os.W_OK):
        raise _fail(
            "history.path",
            f"history store {path}: cannot be written here (allowed: a store you can "
            "write, or history.enabled: false)",
        )


def check(
    cfg: dict[str, Any],
    points: Sequence[Point],
    outputs: Iterable[str | Path],
    local: bool = True,
) -> None:
    """Every check above; raises :class:`ConfigError` with one line."""
    outputs = list(outputs)
    check_unique(cfg, outputs)
    check_references(cfg, points)
    problem = output_problem(outputs)
    if problem:
        raise ConfigError(f"cannot write the results: {problem}")
    check_history_store(cfg)
    if local:
        check_memory(cfg, points, available_bytes())
    check_ciphers(cfg)
