"""What decides a number besides the binary, the input and the shape: THE list of the
environment variables a kernel, or a library doing its work, reads to choose its code
path, and the libraries whose version decides it: the Python-side kernels' (the
interpreter and the library doing the work) and aes-openssl's libcrypto, which the
binary loads at run time.

Each point's fingerprint holds the values of the variables its backend reads
(:func:`select`, taken by the plan and by the bench job from the environment the
kernel is launched with) and the versions of its libraries (written by the kernel:
:func:`library_versions`, kernels/src/fingerprint.c; expected by the plan:
:func:`planned_libraries`, asked of the same Python or binary in the same
environment); admission compares both, so a change measures exactly the points whose
backend reads the variable, or uses the library, again.

The variables (``name`` exact, or a prefix ending in ``*``):

* ``CIPHERSWEEP_DISABLE_IMPLS``: the AES core's dispatch (kernels/src/aes_impl.c, the
  AEAD impls too) skips the impls it names: ``--impl auto`` runs another one (a point
  of a named impl reads only whether its name is listed: it then fails). Trait
  ``impl-dispatch``: aes-seq, aes-omp, aes-mpi.
* ``OPENSSL_ia32cap`` and the other capability masks, ``OPENSSL_CONF``,
  ``OPENSSL_MODULES``: OpenSSL's choice of AES code (AES-NI, VAES, bit-sliced...) and of
  the provider doing the work. Trait ``openssl``: aes-openssl and the command
  backend's programs.
* ``OMP_*``, ``GOMP_*``, ``KMP_*``: the OpenMP runtime's binding, schedule, wait policy.
  Trait ``openmp``: aes-omp.
* ``OMPI_MCA_*``, ``UCX_*``: Open MPI's transports (the byte transfer layer, the pml).
  Trait ``mpi``: aes-mpi.
* ``CUDA_LAUNCH_BLOCKING`` and the other CUDA driver switches. Trait ``cuda``.
* ``NPY_DISABLE_CPU_FEATURES``, ``NPY_ENABLE_CPU_FEATURES``: NumPy's SIMD dispatch.
  Trait ``numpy``: a Python runner's NumPy impl.
* ``PYTHONOPTIMIZE``, ``PYTHONMALLOC``, ``PYTHONDEVMODE``: the interpreter's asserts,
  allocator and debug checks. Trait ``python``: the Python-side kernels.
* ``LD_PRELOAD``, ``LD_LIBRARY_PATH``: which shared libraries (libcrypto, libgomp,
  libmpi) a native kernel loads (trait ``native``); ``GLIBC_TUNABLES``: glibc's CPU
  features (memcpy's code), every kernel.

Each backend declares its traits (:attr:`ciphersweep.backends.base.Backend.traits`);
a user's kernel, whose reading nobody knows, counts as reading every switch.

Not listed, on purpose (:data:`IRRELEVANT`): ``PYTHONHASHSEED`` (the kernels hash no
strings in the timed region), ``OMPI_MCA_orte_tmpdir_base`` and
``OMPI_MCA_prte_tmpdir_base`` (where mpirun keeps its session files; the workflow sets
one per launch), ``CUDA_VISIBLE_DEVICES`` (which device, assigned per job by Slurm; the
records name its model), ``OPENBLAS_NUM_THREADS`` (no BLAS call in a timed region),
``PMIX_MCA_*``, matched by no switch (PMIx's start-up: how mpirun hands its ranks the
job's information; the workflow sets ``PMIX_MCA_gds`` for one node's mpirun), and
``HWLOC_*``, matched by none either (hwloc's discovery of the node, which the
workflow keeps to CPUs and memory for one node's mpirun of its own kernels: ranks are
placed and bound by cores, and no kernel of this workflow asks hwloc anything).
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ciphersweep.backends import BY_NAME

ANY = "*"  # every backend, the user's kernels included


@dataclass(frozen=True)
class Switch:
    """Environment variables (``name``; a prefix when it ends in ``*``) that choose a
    code path of the kernels with one of the ``traits`` (:data:`ANY`: all; a user's
    kernel, whose reading nobody knows, counts as reading every switch)."""

    name: str
    traits: tuple[str, ...] | str
    # the value lists impls: a point of one named impl reads only whether it is listed
    lists_impls: bool = False

    def matches(self, var: str) -> bool:
        if self.name.endswith("*"):
            return var.startswith(self.name[:-1])
        return var == self.name

    def reads(self, impl: str, value: str) -> bool:
        """Whether a point of ``impl`` reads the value (an impl list: ``auto`` reads
        all of it, a named impl only its own name in it)."""
        return not self.lists_impls or impl == "auto" or impl in _words(value)

    def applies(self, backend: str, impl: str) -> bool:
        traits = traits_of(backend, impl)
        return traits is None or self.traits == ANY or bool(set(self.traits) & traits)


def traits_of(backend: str, impl: str) -> set[str] | None:
    """The code-path traits of a backend's impl (None: unknown, every switch)."""
    b = BY_NAME.get(backend)
    found = b.traits_of(impl) if b is not None else None
    return None if found is None else set(found)


