"""Native kernel builds: one build per compiler-flag variant, what each build was, and
how large its binaries and algorithm object code are.

A campaign without ``build.variants`` has one build, in ``build.dir``, with the
project's own flags. Each variant ``{name, cflags}`` is a build of its own in
``build.dir/variants/<name>``: its ``cflags`` become CMAKE_C_FLAGS, and the project's
``-O3`` then steps aside whenever the flags name an optimisation level (CMakeLists.txt),
so a user's flags are never silently overridden. Every argument in ``build.cmake_args``
reaches cmake as one argument.

What a build is made with comes from three places: the config (``build.cmake_args``, a
variant's ``cflags``), the site's ``CIPHERSWEEP_CMAKE_ARGS`` (space-separated, given to
cmake before the config's) and the environment CMake and the compiler read at configure
time (``CC``, ``CFLAGS``...: :data:`BUILD_ENV_FILE`). All of them are in the build key
(:func:`key_settings`) and in ``build-info.json``, except the arguments that change how a
build runs but not what it makes (:data:`NEUTRAL_CMAKE_VARS`: a compiler launcher such
as ccache, the NVML header only checked against).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from ciphersweep.core import paths
from ciphersweep.job.logged import run_logged
from ciphersweep.plan.config_sections import DEFAULT_BUILD

# Libraries whose object files are "the algorithm" in the size table: the cipher cores,
# not the runner (cs_common) that every binary shares.
ALGORITHM_LIBS = ("cs_aes", "cs_aead")
INFO_FILE = "build-info.json"
# the site's cmake arguments (space-separated), given before the config's
ENV_CMAKE_ARGS = "CIPHERSWEEP_CMAKE_ARGS"
# the environment variables whose values change what a build makes (one name a line)
BUILD_ENV_FILE = paths.PROJECT / "kernels" / "cmake" / "build-env.txt"
# cmake variables that change how a build runs, not the binaries or the flags they
# record: kept out of the build key
NEUTRAL_CMAKE_VARS = (
    "CMAKE_C_COMPILER_LAUNCHER",
    "CMAKE_CUDA_COMPILER_LAUNCHER",
    "CMAKE_CXX_COMPILER_LAUNCHER",
    "CMAKE_EXPORT_COMPILE_COMMANDS",
    "CMAKE_VERBOSE_MAKEFILE",
    "CMAKE_RULE_MESSAGES",
    "CMAKE_COLOR_DIAGNOSTICS",
    "CS_NVML_INCLUDE_DIR",
)


def build_name(variant: str) -> str:
    """File-name form of a build (:data:`DEFAULT_BUILD` for the one default build)."""
    return variant or DEFAULT_BUILD


def variants(build_cfg: dict[str, Any]) -> dict[str, str]:
    """name -> cflags of the configured variants (empty: the one default build)."""
    return {v["name"]: v["cflags"] for v in build_cfg.get("variants", [])}


def build_dir(build_cfg: dict[str, Any], variant: str = "") -> str:
    """Directory of a variant's build ("" = the default build, ``build.dir`` itself)."""
    base = build_cfg["dir"]
    return f"{base}/variants/{variant}" if variant else base


def cmake_args(build_cfg: dict[str, Any], cflags: str | None = None) -> list[str]:
    """cmake arguments of one build, each one argument (never split at spaces)."""
    args = list(build_cfg.get("cmake_args", []))
    if cflags:
        args.append(f"-DCMAKE_C_FLAGS={cflags}")
    return args


def env_cmake_args(environ: Mapping[str, str] | None = None) -> list[str]:
    """The site's cmake arguments (``CIPHERSWEEP_CMAKE_ARGS``, split at white space as
    scripts/build-kernels.sh splits it)."""
    env = os.environ if environ is None else environ
    return env.get(ENV_CMAKE_ARGS, "").split()


def effective_cmake_args(
    args: list[str], environ: Mapping[str, str] | None = None
) -> list[str]:
    """Every cmake argument a build gets, in the order cmake gets them (a later -D
    wins): the site's, then the config's ``args`` (:func:`cmake_args`)."""
    return [*env_cmake_args(environ), *args]


