"""Busy-machine check before a local measurement.

A benchmark needs the cores it runs on. Before each local point the bench job samples
/proc over a short window: the tasks runnable besides itself (``procs_running`` of
/proc/stat, an instantaneous count) and the other processes using a good share of a CPU
that may run on the cores the kernel will use (their affinity intersects ours). The
orchestrator's own process (its other threads too: Snakemake finishing the job before)
and its ancestors (Snakemake, the shell) are not counted.
The one-minute load average is recorded but decides nothing: it lags, and on a small
machine it counts the campaign's own kernels of the minute before (a 2-core machine
running points back to back reads about 2 with nothing else running).
When the machine is busy the job prints ONE warning line and every record of the point
carries it (``busy_warning``, with ``busy_load1``), so the provenance section shows
which measurements were taken on a busy machine. Nothing here runs at parse time.

A bench job measures the points of its pack one after another (:class:`Monitor`): the
first check samples a window of SAMPLE_S; every later one counts the other processes'
CPU over the time since the previous check (the previous point's run, a longer window)
and reads the runnable tasks on either side of its snapshot of the processes (a
millisecond or so), so a pack does not wait SAMPLE_S before every point.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ciphersweep.job.cpusample import read_proc

# a process using at least this share of one CPU over the sample counts as CPU-heavy
HEAVY_SHARE = 0.5
SAMPLE_S = 0.1


@dataclass(frozen=True)
class Busy:
    load1: float
    cores: int
    heavy: list[tuple[int, str, float]] = field(default_factory=list)
    # mean count of runnable tasks besides the checking one over the window (None:
    # not sampled)
    runnable: float | None = None

    @property
    def warning(self) -> str | None:
        """One line saying why the machine is busy, or None when it is not."""
        parts = []
        if self.runnable is not None and self.runnable >= self.cores:
            word = "core" if self.cores == 1 else "cores"
            parts.append(
                f"{self.runnable:.1f} other runnable tasks on {self.cores} {word} "
                f"(load average {self.load1:.2f})"
            )
        if self.heavy:
            shown = ", ".join(
                f"{name} (pid {pid}, {100 * share:.0f}% CPU)"
                for pid, name, share in self.heavy[:3]
            )
            more = f" +{len(self.heavy) - 3} more" if len(self.heavy) > 3 else ""
            parts.append(f"other CPU-heavy processes: {shown}{more}")
        return "; ".join(parts) or None

    def fields(self) -> dict[str, object]:
        """The record fields of the check."""
        return {"busy_load1": round(self.load1, 2), "busy_warning": self.warning}


def _ticks(pid: int, proc: Path) -> tuple[str, int] | None:
    text = read_proc(f"{proc}/{pid}/stat")
    if not text:
        return None
    name = text[text.find("(") + 1 : text.rfind(")")]
    rest = text[text.rfind(")") + 2 :].split()
    # fields 14, 15 (utime, stime) of proc(5); rest starts at field 3
    return name, int(rest[11]) + int(rest[12])


def _ancestors(pid: int, proc: Path) -> set[int]:
    out = {pid}
    while pid > 1:
        try:
            text = (proc / str(pid) / "stat").read_text()
        except OSError:
            break
        pid = int(text[text.rfind(")") + 2 :].split()[1])
        out.add(pid)
    return out


def _allowed(pid: int, proc: Path) -> set[int] | None:
    try:
        for line in (proc / str(pid) / "status").read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                return _cpu_list(line.split(":", 1)[1].strip())
    except OSError:
        return None
    return None


def _cpu_list(text: str) -> set[int]:
    cpus: set[int] = set()
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        cpus.update(range(int(a), int(b or a) + 1))
    return cpus


def _running(proc: Path) -> int:
    """Tasks runnable right now, system-wide (/proc/stat ``procs_running``)."""
    for line in (proc / "stat").read_text().splitlines():
        if line.startswith("procs_running "):
            return int(line.split()[1])
    raise OSError(f"{proc / 'stat'}: no procs_running")


def _load1(proc: Path) -> float:
    return float((proc / "loadavg").read_text().split()[0])


def _own_running(proc: Path, pid: int) -> int:
    """Threads of the process ``pid`` runnable right now, the calling one left out: in
    a bench job, the orchestrator's own (Snakemake finishing the job before, its
    logger), whose bookkeeping between two packs lasts a few milliseconds."""
    me = str(threading.get_native_id())
    try:
        tids = os.listdir(proc / str(pid) / "task")
    except OSError:
        return 0
    running = 0
    for tid in tids:
        if tid == me:
            continue
        text = read_proc(f"{proc}/{pid}/task/{tid}/stat")
        if text and text[text.rfind(")") + 2 : text.rfind(")") + 3] == "R":
            running += 1
    return running


def _others_running(proc: Path) -> int:
    """Tasks runnable right now besides this one (it is running while it reads) and
    besides the other threads of its own process (the orchestrator's, not counted:
    :func:`_own_running`)."""
    return max(0, _running(proc) - 1 - _own_running(proc, os.getpid()))


def _runnable_others(
    proc: Path,
    sample_s: float,
    steps: int = 5,
    sleep: Callable[[float], None] = time.sleep,
) -> float:
    """Mean count of runnable tasks besides this one (it is running while it reads)
    over ``sample_s`` seconds."""
    seen = []
    for _ in range(steps):
        seen.append(_others_running(proc))
        sleep(sample_s / steps)
    return sum(seen) / len(seen)


def _pids(proc: Path) -> list[int]:
    return [int(name) for name in os.listdir(proc) if name.isdigit()]


Ticks = dict[int, tuple[str, int]]


def _snapshot(proc: Path, skip: set[int]) -> Ticks:
    """CPU ticks so far of every process but ``skip``."""
    return {p: t for p in _pids(proc) if p not in skip and (t := _ticks(p, proc))}


def _heavy_since(
    before: Ticks,
    after: Ticks,
    dt: float,
    proc: Path,
    mine: set[int],
    heavy_share: float,
) -> list[tuple[int, str, float]]:
    """The processes in ``before`` and ``after`` that used at least ``heavy_share`` of a
    CPU over the ``dt`` seconds between, on cores that intersect ``mine``; busiest
    first."""
    hz = os.sysconf("SC_CLK_TCK")
    heavy = []
    for pid, (name, ticks0) in before.items():
        now = after.get(pid)
        if now is None:
            continue
        share = (now[1] - ticks0) / hz / max(dt, 1e-6)
        if share >= heavy_share and (_allowed(pid, proc) or mine) & mine:
            heavy.append((pid, name, share))
    heavy.sort(key=lambda h: -h[2])
    return heavy


def check(
    cores: set[int] | None = None,
    sample_s: float = SAMPLE_S,
    proc: Path = Path("/proc"),
    heavy_share: float = HEAVY_SHARE,
) -> Busy:
    """Load average and the other CPU-heavy processes that may run on ``cores``
    (default: the cores this process may use)."""
    return Monitor(proc, sample_s, heavy_share).check(cores)


class Monitor:
    """The busy checks of one bench job, before each of its points.

    Each check counts the other processes' CPU over a window of at least ``sample_s``
    that ends now: since the newest earlier check at least that old (in a pack of
    short points, a few points back), or, waiting for the rest, since the oldest one
    (the first check: since :meth:`open`, or since itself). ``clock`` and ``sleep``
    are the time it reads and waits by (``time.monotonic``, ``time.sleep``)."""

    def __init__(
        self,
        proc: Path = Path("/proc"),
        sample_s: float = SAMPLE_S,
        heavy_share: float = HEAVY_SHARE,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.proc, self.sample_s, self.heavy_share = proc, sample_s, heavy_share
        self.clock, self.sleep = clock, sleep
        self.skip = _ancestors(os.getpid(), proc)
        self.seen: list[tuple[float, Ticks]] = []  # (clock, ticks), oldest first
        self.lock = threading.Lock()  # bench jobs may run side by side in a process

    def check(self, cores: set[int] | None = None) -> Busy:
        """As :func:`check`, over the window described above."""
        with self.lock:
            return self._check(cores)

    def open(self) -> None:
        """Open the first window now (the workflow's ``onstart``, as the run starts):
        the first check then counts from here, and waits only for what is left of
        ``sample_s``, usually nothing."""
        with self.lock:
            self._open()

    def _open(self) -> None:
        if not self.seen:
            self.seen.append((self.clock(), _snapshot(self.proc, self.skip)))

    def _check(self, cores: set[int] | None) -> Busy:
        mine = cores if cores is not None else set(os.sched_getaffinity(0))
        self._open()
        now = self.clock()
        old = [k for k, (t, _) in enumerate(self.seen) if now - t >= self.sample_s]
        if old:
            # the runnable tasks read on either side of the processes' snapshot
            first = _others_running(self.proc)
            ticks = _snapshot(self.proc, self.skip)
            runnable = (first + _others_running(self.proc)) / 2
            base = old[-1]
        else:
            wait = self.sample_s - (now - self.seen[0][0])
            runnable = _runnable_others(self.proc, wait, sleep=self.sleep)
            ticks = _snapshot(self.proc, self.skip)
            base = 0
        t0, before = self.seen[base]
        dt = self.clock() - t0
        heavy = _heavy_since(before, ticks, dt, self.proc, mine, self.heavy_share)
        self.seen = [*self.seen[base:], (self.clock(), ticks)]
        return Busy(_load1(self.proc), len(mine), heavy, runnable)

    def before_point(self, point_id: str, where: str, log: TextIO) -> dict[str, Any]:
        """Local runs: load and other CPU-heavy processes before the kernel starts;
        one warning line (job log and stderr) when the machine is busy; the record
        fields."""
        if where != "local":
            return {}
        try:
            found = self.check()
        except OSError as exc:  # no /proc: say so, never stop a measurement
            print(f"busy check: not possible ({exc})", file=log)
            return {}
        print(
            f"busy check: load {found.load1:.2f}, {found.warning or 'idle'}", file=log
        )
        if found.warning:
            line = (
                f"ciphersweep: warning: busy machine before {point_id}: {found.warning}"
            )
            print(line, file=sys.stderr, flush=True)
        return found.fields()
