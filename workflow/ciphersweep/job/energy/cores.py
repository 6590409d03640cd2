"""The cores a job may use and the cores a point's kernel is pinned to under likwid."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from ciphersweep.job.energy.source import get_field


def allowed_cores() -> list[int]:
    """The cores this job may run on (its affinity mask, e.g. Slurm's cgroup)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return list(range(os.cpu_count() or 1))


def cores_for(point: Any, allowed: Sequence[int] | None = None) -> tuple[int, ...]:
    """The cores a point's kernel is pinned to under likwid: one per thread, the first
    ones the job may use (MPI ranks are pinned by the launcher, not here)."""
    cores = list(allowed) if allowed is not None else allowed_cores()
    threads = max(1, int(get_field(point, "threads") or 1))
    return tuple(cores[:threads])


def format_cpulist(cores: Iterable[int]) -> str:
    """likwid/taskset style list: 0-3,8,10-11."""
    cs = sorted({int(c) for c in cores})
    parts: list[str] = []
    i = 0
    while i < len(cs):
        j = i
        while j + 1 < len(cs) and cs[j + 1] == cs[j] + 1:
            j += 1
        parts.append(str(cs[i]) if i == j else f"{cs[i]}-{cs[j]}")
        i = j + 1
    return ",".join(parts)
