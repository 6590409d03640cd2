"""The lock of a run that was killed outright.

Snakemake locks the working directory while a run is in progress and releases the
lock however the run ends, except where its process is killed outright (``kill -9``,
the out-of-memory killer, a machine lost): the lock stays, and every later run stops
with "Directory cannot be locked" until ``snakemake --unlock``. So a run names itself
beside its lock (:func:`claim`, once the lock is taken), and the next run releases a
lock whose run is gone (:func:`release_stale`, before Snakemake takes the lock): the
same command continues.

A lock is taken for stale only where this process can tell: the same machine, booted
the same time, and the same process namespace, where no process of the recorded number
and start time lives. A lock without a name (a run killed before it named itself, or
another tool's) or one from elsewhere is left to Snakemake's own message. So is the lock
of a killed run whose jobs still run (a kernel outlives a Snakemake killed alone): every
process a run starts carries the run's name in its environment (:func:`mark_run`), and
the next run gives them a moment to end (:data:`ENDING_S`: the killed run's drawing
process ends once it has started and finds its run gone), then names those still
running and leaves the lock in place until they end rather than measure beside them.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil

from ciphersweep.core import atomic

# beside Snakemake's own lock files (``<n>.input.lock``, ``<n>.output.lock``), which
# Snakemake removes with their folder when it releases the lock
OWNER = "ciphersweep-owner.json"
LOCKS = Path(".snakemake") / "locks"
# the run every process of a run belongs to (its environment; no kernel reads it)
RUN_VAR = "CIPHERSWEEP_RUN"
# how long the next run waits for a killed run's processes to end before it keeps the
# lock (a drawing process still importing its libraries ends on its own within seconds)
ENDING_S = 15.0


@dataclass(frozen=True)
class Owner:
    """The run holding a lock: its machine, boot, process namespace, pid and the
    time its process started."""

    host: str
    boot: float
    pidns: str
    pid: int
    started: float
    run: str = ""


def _pidns() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def this_process() -> Owner:
    pid = os.getpid()
    return Owner(
        host=socket.gethostname(),
        boot=psutil.boot_time(),
        pidns=_pidns(),
        pid=pid,
        started=psutil.Process(pid).create_time(),
        run=os.environ.get(RUN_VAR, ""),
    )


def mark_run() -> str:
    """Name this run in its environment (every process it starts inherits it)."""
    me = psutil.Process()
    os.environ[RUN_VAR] = f"{me.pid}:{me.create_time()}"
    return os.environ[RUN_VAR]


def survivors(owner: Owner) -> list[psutil.Process]:
    """The live processes of the run ``owner`` (its name in their environment),
    this process and its ancestors aside."""
    if not owner.run:
        return []
    mine = {os.getpid(), *(p.pid for p in psutil.Process().parents())}
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.pid not in mine and proc.environ().get(RUN_VAR) == owner.run:
                found.append(proc)
        except psutil.Error:  # gone meanwhile, or another user's
            continue
    return found


def claim(locks: str | Path = LOCKS) -> Path:
    """Name this process as the run holding the lock in ``locks``."""
    path = Path(locks) / OWNER
    atomic.write_text(path, json.dumps(asdict(this_process())) + "\n")
    return path


def _recorded(locks: Path) -> Owner | None:
    try:
        data = json.loads((locks / OWNER).read_text())
        return Owner(**data)
    except (OSError, ValueError, TypeError):
        return None


def _alive(owner: Owner) -> bool:
    try:
        proc = psutil.Process(owner.pid)
        # (create_time is rounded differently in different calls: a margin)
        return abs(proc.create_time() - owner.started) < 1.0
    except psutil.Error:
        return False


def stale(locks: str | Path = LOCKS) -> Owner | None:
    """The run that holds the lock in ``locks`` where it is known to be gone (None:
    no lock, a live run, or one this process cannot tell about)."""
    folder = Path(locks)
    if not any(folder.glob("*.lock")):
        return None
    owner = _recorded(folder)
    if owner is None:
        return None
    me = this_process()
    if (owner.host, owner.pidns) != (me.host, me.pidns):
        return None
    if abs(owner.boot - me.boot) < 1.0 and _alive(owner):
        return None
    return owner


def release_stale(locks: str | Path = LOCKS) -> str | None:
    """Release the lock in ``locks`` of a run that is gone, as ``snakemake --unlock``
    does; the one line that says so, or why a gone run's lock stays (None: no such
    lock)."""
    owner = stale(locks)
    if owner is None:
        return None
    left = survivors(owner)
    if left:
        _, left = psutil.wait_procs(left, timeout=ENDING_S)
    if left:
        named = ", ".join(f"{p.pid} {_name(p)}" for p in left[:3])
        return (
            f"ciphersweep: the run that was killed (pid {owner.pid}) still has "
            f"{len(left)} process(es) running ({named}): its lock stays until they end"
        )
    shutil.rmtree(locks, ignore_errors=True)
    return (
        f"ciphersweep: the lock of a run that was killed (pid {owner.pid} on "
        f"{owner.host}) is released; this run continues its work"
    )


def _name(proc: psutil.Process) -> str:
    try:
        return proc.name()
    except psutil.Error:
        return "?"