SWITCHES: tuple[Switch, ...] = (
    Switch("CIPHERSWEEP_DISABLE_IMPLS", ("impl-dispatch",), lists_impls=True),
    *(
        Switch(f"OPENSSL_{cap}", ("openssl",))
        for cap in ("ia32cap", "armcap", "ppccap", "s390xcap", "sparcv9cap", "riscvcap")
    ),
    Switch("OPENSSL_CONF", ("openssl",)),
    Switch("OPENSSL_MODULES", ("openssl",)),
    Switch("OMP_*", ("openmp",)),
    Switch("GOMP_*", ("openmp",)),
    Switch("KMP_*", ("openmp",)),
    Switch("OMPI_MCA_*", ("mpi",)),
    Switch("UCX_*", ("mpi",)),
    *(
        Switch(f"CUDA_{name}", ("cuda",))
        for name in (
            "LAUNCH_BLOCKING",
            "DEVICE_MAX_CONNECTIONS",
            "MODULE_LOADING",
            "FORCE_PTX_JIT",
            "DISABLE_PTX_JIT",
        )
    ),
    Switch("NPY_DISABLE_CPU_FEATURES", ("numpy",)),
    Switch("NPY_ENABLE_CPU_FEATURES", ("numpy",)),
    Switch("PYTHONOPTIMIZE", ("python",)),
    Switch("PYTHONMALLOC", ("python",)),
    Switch("PYTHONDEVMODE", ("python",)),
    Switch("LD_PRELOAD", ("native",)),
    Switch("LD_LIBRARY_PATH", ("native",)),
    Switch("GLIBC_TUNABLES", ANY),
)
# read by a kernel or a library, but choosing no code path of a timed region
IRRELEVANT = (
    "PYTHONHASHSEED",
    "OMPI_MCA_orte_tmpdir_base",
    "OMPI_MCA_prte_tmpdir_base",
    "CUDA_VISIBLE_DEVICES",
    "OPENBLAS_NUM_THREADS",
)


