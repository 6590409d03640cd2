"""The user's own kernels (``backends.user.kernels``, docs/kernel-contract.md) as the
plan sees them: each checked before any job (one line naming the kernel and what is
wrong), and each ``source`` kernel's build: the files and settings it is made from,
their key, and where the workflow builds it (``build/user/<name>-<key>/``, so that an
edited source is a new build whose points are measured again in the same run).

A kernel is either a ``program`` (an executable, run as it is) or a ``source`` (a CMake
project the ``build_user_kernel`` rule builds with :mod:`ciphersweep.job.user_build`).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ciphersweep.core import ciphers as cs_ciphers
from ciphersweep.plan import fingerprint as cs_fp
from ciphersweep.plan.schema import fail as _fail

# where the workflow builds the user's kernels (relative to the working directory)
BUILD_ROOT = "build/user"
# what a build writes beside the program: its key, compiler, flags, or why it failed
BUILD_FILE = "build.json"
# the cmake arguments every build gets before the kernel's own
CMAKE_DEFAULTS = ("-DCMAKE_BUILD_TYPE=Release",)
# directories of a source tree that are not its sources (build trees, VCS, caches, a
# campaign run inside it: its results and Snakemake's records)
_SKIPPED = {".git", ".hg", ".svn", "__pycache__", "build", ".cache", "CMakeFiles"}
_SKIPPED |= {".snakemake", "results"}


@dataclass(frozen=True)
class Build:
    """One source kernel's build: made from ``sources`` with ``cmake_args``."""

    name: str
    source: str  # the CMake project (absolute)
    sources: tuple[str, ...]  # its files (absolute), in a fixed order
    cmake_args: tuple[str, ...]
    target: str | None  # the executable to take (None: the name, or the only one)
    key: str  # sha256:<hex> of the sources and settings

    @property
    def dir(self) -> str:
        """The build's directory (relative to the working directory)."""
        return f"{BUILD_ROOT}/{self.name}-{self.key.removeprefix('sha256:')[:12]}"

    @property
    def program(self) -> str:
        """The built program (relative to the working directory, as the rule's)."""
        return f"{self.dir}/{self.name}"

    @property
    def info(self) -> str:
        """The build's record (:data:`BUILD_FILE`): the build rule's output."""
        return f"{self.dir}/{BUILD_FILE}"

    @property
    def log(self) -> str:
        return f"{self.dir}.log"


def kernels(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """The campaign's user kernels (none without ``backends.user``)."""
    user = cfg["backends"].get("user")
    return list(user["kernels"]) if user is not None else []


def source_files(root: str | os.PathLike[str]) -> list[str]:
    """The files of a CMake project (absolute, sorted), without build trees (a
    directory holding ``CMakeCache.txt``), version control and caches."""
    out: list[str] = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIPPED
            and not d.startswith("cmake-build")
            and not os.path.exists(os.path.join(here, d, "CMakeCache.txt"))
        )
        out += [os.path.join(here, f) for f in sorted(files) if not f.endswith(".pyc")]
    return out


def build_of(kernel: dict[str, Any], workdir: str | os.PathLike[str] = ".") -> Build:
    """The build of a ``source`` kernel: its files and settings, their key."""
    src = os.path.abspath(os.path.join(workdir, kernel["source"]))
    files = source_files(src)
    args = (*CMAKE_DEFAULTS, *kernel.get("cmake_args", []))
    target = kernel.get("target")
    settings = ["cmake", *args, f"target={target or ''}"]
    key = cs_fp.build_key(files, settings, root=src)
    return Build(kernel["name"], src, tuple(files), args, target, key)


def builds(
    cfg: dict[str, Any], workdir: str | os.PathLike[str] = "."
) -> dict[str, Build]:
    """Every source kernel's build, by its directory's name (``<name>-<key>``)."""
    out = {}
    for k in kernels(cfg):
        if k.get("source") is not None:
            b = build_of(k, workdir)
            out[os.path.basename(b.dir)] = b
    return out


def kernel_file(program: str, build_key: str | None) -> str:
    """What a user kernel's points depend on: its build's record (:data:`BUILD_FILE`,
    the build rule's output) for a source kernel, else its program."""
    return os.path.join(os.path.dirname(program), BUILD_FILE) if build_key else program


def program_of(kernel: dict[str, Any], workdir: str | os.PathLike[str] = ".") -> str:
    """The program a kernel's points run (absolute): its ``program``, or its build's."""
    if kernel.get("program") is not None:
        return os.path.abspath(os.path.join(workdir, kernel["program"]))
    return build_of(kernel, workdir).program


