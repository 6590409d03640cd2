"""A pack's bench job: the pending points of one pack, one after another, and its list.

THE place that decides which points of a pack a bench job measures. A point is pending
when its records do not hold (``why``, from :func:`ciphersweep.verdict.admission.pending`:
no raw file, a failure, damage, another fingerprint, other parameters, an input newer
than the records); the others keep their records untouched. When Snakemake runs a pack
with nothing pending and the pack's list unchanged, it was asked to (``--forcerun``,
``-R``, ``-F``): every point of the pack is measured again.

The pack's list (one point per line) is the job's output, written when every point is
done. The analysis does not read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ciphersweep.job import busy as cs_busy
from ciphersweep.job import runner as cs_runner
from ciphersweep.job.spec import RunSpec
from ciphersweep.plan.sweep import Point

FORCED = "run again on request (the bench job was forced)"


@dataclass(frozen=True)
class Member:
    """A point of the pack, how to run it, and why it is measured (None: it holds)."""

    point: Point
    spec: RunSpec
    why: str | None


def listed(path: str | Path) -> list[str] | None:
    """The points of a pack's list (None: no list)."""
    try:
        return Path(path).read_text().split()
    except OSError:
        return None


def chosen(
    members: Sequence[Member], list_path: str | Path
) -> list[tuple[Member, str]]:
    """The members to measure, each with why."""
    todo = [(m, m.why) for m in members if m.why]
    if todo:
        return todo
    if listed(list_path) == [m.point.id for m in members]:
        return [(m, FORCED) for m in members]
    return []


def run_pack(
    members: Sequence[Member],
    list_path: str | Path,
    log_path: str | Path,
    on_point: Callable[[str, dict[str, Any]], None],
    monitor: cs_busy.Monitor | None = None,
) -> None:
    """Measure the pack's chosen points (each writes its raw file and its own log),
    report each to ``on_point`` as it ends, then write the pack's list. ``monitor``:
    the busy checks (one the packs of a process share: a pack after another needs no
    sampling window of its own)."""
    todo = chosen(members, list_path)
    monitor = monitor or cs_busy.Monitor()
    for m in members:  # what a bench job killed meanwhile left of its points
        cs_runner.remove_scratch(m.spec.out_path)
    with open(log_path, "w") as log:
        print(
            f"{Path(list_path).stem}: {len(todo)} of {len(members)} point(s) to measure",
            file=log,
            flush=True,
        )
        for m, why in todo:
            print(f"{m.point.id}: {why}", file=log, flush=True)
            summary = cs_runner.run_point(m.point, m.spec, busy=monitor)
            print(f"{m.point.id}: {summary['status']}", file=log, flush=True)
            on_point(m.point.id, summary)
    write_members(list_path, [m.point.id for m in members])


def write_members(
    path: str | Path, members: Sequence[str], log: str | Path = ""
) -> None:
    """``path``: one member per line; ``log`` (if given): how many."""
    Path(path).write_text("".join(f"{m}\n" for m in members))
    if log:
        Path(log).write_text(f"{Path(path).stem}: {len(members)} member(s)\n")
