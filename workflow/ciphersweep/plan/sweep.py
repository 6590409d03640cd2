"""Sweep expansion: a validated config becomes the list of benchmark points.

This is the ONE place points are made. Each point is one benchmark job (or one member
of a packed group of jobs with the same resource shape) with its resources derived
from the point itself (:mod:`ciphersweep.plan.resources`).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ciphersweep import backends as registry
from ciphersweep.plan import inputsets

_OP_TAG = {"encrypt": "enc", "decrypt": "dec"}

# The mode an AEAD's records name (aes-seq writes it): Ascon is its own construction.
AEAD_MODES = {"ascon-aead128": "aead", "aes-128-gcm": "gcm"}


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
    command: tuple[str, ...] = ()  # command backend: the argument list of the op;
    # a user kernel: its further arguments (backends.user.kernels[].args)
    program: str = ""  # a user kernel: the program it runs (absolute)
    build_key: str | None = None  # a user kernel built by the workflow: its build's key
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
    def mpi_launched(self) -> bool:
        """Whether the point's kernel starts under the MPI launcher (its backend's
        ``mpi``: always, as aes-mpi, or with more than one rank, as a user kernel)."""
        b = registry.BY_NAME.get(self.backend)
        need = b.mpi if b is not None else "never"
        return need == "always" or (need == "ranks" and self.ranks > 1)

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
    named = registry.BY_NAME.get(backend)
    if named is not None and named.named and impl == named.own_impl:
        head = f"{backend}-{cipher}"  # its own impl, left out (another one is named)
    elif named is not None and named.named:  # a named impl or program
        head = f"{backend}-{impl}-{cipher}"
    else:
        head = f"{backend}-{impl}-{mode}"
    if key_bits is not None:
        head += f"-k{key_bits}"
    pid = f"{head}-{_OP_TAG[op]}-{input_name}-r{ranks}-t{threads}"
    if backend == "user" and gpus:
        pid += f"-g{gpus}"
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
            for kernel in _user_kernels().kernels(cfg):
                _user_points(kernel, d, add)
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
    extra = {k: v for k, v in extra.items() if k not in kw}  # a point's own wins
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
    points are named by their cipher (OpenSSL EVP, the Python runners, command)."""
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
    """Points of the Python-side kernels (the Python runners, command) for one
    op/input: a runner's ciphers with each of its impls (those its backend names for a
    cipher: ``impls_for``), on its input ``sets`` only where it names them."""
    be = cfg["backends"]
    for b in registry.ALL:
        own = be.get(b.name)
        if b.kind != "python" or own is None:
            continue
        if own.get("sets") and d["input_set"] not in own["sets"]:
            continue
        if b.impls_for is None:
            for impl in own["impls"]:
                _cipher_points(cfg, b.name, impl, own["ciphers"], add, d)
            continue
        for c in own["ciphers"]:
            for impl in b.impls_for(c, own):
                _cipher_points(cfg, b.name, impl, [c], add, d)
    if be.get("command") is not None:
        for prog in be["command"]["programs"]:
            argv = tuple(prog.get(op, ()))
            _cipher_points(
                cfg, "command", prog["name"], prog["ciphers"], add, d, command=argv
            )


def _user_kernels() -> Any:
    """ciphersweep.plan.user_kernels, imported where the sweep is expanded: a process
    that only reads points (the drawing process, which unpickles them) never needs it
    or what it imports (the schema, YAML, the build fingerprints)."""
    from ciphersweep.plan import user_kernels

    return user_kernels


def _user_points(kernel: dict[str, Any], d: dict[str, Any], add: Any) -> None:
    """A user kernel's points for one op/input: each cipher at each of its ranks,
    threads and GPU counts (docs/kernel-contract.md), with the campaign's fixed
    repetitions (with ``precision``: its ``min_reps``; the contract has no stop rule)."""
    user_kernels = _user_kernels()
    build = user_kernels.build_of(kernel) if kernel.get("source") else None
    program = build.program if build else user_kernels.program_of(kernel)
    for c in kernel["ciphers"]:
        for r in kernel.get("ranks") or [1]:
            for t in kernel.get("threads") or [1]:
                for g in kernel.get("gpus") or [0]:
                    add(
                        backend="user",
                        impl=kernel["name"],
                        mode=_cipher_mode(c),
                        cipher=c,
                        ranks=r,
                        threads=t,
                        gpus=g,
                        command=tuple(kernel.get("args") or ()),
                        program=program,
                        build_key=build.key if build else None,
                        # the contract has no stop rule: its repetitions are fixed
                        target=None,
                        max_reps=None,
                        max_seconds=None,
                        **d,
                    )
