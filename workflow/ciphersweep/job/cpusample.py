"""Sampled CPU %: the highest CPU use of a process tree seen while it runs.

The study that reported it (Centellas Claros et al. 2021, §5.3) ran a thread beside
the encryption that sampled the CPU % and kept the highest sample; its published code
calls ``psutil.cpu_percent()`` every 0.5 s: the whole system's use since the previous
call, as a share of all logical CPUs (one busy thread on its 8-thread i7-6700HQ reads
12.5 %, and every other process counts too). Here the figure is the kernel's own: the
bench job, from outside the kernel, reads every ``interval`` seconds the CPU time of
the kernel's process and all its descendants from /proc (per-thread ``schedstat``,
nanoseconds; ``stat`` ticks where schedstat is missing) and keeps the highest (CPU
time used) / (wall time passed) x 100 over any window of ``WINDOW_S`` (0.1 s) between
two samples. 100 means one core busy for the whole window; several busy threads give
more. So it differs from the study's in scope (the process tree, not the system), in
scale (per core, not per machine: the study's figure is about this one divided by
the number of logical CPUs, plus the rest of the system) and in window (0.1 s, not
0.5 s). The window is what makes the figure true: the kernel brings a
running thread's CPU time up to date only at scheduler ticks (every 4 or 10 ms), so
over one 10 ms interval a single busy thread reads up to 140-200 %; over 0.1 s the
error is at most a tick in 100 ms. A run shorter than the window gets its average over
the run. This sits beside ``cpu_util`` (getrusage over the timed region), which is an
average, not a peak.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
DEFAULT_INTERVAL = 0.01
WINDOW_S = 0.1


def read_proc(path: str) -> str | None:
    """A /proc file's text (None once it is gone), read with one system call: these
    files are a page at most, and a Python file object costs twice the read itself
    (the sampler reads several every interval, beside the kernel it measures)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, 65536).decode(errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _tasks(pid: int) -> list[str]:
    """Thread ids of ``pid`` ([] once it is gone: it may end between any two reads)."""
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


def _children(pid: int) -> list[int] | None:
    """Children from /proc/<pid>/task/*/children; None where the kernel lacks that
    file (CONFIG_PROC_CHILDREN)."""
    tasks = f"/proc/{pid}/task"
    out: list[int] = []
    for task in _tasks(pid):
        text = read_proc(f"{tasks}/{task}/children")
        if text is None:
            return None
        out += [int(x) for x in text.split()]
    return out


def _parents() -> dict[int, list[int]]:
    """Parent pid -> children, from one pass over /proc/*/stat."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        stat = read_proc(f"/proc/{d}/stat")
        if stat is None:
            continue
        ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    return kids


def tree(pid: int) -> list[int]:
    """``pid`` and every live descendant."""
    seen: list[int] = []
    todo = [pid]
    scan: dict[int, list[int]] | None = None
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.append(p)
        kids = _children(p)
        if kids is None:
            scan = _parents() if scan is None else scan
            kids = scan.get(p, [])
        todo += kids
    return seen


def process_cpu_s(pid: int) -> float | None:
    """CPU seconds of one process (all its threads) plus its waited-for children; None
    when the process is gone."""
    stat = read_proc(f"/proc/{pid}/stat")
    if stat is None:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    # fields[11..14]: utime stime cutime cstime (ticks); [17]: num_threads
    ticks = [int(x) for x in fields[11:15]]
    waited = (ticks[2] + ticks[3]) / _TICK
    total_ns = 0
    # a process of one thread is its own only task: no listing of /proc/PID/task
    tasks = [str(pid)] if fields[17] == "1" else _tasks(pid)
    for t in tasks:
        s = read_proc(f"/proc/{pid}/task/{t}/schedstat")
        if s is None or not s.split():
            return (ticks[0] + ticks[1]) / _TICK + waited
        total_ns += int(s.split()[0])
    if not tasks:
        return (ticks[0] + ticks[1]) / _TICK + waited
    return total_ns / 1e9 + waited


class TreeReader:
    """CPU seconds of a process tree; the tree itself is looked up again only every
    ``rescan`` seconds (a full /proc pass where the children files are missing)."""

    def __init__(self, rescan: float = 0.05) -> None:
        self.rescan = rescan
        self._pids: list[int] = []
        self._when = -1e9

    def __call__(self, pid: int) -> float | None:
        now = time.monotonic()
        if now - self._when >= self.rescan or not self._pids:
            self._pids, self._when = tree(pid), now
        return tree_cpu_s(pid, self._pids)


def tree_cpu_s(pid: int, pids: Sequence[int] | None = None) -> float | None:
    """CPU seconds of ``pid`` and its descendants (None: ``pid`` is gone)."""
    root = process_cpu_s(pid)
    if root is None:
        return None
    total = root
    for p in tree(pid) if pids is None else pids:
        v = process_cpu_s(p) if p != pid else None
        if v is not None:
            total += v
    return total


class Sampler:
    """Samples the CPU % of a process tree in a background thread until stopped."""

    def __init__(
        self,
        pid: int,
        interval: float = DEFAULT_INTERVAL,
        read: Callable[[int], float | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        window: float = WINDOW_S,
    ) -> None:
        self.pid = pid
        self.interval = interval
        self.window = window
        self.read = read if read is not None else TreeReader()
        self.clock = clock
        self.peak: float | None = None
        self.samples = 0
        self.cpu_seen = 0.0  # CPU seconds the samples accounted for
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        # the readings kept for the window: (CPU seconds, clock before the reading)
        self._kept: deque[tuple[float, float]] = deque()
        self._end: tuple[float, float] | None = None  # the last (CPU, clock after)

    def sample(self) -> None:
        """Take one sample (the thread calls this every interval).

        Reading a tree's CPU time takes a while (several /proc files) and the reading
        lies somewhere within it, so a window runs from before its first reading to
        after its last: the longest it can have been."""
        before = self.clock()
        cpu = self.read(self.pid)
        after = self.clock()
        if cpu is None:
            return
        kept = self._kept
        if kept and cpu < kept[-1][0]:  # a reaped child made the tree sum drop
            kept.clear()
        if kept:
            self.cpu_seen += cpu - kept[-1][0]
        while len(kept) >= 2 and kept[1][1] <= after - self.window:
            kept.popleft()
        if kept and after - kept[0][1] >= self.window:
            self._record(cpu - kept[0][0], after - kept[0][1])
        kept.append((cpu, before))
        self._end = (cpu, after)

    def _record(self, dcpu: float, dt: float) -> None:
        if dt > 0 and dcpu >= 0:
            pct = 100.0 * dcpu / dt
            self.peak = pct if self.peak is None else max(self.peak, pct)
            self.samples += 1

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def start(self) -> Sampler:
        self._thread.start()
        return self

    def stop(self) -> float | None:
        """Stop sampling; a run shorter than the window gets its average."""
        self._stop.set()
        if self._thread.ident is not None:  # started
            self._thread.join()
        if self.peak is None and self._end is not None and len(self._kept) >= 2:
            first = self._kept[0]
            self._record(self._end[0] - first[0], self._end[1] - first[1])
        return self.peak


def kill_tree(pid: int) -> None:
    """SIGKILL a process and every descendant (a timed-out kernel's programs too)."""
    for p in reversed(tree(pid)):
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def run(
    argv: Sequence[str],
    *,
    timeout: float | None = None,
    interval: float = DEFAULT_INTERVAL,
    **kw: Any,
) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run`` with the process tree's CPU sampled while it runs; the
    result has ``cpu_peak_pct`` (None when the run ended before two samples). On a
    timeout the whole process tree is killed, then TimeoutExpired is raised."""
    if kw.pop("capture_output", False):
        kw["stdout"] = kw["stderr"] = subprocess.PIPE
    with subprocess.Popen(list(argv), **kw) as proc:
        sampler = Sampler(proc.pid, interval).start()
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_tree(proc.pid)
            out, err = proc.communicate()
            sampler.stop()
            raise subprocess.TimeoutExpired(proc.args, timeout or 0, out, err) from None
        finally:
            if sampler._thread.is_alive():
                sampler.stop()
    res: subprocess.CompletedProcess[Any] = subprocess.CompletedProcess(
        proc.args, proc.returncode, out, err
    )
    res.cpu_peak_pct = sampler.peak  # type: ignore[attr-defined]
    res.cpu_seen_s = sampler.cpu_seen  # type: ignore[attr-defined]
    return res
