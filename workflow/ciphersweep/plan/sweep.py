"""Sweep expansion: a validated config becomes the list of benchmark points.

This is the ONE place points are made. Each point is one benchmark job (or one member
of a packed group of jobs with the same resource shape) with its resources derived
from the point itself.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ciphersweep.plan import inputsets

_OP_TAG = {"encrypt": "enc", "decrypt": "dec"}

# Conservative single-core throughput (bytes/s) used only to estimate job runtimes.
_RATE = {
    "ref": 4e6,
    "ttable": 30e6,
    "auto": 30e6,
    "aesni": 300e6,
    "vaes256": 600e6,
    "vaes": 600e6,
    "evp": 200e6,
    "pycryptodome": 20e6,
    "purepy": 20e3,
    # AEADs (aes-seq): every repetition is also verified (a second pass)
    "ascon-ref": 10e6,
    "ascon-lowsize": 50e6,
    "ascon-opt64": 100e6,
    "gcm-ref": 30e6,
    "gcm-aesni": 300e6,
}
# per run / once: process start-up (cuda: NVML update-period detection and the two
# energy windows of at least 1 s each, see docs/gpu-energy.md)
_START_S = {"command": 0.05, "pycryptodome": 0.3, "purepy": 0.3, "cuda": 4.0}
# The mode an AEAD's records name (aes-seq writes it): Ascon is its own construction.
AEAD_MODES = {"ascon-aead128": "aead", "aes-128-gcm": "gcm"}
_CUDA_RATE = 50e6  # host<->device copies on a slow bus included


@dataclass(frozen=True)
class Point:
    """One benchmark point: a kernel invocation with its parallel shape and data."""

    backend: str
    impl: str
    mode: str
    op: str
    cipher: str
    size_bytes: int
    size_label: str
    input_name: str
    input_path: str | None  # user file; None: the generated input of this size
    ranks: int = 1
    threads: int = 1
    gpus: int = 0
    block_threads: int | None = None
    streams: int = 1  # cuda: 1 = serial copies, N > 1 = overlapped over N streams
    reps: int = 3
    warmup: int = 1
    seed: int = 1
    inject_fault: bool = False
    nopad: bool = False  # ECB/CBC without padding (config key `nopad`)
    key_bits: int | None = None  # a key length the cipher allows besides its default
    command: tuple[str, ...] = ()  # command backend: the argument list of the op
    input_set: str | None = None  # the file set this input belongs to
    variant: str = ""  # build.variants name ("" = the one default build)
    batch: int = 1  # timed repetitions per record (config `batch`; kernels' --batch)
    processes: int = 1  # kernel processes per point (config `processes`)
    # precision: repeat until the median's 95% CI is within target (None: exactly reps)
    target: float | None = None
    max_reps: int | None = None
    max_seconds: float | None = None
    id: str = field(default="", compare=False)

    @property
    def p(self) -> int:
        """Degree of parallelism P used for speedup/efficiency (ranks x threads; GPUs)."""
        if self.backend == "cuda":
            return self.gpus
        return self.ranks * self.threads

    @property
    def rep_range(self) -> tuple[int, int]:
        """Fewest and most timed repetitions the kernel may run for this point."""
        if self.target is None or self.max_reps is None:
            return self.reps, self.reps
        return self.reps, self.max_reps

    def reps_problem(self, records: list[dict[str, Any]]) -> str | None:
        """Why these records are not what this point asked for (None: they are): with
        ``processes`` > 1, records of processes 0..processes-1 (their ``process``
        field), each process's as :meth:`process_reps_problem` wants them."""
        if self.processes == 1:
            return self.process_reps_problem(records)
        groups: dict[Any, list[dict[str, Any]]] = {}
        for r in records:
            groups.setdefault(r.get("process"), []).append(r)
        if set(groups) != set(range(self.processes)):
            got = ", ".join(sorted(str(g) for g in groups))
            return f"expected records of processes 0..{self.processes - 1}, got {got}"
        for g in range(self.processes):
            bad = self.process_reps_problem(groups[g])
            if bad:
                return f"process {g}: {bad}"
        return None

    def process_reps_problem(self, records: list[dict[str, Any]]) -> str | None:
        """Why these records are not the repetitions this point asked for (None: they
        are): exactly ``reps`` of them, or with ``precision`` between min_reps and
        max_reps and as many as the kernel reports it ran (``reps_run``). With ``batch``
        each record stands for ``batch`` repetitions (its own ``batch`` field)."""
        sizes = [int(r.get("batch") or 1) for r in records]
        n = sum(sizes)
        if self.batch > 1 and any(b != self.batch for b in sizes):
            return f"expected records of {self.batch} repetitions each (batch), got {sorted(set(sizes))}"
        what = (
            "records" if self.batch == 1 else f"repetitions in batches of {self.batch}"
        )
        lo, hi = self.rep_range
        if lo == hi:
            return None if n == lo else f"expected {lo} {what}, got {n}"
        if not lo <= n <= hi:
            return f"expected {lo}..{hi} {what} (precision), got {n}"
        told = {r.get("reps_run") for r in records}
        if told != {n}:
            shown = ", ".join(sorted(str(t) for t in told))
            return f"the kernel reports {shown} repetitions run, the file holds {n}"
        return None

    def as_dict(self) -> dict[str, Any]:
        # every field is a plain value: a shallow copy is the whole dict (and, unlike
        # dataclasses.asdict, cheap enough for the params of 5,000 jobs)
        return dict(self.__dict__)