@lru_cache(maxsize=1)
def build_env_names() -> tuple[str, ...]:
    """The environment variables that change what a build makes (:data:`BUILD_ENV_FILE`)."""
    lines = BUILD_ENV_FILE.read_text().splitlines()
    return tuple(n.strip() for n in lines if n.strip() and not n.startswith("#"))


def build_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Those of the variables that are set, name -> value."""
    env = os.environ if environ is None else environ
    return {n: env[n] for n in build_env_names() if n in env}


def neutral(arg: str) -> bool:
    """Whether a cmake argument changes how a build runs, not what it makes."""
    if not arg.startswith("-D"):
        return False
    name = arg[2:].split("=", 1)[0].split(":", 1)[0].strip()
    return name in NEUTRAL_CMAKE_VARS


def key_settings(
    args: list[str], environ: Mapping[str, str] | None = None
) -> list[str]:
    """What the build key holds of a build's settings: its effective cmake arguments
    without the neutral ones, and the build environment (``NAME=value``) after them."""
    kept = [a for a in effective_cmake_args(args, environ) if not neutral(a)]
    return kept + [f"{k}={v}" for k, v in build_env(environ).items()]


def resolve_march(cflags: str, compiler: str = "cc") -> str | None:
    """The CPU gcc resolves ``-march=native`` to on this machine (None: not asked for,
    or the compiler does not say)."""
    if "-march=native" not in cflags.split():
        return None
    try:
        out = subprocess.run(
            [compiler, "-march=native", "-Q", "--help=target"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"^\s*-march=\s+(\S+)", out, re.MULTILINE)
    return m.group(1) if m else None


def parse_size_output(text: str) -> list[dict[str, Any]]:
    """Rows of ``size`` (Berkeley format: text data bss dec hex filename)."""
    rows = []
    for line in text.splitlines()[1:]:
        parts = line.split(None, 5)
        if len(parts) < 6 or not parts[0].isdigit():
            continue
        rows.append(
            {
                "text": int(parts[0]),
                "data": int(parts[1]),
                "bss": int(parts[2]),
                "total": int(parts[3]),
                "file": parts[5].strip(),
            }
        )
    return rows


def _size(paths: list[str]) -> list[dict[str, Any]]:
    """size(1) rows of the object files and executables among ``paths`` (a file size(1)
    does not recognise, e.g. a wrapper script, has no row)."""
    tool = shutil.which("size")
    if tool is None:
        raise RuntimeError("size(1) from binutils is needed for the binary-size table")
    rows: list[dict[str, Any]] = []
    for path in paths:
        proc = subprocess.run(
            [tool, "--format=berkeley", path],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode == 0:
            rows += parse_size_output(proc.stdout)
    return rows


def algorithm_objects(bdir: str | Path) -> list[Path]:
    """The cipher libraries' object files of a CMake build (sorted)."""
    found: list[Path] = []
    for lib in ALGORITHM_LIBS:
        found += sorted((Path(bdir) / "CMakeFiles" / f"{lib}.dir").rglob("*.o"))
    return found


def size_rows(bdir: str | Path, binaries: list[str]) -> list[dict[str, Any]]:
    """text/data/bss of every kernel binary and of every algorithm object file."""
    rows = []
    present = [b for b in binaries if os.path.exists(b)]
    for r in _size(present):
        rows.append({**r, "part": "binary", "name": os.path.basename(r["file"])})
    for r in _size([str(p) for p in algorithm_objects(bdir)]):
        name = Path(r["file"]).name.removesuffix(".o").removesuffix(".c")
        rows.append({**r, "part": "object", "name": name})
    for r in rows:
        r["bytes_on_disk"] = os.path.getsize(r.pop("file"))
    return rows


