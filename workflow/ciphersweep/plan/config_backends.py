"""Checks of the ``backends`` section a schema cannot express: the impls each kernel
accepts, thread, rank, stream and GPU counts within the cluster, EVP cipher names, the
AEADs of the sequential kernel, and the Python-side kernels' ciphers, input sets and
command templates."""

from __future__ import annotations

import re
from typing import Any

from ciphersweep import backends as registry
from ciphersweep.core import ciphers as cs_ciphers
from ciphersweep.plan import config_checks, launch_checks
from ciphersweep.plan.schema import fail as _fail

BACKENDS = registry.NAMES
# the aes-<backend> binaries scripts/build-kernels.sh builds (the user's kernels have
# their own build: ciphersweep.plan.user_kernels)
KERNEL_BINARIES = registry.names("native")
# the kernels that are modules of this package (the user's kernels: their own checks)
PY_BACKENDS = registry.names("python", "command")
CPU_IMPLS = registry.get("seq").impls  # the C kernels' AES dispatch
CUDA_IMPLS = registry.get("cuda").impls  # what aes-cuda accepts
# The AEADs aes-seq runs (backends.seq.aead): cipher -> its impls (docs/kernels.md).
AEAD_IMPLS = {
    "ascon-aead128": ("auto", "ascon-ref", "ascon-opt64", "ascon-lowsize"),
    "aes-128-gcm": ("auto", "gcm-byte", "gcm-ref", "gcm-aesni"),
}
_CIPHER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{1,40}$")


def check_native(cfg: dict[str, Any]) -> None:
    """The native kernels: impls, threads and ranks within the cluster, EVP names."""
    backends, cluster = cfg["backends"], cfg["cluster"]
    for b in registry.ALL:  # the impls each C kernel's dispatch has (its `impls`)
        own = backends.get(b.name)
        if b.kind != "native" or not b.impls or own is None:
            continue
        for i, impl in enumerate(own["impls"]):
            if impl not in b.impls:
                raise _fail(
                    ["backends", b.name, "impls", i],
                    f"{impl!r} is not allowed (allowed: {', '.join(b.impls)})",
                )
    if backends.get("omp") is not None:
        for i, t in enumerate(backends["omp"]["threads"]):
            if not 1 <= t <= cluster["cores_per_node"]:
                raise _fail(
                    ["backends", "omp", "threads", i],
                    f"{t} is out of range (allowed: 1..{cluster['cores_per_node']}, cluster.cores_per_node)",
                )
    if backends.get("mpi") is not None:
        for i, r in enumerate(backends["mpi"]["ranks"]):
            if not 1 <= r <= cluster["max_ranks"]:
                raise _fail(
                    ["backends", "mpi", "ranks", i],
                    f"{r} is out of range (allowed: 1..{cluster['max_ranks']}, cluster.max_ranks)",
                )
    if backends.get("openssl") is not None:
        for i, c in enumerate(backends["openssl"]["ciphers"]):
            if not _CIPHER_RE.match(c):
                raise _fail(
                    ["backends", "openssl", "ciphers", i],
                    f"{c!r} is not an EVP cipher name (e.g. aes-128-ctr)",
                )
    if backends.get("cuda") is not None:
        _check_cuda(backends["cuda"], cluster)


def _check_cuda(cu: dict[str, Any], cluster: dict[str, Any]) -> None:
    """backends.cuda: block sizes, streams and GPUs the node has."""
    for i, bt in enumerate(cu["block_threads"]):
        if bt < 32 or bt > 1024 or bt % 32:
            raise _fail(
                ["backends", "cuda", "block_threads", i],
                f"{bt} is not allowed (allowed: multiples of 32 in 32..1024)",
            )
    for i, s in enumerate(cu["streams"]):
        if not 1 <= s <= 64 or s in cu["streams"][:i]:
            raise _fail(
                ["backends", "cuda", "streams", i],
                f"{s} is not allowed (allowed: distinct integers in 1..64; 1 = serial copies)",
            )
    for i, g in enumerate(cu["gpus"]):
        if not 1 <= g <= max(cluster["gpus_per_node"], 0):
            raise _fail(
                ["backends", "cuda", "gpus", i],
                f"{g} is out of range (allowed: 1..{cluster['gpus_per_node']}, cluster.gpus_per_node)",
            )


