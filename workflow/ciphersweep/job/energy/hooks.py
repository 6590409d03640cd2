"""The bench job's use of the energy sources: one probe per machine shape within a
workflow process, the launch-line wrapper and the kernel's ``--energy`` flag, and the
point's records finished with the energy after the kernel ran.

Energy never stops a timing run: any problem here leaves energy unmeasured, with a line
in the job log saying why."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any, TextIO

from ciphersweep.job.energy.likwid import merge_likwid, wrapper
from ciphersweep.job.energy.likwid_csv import parse_likwid_csv
from ciphersweep.job.energy.likwid_memo import checked, machine_wide
from ciphersweep.job.energy.probe import annotate, probe
from ciphersweep.job.energy.source import Probe, SourceCheck
from ciphersweep.plan.sweep import Point


@lru_cache(maxsize=64)
def _cached_likwid_check(cores: tuple[int, ...], timeout: float) -> SourceCheck:
    """likwid-perfctr's answer for a core (a second or more to ask): asked once per core
    within one workflow process (local runs execute all bench jobs in one process; under
    Slurm every job is a process of its own), not again for other cores once an answer
    holds for the whole machine (likwid_memo.machine_wide), and not at all while a
    lasting answer is kept for this machine (likwid_memo)."""
    for asked in _machine_answers():
        return asked
    found = checked(cores, timeout)
    if machine_wide(found):
        _machine_answers().append(found)
    return found


@lru_cache(maxsize=1)
def _machine_answers() -> list[SourceCheck]:
    """The answer of this process's likwid-perfctr that holds for every core (at most
    one)."""
    return []


@lru_cache(maxsize=64)
def _cached_probe(
    cores: tuple[int, ...], mode: str, backend: str, binary: str | None
) -> Probe:
    """One probe per machine shape within one workflow process."""
    return probe(
        cores,
        mode,
        backend=backend,
        binary=binary,
        check_likwid_fn=_cached_likwid_check,
    )


def setup(
    point: Point, mode: str, binary: str | None, likwid_csv: str, log: TextIO
) -> tuple[list[str], str, Probe | None]:
    """The energy wrapper prefix of the launch line, the kernel's ``--energy`` flag and
    the probe (None when the probe failed) of one point; ``mode`` is the campaign's
    ``platform.energy``."""
    try:
        cores = sorted(os.sched_getaffinity(0))[: max(1, point.ranks * point.threads)]
        found = _cached_probe(tuple(cores), mode, point.backend, binary)
        prefix = list(wrapper(point, found, out=likwid_csv) or [])
        print(found.summary(), file=log)
        return prefix, found.kernel_energy, found
    except Exception as exc:  # noqa: BLE001 - energy must never stop a timing run
        print(f"energy: probe failed ({exc}); continuing without energy", file=log)
        return [], "none" if mode == "none" else "auto", None


def finish(
    records: list[dict[str, Any]],
    found: Probe | None,
    likwid_csv: str,
    log: TextIO,
) -> list[dict[str, Any]]:
    """A point's admitted-to-be records with likwid's energy merged in (when it was the
    source) and the probe's reasons where there is no energy."""
    if found is None:
        return records
    try:
        if found.uses_likwid:
            path = Path(likwid_csv)
            text = path.read_text() if path.exists() else ""
            records = merge_likwid(records, parse_likwid_csv(text) if text else None)
        return annotate(records, found)
    except Exception as exc:  # noqa: BLE001 - energy never stops a timing run
        print(f"energy: could not add energy ({exc})", file=log)
        return records