def build_info(
    variant: str,
    cflags: str | None,
    args: list[str],
    key: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """What a build was: the variant, its exact flags, every cmake argument it got
    (the site's ``CIPHERSWEEP_CMAKE_ARGS`` and the config's ``args``), the build
    environment, -march=native resolved, and its build key
    (:func:`ciphersweep.plan.fingerprint.build_key`, baked into the binaries)."""
    return {
        "variant": build_name(variant),
        "build_key": key,
        "cflags": cflags,
        "cmake_args": effective_cmake_args(args, environ),
        "build_env": build_env(environ),
        "march_native": resolve_march(cflags or ""),
    }


def build_kernels(
    script: str,
    bdir: str,
    args: list[str],
    targets: list[str],
    info: dict[str, Any],
    log: str,
) -> None:
    """The build rules: the one build script into ``bdir`` (only ``targets``), then
    ``build-info.json`` beside the binaries (read back into every record)."""
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    Path(log).write_text("")
    env = dict(os.environ)
    env["CIPHERSWEEP_BUILD_TARGETS"] = " ".join(targets)
    key = info.get("build_key")
    run_logged(
        [script, bdir, *args, *([f"-DCS_BUILD_KEY={key}"] if key else [])], log, env
    )
    tmp = Path(bdir) / f"{INFO_FILE}.tmp"
    tmp.write_text(json.dumps(info, sort_keys=True) + "\n")
    os.replace(tmp, Path(bdir) / INFO_FILE)


def build_rule(script: str, params: Any, outputs: list[str], log: str) -> None:
    """The body of the build rules (params: variant, cflags, cmake_args, build_key,
    build_dir; the binaries to build are ``outputs``)."""
    build_kernels(
        script,
        params.build_dir,
        list(params.cmake_args),
        [os.path.basename(o) for o in outputs],
        build_info(
            params.variant, params.cflags, list(params.cmake_args), params.build_key
        ),
        log,
    )


def read_info(kernel_dir: str | Path) -> dict[str, Any]:
    """Record fields of a build (``build_variant``, ``march_native``); empty when the
    binaries were built outside the workflow."""
    try:
        info = json.loads((Path(kernel_dir) / INFO_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return {
        "build_variant": info.get("variant"),
        "march_native": info.get("march_native"),
        "build_settings": settings_text(info),
    }


def settings_text(info: Mapping[str, Any]) -> str | None:
    """One line of a build's effective settings (``build-info.json``): its cmake
    arguments and build environment; None when the file does not say."""
    if "cmake_args" not in info:
        return None
    env = info.get("build_env") or {}
    words = [*info["cmake_args"], *(f"{k}={v}" for k, v in sorted(env.items()))]
    return " ".join(words) or "(none)"


def info_build_key(kernel_dir: str | Path) -> str | None:
    """The build key of the build in ``kernel_dir`` as its build rule wrote it (None:
    built outside the workflow, e.g. by scripts/build-kernels.sh alone)."""
    try:
        info = json.loads((Path(kernel_dir) / INFO_FILE).read_text())
    except (OSError, ValueError):
        return None
    return str(info.get("build_key") or "none") if isinstance(info, dict) else None


def write_sizes(variant: str, bdir: str, binaries: list[str], info_out: str) -> None:
    """The ``binary_sizes`` rule: one JSON file per build with its size rows."""
    rows = size_rows(bdir, binaries)
    doc = {"variant": build_name(variant), "rows": rows}
    Path(info_out).parent.mkdir(parents=True, exist_ok=True)
    tmp = f"{info_out}.tmp"
    Path(tmp).write_text(json.dumps(doc, sort_keys=True, indent=1) + "\n")
    os.replace(tmp, info_out)


# ------------------------------------------------------------------ size tables


def size_file(campaign: str, build: str) -> Path:
    return Path("results") / campaign / "build" / f"{build}.sizes.json"


def _builds(cfg: dict[str, Any]) -> list[str]:
    return list(variants(cfg["build"])) or [DEFAULT_BUILD]


def load_sizes(cfg: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """build name -> size rows (written by the ``binary_sizes`` rule)."""
    out = {}
    for b in _builds(cfg):
        try:
            out[b] = json.loads(size_file(cfg["campaign"], b).read_text())["rows"]
        except (OSError, ValueError, KeyError):
            out[b] = []  # its cells say n/a
    return out