# ------------------------------------------------------------------ checks


def check(cfg: dict[str, Any], workdir: str | os.PathLike[str]) -> None:
    """``backends.user.kernels``: unique names, exactly one of source and program, a
    program that is an executable file, a source that is a CMake project (both made
    absolute here), ciphers OpenSSL can check, ranks, threads and GPUs the cluster
    has; native runs only, one record per repetition, OpenSSL's padding."""
    user = cfg["backends"].get("user")
    if user is None:
        return
    runtime = cfg["platform"]["container"]["runtime"]
    seen: set[str] = set()
    for i, k in enumerate(user["kernels"]):
        at = ["backends", "user", "kernels", i]
        name = k["name"]
        if name in seen:
            raise _fail(at + ["name"], f"{name!r} is used twice (names must be unique)")
        seen.add(name)
        _check_where(k, at, workdir)
        _check_ciphers(k, at)
        _check_counts(k, at, cfg["cluster"])
    if runtime != "none":
        raise _fail(
            ["backends", "user"],
            f"runs natively only (allowed with platform.container.runtime: none, not {runtime})",
        )
    why = {
        "batch": ("a user kernel prints one record per repetition", 1),
        "nopad": ("a user kernel's output is checked as OpenSSL pads it", False),
    }
    for key, (reason, allowed) in why.items():
        if cfg.get(key, allowed) != allowed:
            shown = "null" if allowed is None else str(allowed).lower()
            raise _fail(
                key, f"not with backends.user ({reason}; allowed: {key}: {shown})"
            )


def _check_where(k: dict[str, Any], at: list[Any], workdir: Any) -> None:
    """Exactly one of ``source`` and ``program``; each usable as it is."""
    name, src, prog = k["name"], k.get("source"), k.get("program")
    if (src is None) == (prog is None):
        raise _fail(
            at,
            f"kernel {name!r}: give either source (a CMake project) or program (an "
            "executable), not " + ("both" if src else "neither"),
        )
    if prog is not None:
        path = Path(workdir, prog)
        found = shutil.which(prog) if "/" not in prog else None
        if not path.exists() and found:  # a bare name found on PATH
            path = Path(found)
        if not path.exists():
            raise _fail(at + ["program"], f"kernel {name!r}: {prog} does not exist")
        if not path.is_file() or not os.access(path, os.X_OK):
            raise _fail(
                at + ["program"],
                f"kernel {name!r}: {prog} is not an executable file (chmod +x?)",
            )
        for key in ("target", "cmake_args"):
            if k.get(key):
                raise _fail(
                    at + [key], f"kernel {name!r}: only with source, not program"
                )
        k["program"] = os.path.abspath(path)
        return
    path = Path(workdir, src)
    if not path.is_dir():
        raise _fail(at + ["source"], f"kernel {name!r}: {src} is not a directory")
    if not (path / "CMakeLists.txt").is_file():
        raise _fail(
            at + ["source"],
            f"kernel {name!r}: {src} is not a CMake project (no CMakeLists.txt in it)",
        )
    k["source"] = os.path.abspath(path)


def _check_ciphers(k: dict[str, Any], at: list[Any]) -> None:
    """Ciphers OpenSSL checks the kernel's output against, each once."""
    for j, c in enumerate(k["ciphers"]):
        try:
            cs_ciphers.cipher(c)
        except ValueError as exc:
            raise _fail(at + ["ciphers", j], f"kernel {k['name']!r}: {exc}") from None
        if c in k["ciphers"][:j]:
            raise _fail(at + ["ciphers", j], f"{c!r} is given twice")


def _check_counts(k: dict[str, Any], at: list[Any], cluster: dict[str, Any]) -> None:
    """Ranks, threads and GPUs within the cluster, each value once."""
    limits = {
        "ranks": (1, int(cluster["max_ranks"]), "cluster.max_ranks"),
        "threads": (1, int(cluster["cores_per_node"]), "cluster.cores_per_node"),
        "gpus": (1, int(cluster["gpus_per_node"]), "cluster.gpus_per_node"),
    }
    for key, (lo, hi, where) in limits.items():
        values = k.get(key) or []
        for j, v in enumerate(values):
            if not lo <= v <= hi:
                raise _fail(
                    at + [key, j], f"{v} is out of range (allowed: {lo}..{hi}, {where})"
                )
            if v in values[:j]:
                raise _fail(at + [key, j], f"{v} is given twice")