def point_id(
    backend: str,
    impl: str,
    mode: str,
    op: str,
    cipher: str,
    input_name: str,
    ranks: int,
    threads: int,
    gpus: int,
    block_threads: int | None,
    key_bits: int | None = None,
    variant: str = "",
    streams: int = 1,
) -> str:
    """A file-name-safe identifier, unique within a campaign."""
    if backend in ("openssl", "pycryptodome", "purepy"):
        head = f"{backend}-{cipher}"
    elif backend == "command":
        head = f"{backend}-{impl}-{cipher}"
    else:
        head = f"{backend}-{impl}-{mode}"
    if key_bits is not None:
        head += f"-k{key_bits}"
    pid = f"{head}-{_OP_TAG[op]}-{input_name}-r{ranks}-t{threads}"
    if backend == "cuda":
        pid += f"-g{gpus}-b{block_threads}"
        if streams > 1:
            pid += f"-s{streams}"
    if variant:
        pid += f"-v{variant}"
    return pid


def _cipher_mode(cipher: str) -> str:
    parts = cipher.lower().split("-")
    return parts[-1] if len(parts) > 1 else cipher.lower()


def expand(cfg: dict[str, Any]) -> list[Point]:
    """All points of a validated config (see :func:`ciphersweep.plan.config.validate`)."""
    faults = list(cfg.get("debug", {}).get("inject_fault", []))
    common = _common(cfg)
    be = cfg["backends"]
    points: list[Point] = []
    builds = [v["name"] for v in cfg.get("build", {}).get("variants", [])] or [""]

    def add(**kw: Any) -> None:
        for variant in builds:
            points.append(_point(common, faults, variant=variant, **kw))

    for op in cfg["ops"]:
        for f in inputsets.expand(cfg):
            d = {
                "op": op,
                "size_bytes": f.size_bytes,
                "size_label": f.name,
                "input_name": f.name,
                "input_path": f.path,
                "input_set": f.set_name,
                "seed": f.seed,
            }
            for mode in cfg["modes"]:
                _aes_points(be, mode, d, add)
            if be.get("seq") is not None:
                for cipher, impls in be["seq"].get("aead", {}).items():
                    for impl in impls:
                        mode = AEAD_MODES[cipher]
                        add(backend="seq", impl=impl, mode=mode, cipher=cipher, **d)
            if be.get("openssl") is not None:
                _cipher_points(cfg, "openssl", "evp", be["openssl"]["ciphers"], add, d)
            _python_points(cfg, op, d, add)
    ids = [p.id for p in points]
    if len(set(ids)) != len(ids):  # pragma: no cover - guarded by config validation
        raise ValueError("duplicate point ids")
    return points