def select(backend: str, impl: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The code-path variables of ``environ`` the kernels of ``backend`` (its ``impl``)
    read, name -> value, sorted: what a point's fingerprint holds of its environment."""
    names, switches = _switches(backend, impl)
    out = {}
    for var in sorted(v for v in environ if names.match(v) and v not in IRRELEVANT):
        value = str(environ[var])
        if any(s.matches(var) and s.reads(impl, value) for s in switches):
            out[var] = value
    return out


@lru_cache(maxsize=256)
def _switches(backend: str, impl: str) -> tuple[re.Pattern[str], tuple[Switch, ...]]:
    """The switches of a backend's impl and one pattern of all their names (a plan
    selects for every point: thousands of points, each over the whole environment)."""
    switches = tuple(s for s in SWITCHES if s.applies(backend, impl))
    alts = [
        re.escape(s.name[:-1]) + ".*" if s.name.endswith("*") else re.escape(s.name)
        for s in switches
    ]
    return re.compile(f"(?:{'|'.join(alts) or '(?!)'})\\Z"), switches


def _words(value: str) -> list[str]:
    """The names of a list such as ``vaes,vaes256 aesni`` (kernels/src/aes_impl.c)."""
    return [w for w in value.replace(",", " ").split() if w]


def shown(env: Mapping[str, str] | None) -> str:
    """One line of a fingerprint's variables (``A=1 B=x``; "" for none)."""
    return " ".join(f"{k}={v}" for k, v in sorted((env or {}).items()))


def texts(fingerprint: Any) -> dict[str, str | None]:
    """A record fingerprint's code-path variables and library versions as one line
    each (``code_path_env``: "" when none is set, None for a record without them;
    ``libraries``: ``NumPy 1.26.4, Python 3.11.2``), the columns of the tidy
    tables, the provenance section and the tables' notes read."""
    fp = fingerprint if isinstance(fingerprint, dict) else {}
    env, libs = fp.get("code_path_env"), fp.get("libraries")
    return {
        "code_path_env": shown(env) if isinstance(env, dict) else None,
        "libraries": (
            ", ".join(
                v if v.startswith(k) else f"{k} {v}" for k, v in sorted(libs.items())
            )
            if isinstance(libs, dict)
            else None
        ),
    }


# ------------------------------------------------------------------ libraries


def libraries(backend: str, impl: str) -> tuple[tuple[str, str], ...]:
    """The libraries whose version decides a Python-side point's number: the
    interpreter (``Python``, module "") and the ones its backend declares
    (:attr:`ciphersweep.backends.base.Backend.libraries`); none for others."""
    b = BY_NAME.get(backend)
    if b is None or b.kind != "python":
        return ()
    return (("Python", ""), *b.libraries_of(impl))


def library_versions(backend: str, impl: str) -> dict[str, str]:
    """name -> version of the libraries of ``backend``/``impl`` as this process
    imports them (the kernel writes it into its fingerprint)."""
    out: dict[str, str] = {}
    for name, module in libraries(backend, impl):
        if not module:
            out[name] = platform.python_version()
        else:
            out[name] = str(
                getattr(importlib.import_module(module), "__version__", "?")
            )
    return out


_PROBE = (
    "import json, sys\n"
    "from ciphersweep.backends.codepath import library_versions\n"
    "print(json.dumps(library_versions(sys.argv[1], sys.argv[2])))\n"
)


@lru_cache(maxsize=64)
def _probe(
    python: str, backend: str, impl: str, env: tuple[tuple[str, str], ...]
) -> tuple[tuple[str, str], ...] | None:
    try:
        proc = subprocess.run(
            [python, "-c", _PROBE, backend, impl],
            capture_output=True,
            text=True,
            env=dict(env),
            timeout=120,
            check=False,
        )
        found = json.loads(proc.stdout) if proc.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    return tuple(sorted(found.items())) if isinstance(found, dict) else None


# native backends whose work a shared library does, loaded at run time (the binary's
# digest does not show which): the name their fingerprint gives it; the kernel's
# --version line ends with its version
NATIVE_LIBRARIES = {
    b.name: b.native_library for b in BY_NAME.values() if b.native_library
}


@lru_cache(maxsize=64)
def _version_line(
    binary: str, stamp: tuple[int, int, int], env: tuple[tuple[str, str], ...]
) -> str | None:
    try:
        proc = subprocess.run(
            [binary, "--version"],
            capture_output=True,
            text=True,
            env=dict(env),
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = proc.stdout.splitlines()
    return lines[0] if proc.returncode == 0 and lines else None


def probe_native_library(
    binary: str, backend: str, env: Mapping[str, str]
) -> dict[str, str] | None:
    """name -> version of the shared library doing a native point's work as its
    kernel ``binary`` loads it in ``env`` ({}: its backend has none; None: not learnt,
    e.g. the binary is not built yet)."""
    name = NATIVE_LIBRARIES.get(backend)
    if name is None:
        return {}
    try:
        st = os.stat(binary)
    except OSError:
        return None
    stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
    line = _version_line(binary, stamp, tuple(sorted(env.items())))
    return {name: line.rsplit(", ", 1)[-1]} if line and ", " in line else None


def planned_libraries(
    backend: str,
    impl: str,
    env: Mapping[str, str],
    python: str,
    binary: str | None = None,
) -> dict[str, str] | None:
    """The library versions a point's records must show (None: none to check, or not
    learnt now): a Python-side kernel's asked of ``python``, a native kernel's of its
    ``binary``, each in the environment ``env`` it is launched with."""
    if libraries(backend, impl):
        return probe_library_versions(python, backend, impl, env)
    if backend in NATIVE_LIBRARIES and binary is not None:
        return probe_native_library(binary, backend, env)
    return None


def probe_library_versions(
    python: str, backend: str, impl: str, env: Mapping[str, str]
) -> dict[str, str] | None:
    """:func:`library_versions` as the kernel will see them: asked of ``python`` in
    ``env``, the interpreter and environment the kernel is launched with (another
    ``PYTHONPATH`` imports another version); once per interpreter, point kind and
    environment. None: not learnt (the kernel, importing the same, fails the point
    with its own reason)."""
    if not libraries(backend, impl):
        return {}
    found = _probe(python, backend, impl, tuple(sorted(env.items())))
    return None if found is None else dict(found)
