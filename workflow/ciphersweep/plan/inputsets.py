"""Input files and file sets of a campaign (config ``sizes`` and ``inputs``).

Every input becomes one file a point reads: a generated file per size, a user file,
or each member of a set. A set is every file a glob (or directory) matches, or
``count`` generated files whose sizes follow a distribution between ``min`` and
``max``; a generated set depends only on the campaign seed and the set's name, so
the same config always makes the same files; ``files_per_set`` replaces every
generated set's ``count`` (fewer files: with uniform sizes, the first files of the
full set). Members are named ``<set>.<nnn>``
(1-based, in sorted path order or generation order); tables aggregate over a set.
"""

from __future__ import annotations

import glob
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ciphersweep.core.units import parse_size, size_label


@dataclass(frozen=True)
class InputFile:
    """One input: its name in point ids, size, user path (None: generated) and set."""

    name: str
    size_bytes: int
    path: str | None
    set_name: str | None = None
    seed: int | None = None  # generated files: the generator's seed


def set_sizes(
    count: int, lo: int, hi: int, distribution: str, seed: int, name: str
) -> list[int]:
    """Sizes of a generated set: ``count`` values in [lo, hi], deterministic by
    (seed, name). ``uniform``: drawn at random; ``even``: evenly spaced, lo and hi
    included."""
    if lo < 1 or hi < lo:
        raise ValueError(f"sizes {lo}..{hi} (allowed: 1 <= min <= max)")
    if distribution == "even":
        if count == 1:
            return [lo]
        return [lo + round(i * (hi - lo) / (count - 1)) for i in range(count)]
    rng = random.Random(f"ciphersweep:{seed}:{name}")
    return [rng.randint(lo, hi) for _ in range(count)]


def file_seed(seed: int, name: str) -> int:
    """Seed of one generated member file (distinct contents per member)."""
    return random.Random(f"ciphersweep-file:{seed}:{name}").randrange(2**31)


def member(set_name: str, i: int, count: int) -> str:
    return f"{set_name}.{i + 1:0{max(3, len(str(count)))}d}"


def matched_files(item: dict[str, Any], workdir: str | Path = ".") -> list[str]:
    """The files a ``glob`` or ``dir`` set names (sorted; relative as written)."""
    pattern = item["glob"] if "glob" in item else os.path.join(item["dir"], "*")
    base = Path(workdir)
    full = pattern if os.path.isabs(pattern) else str(base / pattern)
    found = sorted(glob.glob(full))
    out = []
    for f in found:
        if not os.path.isfile(f):
            continue
        out.append(f if os.path.isabs(pattern) else os.path.relpath(f, base))
    return out


def expand(cfg: dict[str, Any], workdir: str | Path = ".") -> list[InputFile]:
    """Every input of a (validated) config, in table column order: sizes, then inputs."""
    out = [InputFile(size_label(s), parse_size(s), None) for s in cfg["sizes"]]
    seed = int(cfg.get("seed", 1))
    for item in cfg["inputs"]:
        name = item["name"]
        if "path" in item:
            path = item["path"]
            full = path if os.path.isabs(path) else os.path.join(workdir, path)
            out.append(InputFile(name, os.path.getsize(full), path))
        elif "generate" in item:
            g = item["generate"]
            sizes = set_sizes(
                int(cfg.get("files_per_set") or g["count"]),
                parse_size(g["min"]),
                parse_size(g["max"]),
                g.get("distribution", "uniform"),
                seed,
                name,
            )
            for i, n in enumerate(sizes):
                m = member(name, i, len(sizes))
                out.append(InputFile(m, n, None, name, file_seed(seed, m)))
        else:
            files = matched_files(item, workdir)
            for i, f in enumerate(files):
                full = f if os.path.isabs(f) else os.path.join(workdir, f)
                out.append(
                    InputFile(
                        member(name, i, len(files)), os.path.getsize(full), f, name
                    )
                )
    return out


def check(item: dict[str, Any], workdir: str | Path = ".") -> tuple[str, str] | None:
    """(key, message) of what is wrong with one ``inputs`` item, or None."""
    kinds = [k for k in ("path", "glob", "dir", "generate") if k in item]
    if len(kinds) != 1:
        return "", (
            f"give exactly one of path, glob, dir, generate (got {', '.join(kinds) or 'none'})"
        )
    kind = kinds[0]
    if kind == "generate":
        g = item["generate"]
        try:
            lo, hi = parse_size(g["min"]), parse_size(g["max"])
        except (ValueError, TypeError) as exc:
            return "generate", str(exc)
        if lo < 1 or hi < lo:
            return (
                "generate",
                f"min {g['min']!r} > max {g['max']!r} (allowed: 1 B <= min <= max)",
            )
        return None
    if kind == "dir":
        d = Path(item["dir"])
        d = d if d.is_absolute() else Path(workdir) / d
        if not d.is_dir():
            return "dir", f"{item['dir']!r}: no such directory"
    if kind in ("glob", "dir"):
        files = matched_files(item, workdir)
        if not files:
            return (
                kind,
                f"{item[kind]!r} matches no file (allowed: a set of at least one file)",
            )
        for f in files:
            full = Path(f) if os.path.isabs(f) else Path(workdir) / f
            if full.stat().st_size < 1 or not os.access(full, os.R_OK):
                return (
                    kind,
                    f"{f!r} is empty or unreadable (allowed: readable files of at least 1 byte)",
                )
    return None
