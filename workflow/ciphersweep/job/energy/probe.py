"""The energy source of one job (decided once per job) and its records finished after
the kernel ran."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ciphersweep.job.energy.cores import allowed_cores, cores_for
from ciphersweep.job.energy.likwid import (
    check_likwid,
    has_markers,
    likwid_csv_path,
    merge_likwid,
    read_likwid_csv,
)
from ciphersweep.job.energy.nvml import check_nvml
from ciphersweep.job.energy.powercap import check_rapl
from ciphersweep.job.energy.source import (
    EXCLUSIVE_CAVEAT,
    MODES,
    Probe,
    SourceCheck,
    get_field,
    join_notes,
)


def probe(
    cores: Sequence[int] | str | None = None,
    mode: str | None = None,
    *,
    backend: str | None = None,
    binary: str | os.PathLike[str] | None = None,
    point: Any = None,
    likwid_timeout: float = 20.0,
    check_likwid_fn: Callable[[tuple[int, ...], float], SourceCheck] | None = None,
) -> Probe:
    """Decide the energy source of one job. Run once per job; caches nothing.

    ``cores``: the cores the kernel is pinned to (likwid's ``-C``; default: those of
    :func:`cores_for` ``point``, else the first core this job may use). ``mode``: the
    campaign's ``platform.energy`` (``auto`` tries likwid, then RAPL; ``none`` measures
    nothing; ``likwid``/``rapl`` try only that source); ``probe("auto")`` is accepted
    too. ``backend``: the point's backend (``mpi`` never uses likwid, ``cuda`` uses
    NVML), taken from ``point`` when given. ``binary``: the kernel binary; when given,
    likwid is used only if it has likwid's Marker API compiled in (so that its
    region exists). ``check_likwid_fn``: replaces :func:`check_likwid` (a caller that
    runs many jobs in one process may reuse one likwid check per core).
    """
    if isinstance(cores, str):  # probe(mode)
        cores, mode = None, cores
    mode = mode or "auto"
    if point is not None:
        backend = backend or get_field(point, "backend")
        if cores is None:
            cores = cores_for(point)
    if cores is None:
        cores = allowed_cores()[:1]
    if mode not in MODES:
        raise ValueError(f"energy mode {mode!r} is not one of {', '.join(MODES)}")
    cores_t = tuple(int(c) for c in cores)
    if mode == "none":
        note = "energy disabled (platform.energy: none)"
        return Probe(mode, cores_t, backend, None, "none", note)

    def likwid() -> SourceCheck:
        fn = check_likwid_fn or _check_likwid_positional
        return _likwid_check(backend, cores_t, binary, fn, likwid_timeout)

    checks: list[SourceCheck] = []
    for check in _checks_in_order(mode, backend, likwid):
        checks.append(check)
        if check.ok:
            break
    source = checks[-1].name if checks and checks[-1].ok else None
    reasons = [c.reason or _UNAVAILABLE[c.name] for c in checks if not c.ok]
    # The kernel's own readers (powercap, NVML) stay on with "auto": harmless next to
    # likwid, and their values remain when likwid's output cannot be read.
    kernel_energy = {"rapl": "rapl", "likwid": "none"}.get(mode, "auto")
    note = "; ".join(reasons) or None
    return Probe(mode, cores_t, backend, source, kernel_energy, note, tuple(checks))


_UNAVAILABLE = {
    "nvml": "nvml: unavailable",
    "likwid": "likwid: unavailable",
    "rapl": "powercap: unavailable",
}


def _checks_in_order(
    mode: str, backend: str | None, likwid: Callable[[], SourceCheck]
) -> Iterator[SourceCheck]:
    """The source checks of a mode, lazily, in the order they are tried: NVML for a
    CUDA point, else likwid (``auto``, ``likwid``); then RAPL (not for ``likwid``)."""
    if backend == "cuda" and mode == "auto":
        yield check_nvml()
    elif mode in ("auto", "likwid"):
        yield likwid()
        if mode == "likwid":
            return
    yield check_rapl()


def _likwid_check(
    backend: str | None,
    cores: tuple[int, ...],
    binary: str | os.PathLike[str] | None,
    check: Callable[[tuple[int, ...], float], SourceCheck],
    timeout: float,
) -> SourceCheck:
    """likwid for one point: never for MPI, and only for a binary with its Marker API."""
    if backend == "mpi":
        return SourceCheck(
            "likwid",
            False,
            "likwid: not used for MPI points (per-rank readings of shared sockets cannot be summed)",
        )
    lk = check(cores[:1] or (0,), timeout)
    if lk.ok and binary is not None and not has_markers(binary):
        return SourceCheck(
            "likwid",
            False,
            f"likwid: {Path(binary).name} built without likwid's Marker API",
            lk.detail,
        )
    return lk


def _check_likwid_positional(cores: tuple[int, ...], timeout: float) -> SourceCheck:
    return check_likwid(cores, timeout=timeout)


def annotate(
    records: list[dict[str, Any]],
    p: Probe | None,
    point: Any = None,
    likwid_csv: str | os.PathLike[str] | None = None,
) -> list[dict[str, Any]]:
    """Finish a point's records after the kernel ran (in place; also returned).

    1. When likwid was the source (and the point had the wrapper): parse its CSV
       (``likwid_csv``, default :func:`likwid_csv_path` of ``point``) and
       :func:`merge_likwid` it into the records; the CSV file is removed afterwards.
    2. Records whose ``joules`` is null get the probe's reasons in ``energy_note`` (the
       kernel only knows about its own readers; the probe also knows why likwid was not
       used). Records with a value get the exclusivity caveat.
    Failed records are left alone.
    """
    if p is None:
        return records
    likwid_point = point is None or get_field(point, "backend") not in ("mpi", "cuda")
    if p.uses_likwid and (point is not None or likwid_csv is not None) and likwid_point:
        path = Path(likwid_csv) if likwid_csv is not None else likwid_csv_path(point)
        for rec, new in zip(
            records, merge_likwid(records, read_likwid_csv(path)), strict=True
        ):
            rec.update(new)
        if likwid_csv is None:
            path.unlink(missing_ok=True)
    for r in records:
        if r.get("status", "ok") != "ok":
            continue
        if r.get("joules") is None:
            r["joules"] = None
            r["energy_source"] = None
            r["energy_note"] = join_notes(p.note, r.get("energy_note"))
        else:
            r["energy_note"] = join_notes(r.get("energy_note"), EXCLUSIVE_CAVEAT)
    return records


def kernel_flag(p: Probe | None) -> str:
    """The kernel's ``--energy`` value for this job."""
    return p.kernel_energy if p is not None else "auto"
