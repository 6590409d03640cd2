"""The ``build_user_kernel`` rule: a user's CMake project (``backends.user.kernels[]``
with ``source``) configured and built into its build directory
(:class:`ciphersweep.plan.user_kernels.Build`), its program linked as
``<dir>/<name>`` and the build recorded in ``<dir>/build.json``: its key, compiler
and flags (the records' provenance), or why it failed and where the log is.

A failed build does not stop the campaign: ``build.json`` then says why, and each of
the kernel's points fails with that reason (:mod:`ciphersweep.job.kernel_user`) while
the other backends are measured. The same sources and settings are not built again;
an edit is a new build directory.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from ciphersweep.core import atomic
from ciphersweep.job.logged import run_logged
from ciphersweep.plan.user_kernels import BUILD_FILE, Build

# CMakeCache.txt entries kept as the build's provenance
_CACHE_KEYS = ("CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER", "CMAKE_BUILD_TYPE")
_FLAG_KEYS = ("CMAKE_C_FLAGS", "CMAKE_CXX_FLAGS")
# executable files of a build tree that are no program: shared libraries, scripts
_NOT_PROGRAMS = re.compile(r"(\.so(\.\d+)*|\.dylib|\.sh|\.py|\.cmake)$")


def _cache(tree: str) -> dict[str, str]:
    """``NAME:TYPE=VALUE`` entries of a CMake build tree's cache."""
    out: dict[str, str] = {}
    try:
        text = Path(tree, "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return out
    for m in re.finditer(r"^([A-Za-z_][A-Za-z0-9_]*):[A-Z]+=(.*)$", text, re.MULTILINE):
        out[m.group(1)] = m.group(2)
    return out


def executables(tree: str) -> list[str]:
    """The executable files a build tree holds, outside CMake's own (``CMakeFiles``:
    its compiler checks), relative to ``tree``, sorted."""
    found = []
    for here, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d != "CMakeFiles"]
        for f in files:
            path = os.path.join(here, f)
            if os.access(path, os.X_OK) and not _NOT_PROGRAMS.search(f):
                found.append(os.path.relpath(path, tree))
    return sorted(found)


def _a_test(name: str) -> bool:
    """Whether an executable's name says it is a test (``test_x``, ``x_test``...)."""
    low = name.lower()
    return low.startswith("test") or low.endswith(("test", "tests"))


def choose(build: Build, found: list[str]) -> str:
    """The program of a build among the executables it made: its ``target``, else one
    named as the kernel, else the only one (test programs left aside); else why none
    can be chosen."""
    want = build.target or build.name
    named = [f for f in found if os.path.basename(f) == want]
    if named:
        return named[0]
    if build.target is None:  # the only one that is not a test program
        programs = [f for f in found if not _a_test(os.path.basename(f))]
        if len(programs) == 1:
            return programs[0]
    shown = ", ".join(found) or "none"
    if build.target is not None:
        raise RuntimeError(
            f"it built no executable {want!r} (target; it built: {shown})"
        )
    raise RuntimeError(
        f"it built {len(found)} executables ({shown}): name the one to run with target"
    )


def _provenance(tree: str) -> dict[str, Any]:
    """The compiler, build type and flags (the general ones and the build type's) a
    build tree's cache holds."""
    cache = _cache(tree)
    kind = cache.get("CMAKE_BUILD_TYPE", "").upper()
    keys = [f for k in _FLAG_KEYS for f in (k, f"{k}_{kind}" if kind else k)]
    flags = " ".join(dict.fromkeys(v for k in keys if (v := cache.get(k, "").strip())))
    return {
        "compiler": cache.get("CMAKE_C_COMPILER") or cache.get("CMAKE_CXX_COMPILER"),
        "build_type": cache.get("CMAKE_BUILD_TYPE") or None,
        "cflags": flags or None,
    }


def build(b: Build, info: str, log: str) -> dict[str, Any]:
    """Configure and build ``b``; write ``info`` (its :data:`BUILD_FILE`) either way."""
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    Path(log).write_text("")
    tree = os.path.join(os.path.dirname(info), "cmake")
    out: dict[str, Any] = {"name": b.name, "build_key": b.key, "log": log}
    try:
        shutil.rmtree(tree, ignore_errors=True)
        run_logged(["cmake", "-S", b.source, "-B", tree, *b.cmake_args], log)
        jobs = str(max(1, len(os.sched_getaffinity(0))))
        run_logged(["cmake", "--build", tree, "--parallel", jobs], log)
        chosen = choose(b, executables(tree))
        program = os.path.join(os.path.dirname(info), b.name)  # b.program, in the rule
        if os.path.lexists(program):
            os.remove(program)
        # a link into its build tree: libraries it finds beside itself ($ORIGIN) stay
        os.symlink(os.path.join("cmake", chosen), program)
        out.update(ok=True, program=program, target=chosen, **_provenance(tree))
    except (RuntimeError, OSError) as exc:
        where = "" if log in str(exc) else f" (its log: {log})"
        out.update(ok=False, reason=f"the build failed: {exc}{where}")
    atomic.write_text(info, json.dumps(out, indent=1, sort_keys=True) + "\n")
    return out


def read_info(program: str) -> dict[str, Any] | None:
    """The :data:`BUILD_FILE` beside a built program (None: not built by the workflow,
    or unreadable)."""
    try:
        data = json.loads(Path(os.path.dirname(program), BUILD_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
