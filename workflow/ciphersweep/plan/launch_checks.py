"""Checks of what a job will be handed, made when the campaign is read: the launcher's
own options (they must not set the planned shape), a command backend's argument list
(its placeholders) and the build directory (where CMake may write).

The job stage applies the same rules when it builds a launch line or a kernel
(:mod:`ciphersweep.job.launch`, :mod:`ciphersweep.job.build`); they live here, once.
"""

from __future__ import annotations

import os
import string
from collections.abc import Sequence
from pathlib import Path

# what a command backend's argument list may name, e.g. "{input}"
PLACEHOLDERS = ("input", "output", "key", "iv", "cipher")


def placeholder_errors(template: Sequence[str]) -> str | None:
    """Why an argument list is not a valid command template (None: it is)."""
    if not template:
        return "empty argument list (allowed: [program, arg, ...])"
    if not str(template[0]).strip():
        return "no program (the first item names the program)"
    for i, item in enumerate(template):
        try:
            fields = list(string.Formatter().parse(str(item)))
        except ValueError as exc:
            return f"[{i}] {item!r}: {exc} (write {{{{ and }}}} for literal braces)"
        for _, name, spec, conv in fields:
            if name is None:
                continue
            if name not in PLACEHOLDERS or spec or conv:
                return (
                    f"[{i}] {item!r}: unknown placeholder {{{name}}} "
                    f"(allowed: {', '.join('{' + p + '}' for p in PLACEHOLDERS)})"
                )
    return None


# Launcher options that set how many processes run where, or their threads: the
# point's planned shape (ranks, threads) is the workflow's, never a launcher option's.
_SHAPE_OPTIONS = (
    "-np",
    "--np",
    "-n",
    "--n",
    "-c",
    "-N",
    "--map-by",
    "-map-by",
    "--host",
    "-host",
    "-H",
    "--hostfile",
    "-hostfile",
    "--machinefile",
    "-machinefile",
    "--default-hostfile",
    "--rankfile",
    "-rf",
    "--npernode",
    "-npernode",
    "--npersocket",
    "-npersocket",
    "--ppr",
    "--cpus-per-proc",
    "--cpus-per-rank",
    "--ntasks",
    "--ntasks-per-node",
    "--cpus-per-task",
    "--nodes",
    "--app",
)


def shape_option(args: Sequence[str]) -> str | None:
    """The first of ``args`` (cluster.mpirun_args) that would set the launch shape
    (rank count, placement, hosts, threads), None when there is none."""
    for a in args:
        name = a.split("=", 1)[0]
        short = len(a) > 2 and a[:2] in ("-n", "-c", "-N", "-H") and a[2:3] != "-"
        if name in _SHAPE_OPTIONS or short or "OMP_NUM_THREADS" in a:
            return a
    return None


def dir_problem(
    bdir: str, root: str | os.PathLike[str], workdir: str | os.PathLike[str]
) -> str | None:
    """Why ``bdir`` (build.dir) may not hold a build, None when it may: a build tree
    lies below the project's ``build/`` (or, for a campaign run from a directory of
    its own, below that directory), never in or above the project's own files, the
    working directory or its results."""
    top, work = Path(root).resolve(), Path(workdir).resolve()
    path = (work / bdir).resolve()
    if path in (top, work) or path in top.parents or path in work.parents:
        return "is the project or working directory or one above it"
    if path.is_relative_to(top / "build") and path != top / "build":
        return None
    if path.is_relative_to(top):
        return "lies among the project's own files (CMake would write into them)"
    for kept in ("results", ".snakemake"):
        if path.is_relative_to(work / kept):
            return f"lies in the working directory's {kept}/"
    if work != top and path.is_relative_to(work):
        return None
    return "lies outside the project's build/ directory"