def _common(cfg: dict[str, Any]) -> dict[str, Any]:
    """What every point of the campaign shares: repetitions, seed, batches, the
    precision target."""
    common: dict[str, Any] = {
        "reps": cfg["reps"],
        "warmup": cfg["warmup"],
        "seed": cfg["seed"],
        "nopad": bool(cfg.get("nopad", False)),
        "batch": int(cfg.get("batch", 1)),
        "processes": int(cfg.get("processes", 1)),
    }
    prec = cfg.get("precision")
    if prec is not None:
        common.update(
            reps=prec.get("min_reps") or cfg["reps"],
            target=float(prec["target"]),
            max_reps=int(prec["max_reps"]),
            max_seconds=float(prec["max_seconds"]),
        )
    return common


def _point(common: dict[str, Any], faults: list[str], **kw: Any) -> Point:
    """One point: its id from its axes, the campaign's common settings, whether a
    fault is injected into it (debug.inject_fault)."""
    pid = point_id(
        kw["backend"],
        kw["impl"],
        kw["mode"],
        kw["op"],
        kw["cipher"],
        kw["input_name"],
        kw.get("ranks", 1),
        kw.get("threads", 1),
        kw.get("gpus", 0),
        kw.get("block_threads"),
        kw.get("key_bits"),
        kw["variant"],
        kw.get("streams", 1),
    )
    fault = any(fnmatch.fnmatchcase(pid, g) for g in faults)
    seed = kw.pop("seed", None)
    extra = {**common, "seed": seed} if seed is not None else common
    return Point(**kw, **extra, inject_fault=fault, id=pid)


def _aes_points(
    be: dict[str, Any], mode: str, d: dict[str, Any], add: Callable[..., None]
) -> None:
    """The AES-128 points of one mode: seq, omp, mpi and cuda shapes, in that order."""
    cipher = f"aes-128-{mode}"
    if be.get("seq") is not None:
        for impl in be["seq"]["impls"]:
            add(backend="seq", impl=impl, mode=mode, cipher=cipher, **d)
    if be.get("omp") is not None:
        for impl in be["omp"]["impls"]:
            for t in be["omp"]["threads"]:
                add(backend="omp", impl=impl, mode=mode, cipher=cipher, threads=t, **d)
    if be.get("mpi") is not None:
        for impl in be["mpi"]["impls"]:
            for r in be["mpi"]["ranks"]:
                add(backend="mpi", impl=impl, mode=mode, cipher=cipher, ranks=r, **d)
    cu = be.get("cuda")
    if cu is not None:
        for impl in cu["impls"]:
            for g in cu["gpus"]:
                for bt in cu["block_threads"]:
                    for s in cu.get("streams", [1]):
                        add(
                            backend="cuda",
                            impl=impl,
                            mode=mode,
                            cipher=cipher,
                            gpus=g,
                            block_threads=bt,
                            streams=s,
                            **d,
                        )


def _key_lengths(cfg: dict[str, Any], cipher: str) -> list[int | None]:
    return list(cfg.get("key_bits", {}).get(cipher, [])) or [None]


def _cipher_points(
    cfg: dict[str, Any],
    backend: str,
    impl: str,
    ciphers: list[str],
    add: Any,
    d: dict[str, Any],
    **extra: Any,
) -> None:
    """One point per cipher (and per key length of ``key_bits``) of a backend whose
    points are named by their cipher (OpenSSL EVP, PyCryptodome, command)."""
    for c in ciphers:
        for kb in _key_lengths(cfg, c):
            add(
                backend=backend,
                impl=impl,
                mode=_cipher_mode(c),
                cipher=c,
                key_bits=kb,
                **extra,
                **d,
            )


def _python_points(cfg: dict[str, Any], op: str, d: dict[str, Any], add: Any) -> None:
    """Points of the Python-side kernels (PyCryptodome, command) for one op/input."""
    be = cfg["backends"]
    if be.get("pycryptodome") is not None:
        ciphers = be["pycryptodome"]["ciphers"]
        _cipher_points(cfg, "pycryptodome", "pycryptodome", ciphers, add, d)
    pure = be.get("purepy")
    if pure is not None and (not pure.get("sets") or d["input_set"] in pure["sets"]):
        _cipher_points(cfg, "purepy", "purepy", pure["ciphers"], add, d)
    if be.get("command") is not None:
        for prog in be["command"]["programs"]:
            argv = tuple(prog.get(op, ()))
            _cipher_points(
                cfg, "command", prog["name"], prog["ciphers"], add, d, command=argv
            )