def check_aead(seq: dict[str, Any] | None) -> None:
    """backends.seq.aead: each cipher's impls are its own; seq runs something."""
    if seq is None:
        return
    for cipher, impls in seq["aead"].items():
        allowed = AEAD_IMPLS[cipher]
        for i, impl in enumerate(impls):
            if impl not in allowed:
                raise _fail(
                    ["backends", "seq", "aead", cipher, i],
                    f"{impl!r} is not an impl of {cipher} (allowed: {', '.join(allowed)})",
                )
    if not seq["impls"] and not seq["aead"]:
        raise _fail(
            "backends.seq.impls",
            "empty, and no backends.seq.aead (allowed: at least one AES impl or AEAD)",
        )


def check_python_backends(cfg: dict[str, Any]) -> None:
    """Ciphers, key lengths, input sets and command templates of the Python-side
    kernels; they run natively only."""
    backends = cfg["backends"]
    for name, bits in cfg["key_bits"].items():
        try:
            for kb in bits:
                cs_ciphers.cipher(name, kb)
        except ValueError as exc:
            raise _fail(["key_bits", name], str(exc)) from None
    for lib in registry.names("python"):
        for i, c in enumerate((backends.get(lib) or {}).get("ciphers", [])):
            _check_cipher(cfg, ["backends", lib, "ciphers", i], c)
    named = [x["name"] for x in cfg.get("inputs") or []]
    for lib in registry.NAMES:  # a backend measured on some input sets only
        for i, name in enumerate((backends.get(lib) or {}).get("sets", [])):
            if name not in named:
                allowed = ", ".join(named) or "no inputs named"
                raise _fail(
                    ["backends", lib, "sets", i],
                    f"{name!r} is not an input (allowed: {allowed})",
                )
    if backends.get("command") is not None:
        _check_programs(cfg, backends["command"]["programs"])
    runtime = cfg["platform"]["container"]["runtime"]
    for name in PY_BACKENDS:  # (the user's kernels: plan.user_kernels.check)
        if backends.get(name) is not None and runtime != "none":
            raise _fail(
                ["backends", name],
                f"runs natively only (allowed with platform.container.runtime: none, not {runtime})",
            )


def _check_cipher(cfg: dict[str, Any], path: list[Any], name: str) -> None:
    """A cipher the Python-side kernels know, with each of its key lengths."""
    try:
        cs_ciphers.cipher(name)
        for kb in cfg["key_bits"].get(name, []):
            cs_ciphers.cipher(name, kb)
    except ValueError as exc:
        raise _fail(path, str(exc)) from None


def _check_programs(cfg: dict[str, Any], programs: list[dict[str, Any]]) -> None:
    """backends.command.programs: unique names, known ciphers, an argument list for
    each op run, each a valid template."""
    names: set[str] = set()
    for i, prog in enumerate(programs):
        at = ["backends", "command", "programs", i]
        if prog["name"] in names:
            raise _fail(
                at + ["name"],
                f"{prog['name']!r} is used twice (names must be unique)",
            )
        names.add(prog["name"])
        for j, c in enumerate(prog["ciphers"]):
            _check_cipher(cfg, at + ["ciphers", j], c)
        for op in ("encrypt", "decrypt"):
            if op not in prog:
                if op in cfg["ops"]:
                    raise _fail(at, f"no {op!r} argument list, but ops has {op}")
                continue
            bad = launch_checks.placeholder_errors(
                prog[op]
            ) or config_checks.template_problem(prog[op])
            if bad:
                raise _fail(at + [op], bad)