# --------------------------------------------------------------------------- resources


def estimate_seconds(point: Point) -> float:
    """Pessimistic wall time of one point: all runs on one core, plus start-up."""
    if point.backend == "cuda":
        rate = _CUDA_RATE
    else:
        rate = _RATE.get(point.impl, _RATE["ref"])
    runs = point.reps + point.warmup + 1  # +1: verification / reference encryption
    start = _START_S.get(point.backend, 0.0) * (
        runs if point.backend == "command" else 1
    )
    # precision: up to max_seconds of further repetitions
    extra = point.max_seconds if point.max_seconds is not None else 0.0
    one = start + 0.25 * point.ranks + runs * point.size_bytes / rate + extra
    return 2.0 + point.processes * one


def resources(
    point: Point, cluster: dict[str, Any], timeout_s: int | None = None
) -> dict[str, Any]:
    """Scheduler resources of one point (shared by the local and the Slurm profile)."""
    cpn = int(cluster["cores_per_node"])
    nodes = max(1, math.ceil(point.ranks * point.threads / cpn))
    runtime = max(2, math.ceil(estimate_seconds(point) * 3 / 60) + 1)
    if timeout_s is not None:
        runtime = max(runtime, math.ceil(timeout_s / 60) + 2)
    mib = point.size_bytes / 2**20
    mem_mb = int(512 + 4 * mib + 64 * point.ranks)
    return {
        "nodes": nodes,
        "tasks": point.ranks,
        "cpus_per_task": point.threads,
        "gpu": point.gpus if point.backend == "cuda" else 0,
        "runtime": runtime,
        "mem_mb": mem_mb,
        "bench": 1,
        "slurm_extra": "--exclusive" if cluster.get("exclusive", True) else "",
        # Slurm's job step runs an MPI point (more than one rank) directly in the batch
        # step, where its launcher (srun/mpirun) has the whole allocation; other points
        # run in a one-task step. None: the resource is left out.
        "mpi": (
            str(cluster.get("mpi_launcher", "srun"))
            if point.backend == "mpi" and point.ranks > 1
            else None
        ),
    }


def kernel_timeout(
    point: Point, cluster: dict[str, Any], timeout_s: int | None = None
) -> int:
    """Seconds the kernel may run before the bench job kills it (inside the job's runtime)."""
    if timeout_s is not None:
        return int(timeout_s)
    return max(30, int(resources(point, cluster)["runtime"] * 60 * 0.8))


def shape(point: Point, cluster: dict[str, Any]) -> str:
    """Resource shape: points with the same shape can share one allocation."""
    r = resources(point, cluster)
    return f"n{r['nodes']}-r{r['tasks']}-c{r['cpus_per_task']}-g{r['gpu']}"


def pack_groups(points: list[Point], cluster: dict[str, Any]) -> dict[str, str]:
    """Point id -> group name for packing; points not packed are left out.

    Small points (estimated runtime <= cluster.pack_max_runtime minutes) with the same
    resource shape get the same group name ``pack-<shape>``; Snakemake then splits each
    group into allocations of at most cluster.pack_size points (its group components).
    """
    if not cluster.get("pack", False):
        return {}
    limit = int(cluster.get("pack_max_runtime", 10))
    out: dict[str, str] = {}
    for p in points:
        if resources(p, cluster)["runtime"] > limit:
            continue
        out[p.id] = f"pack-{shape(p, cluster)}"
    # A shape with one point gains nothing from a group, and a single job keeps the
    # scheduler's own message when Slurm refuses it (Snakemake drops it for groups).
    count: dict[str, int] = {}
    for g in out.values():
        count[g] = count.get(g, 0) + 1
    return {pid: g for pid, g in out.items() if count[g] > 1}


def group_components(groups: dict[str, str], cluster: dict[str, Any]) -> dict[str, int]:
    """Group name -> points per allocation (Snakemake's --group-components)."""
    size = int(cluster.get("pack_size", 32))
    return {g: size for g in sorted(set(groups.values()))}
