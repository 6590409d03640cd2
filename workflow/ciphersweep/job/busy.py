"""Busy-machine check before a local measurement.

A benchmark needs the cores it runs on. Before each local point the bench job looks at
the load average and samples /proc for other processes using a good share of a CPU
that may run on the cores the kernel will use (their affinity intersects ours). The
orchestrator's own process and its ancestors (Snakemake, the shell) are not counted.
When the machine is busy the job prints ONE warning line and every record of the point
carries it (``busy_warning``, with ``busy_load1``), so the provenance section shows
which measurements were taken on a busy machine. Nothing here runs at parse time.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

# a process using at least this share of one CPU over the sample counts as CPU-heavy
HEAVY_SHARE = 0.5
SAMPLE_S = 0.1


@dataclass(frozen=True)
class Busy:
    load1: float
    cores: int
    heavy: list[tuple[int, str, float]] = field(default_factory=list)

    @property
    def warning(self) -> str | None:
        """One line saying why the machine is busy, or None when it is not."""
        parts = []
        if self.load1 > self.cores:
            word = "core" if self.cores == 1 else "cores"
            parts.append(f"load average {self.load1:.2f} on {self.cores} {word}")
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
    try:
        text = (proc / str(pid) / "stat").read_text()
    except OSError:
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


def _pids(proc: Path) -> list[int]:
    return [int(p.name) for p in proc.iterdir() if p.name.isdigit()]


def check(
    cores: set[int] | None = None,
    sample_s: float = SAMPLE_S,
    proc: Path = Path("/proc"),
    heavy_share: float = HEAVY_SHARE,
) -> Busy:
    """Load average and the other CPU-heavy processes that may run on ``cores``
    (default: the cores this process may use)."""
    mine = cores if cores is not None else set(os.sched_getaffinity(0))
    skip = _ancestors(os.getpid(), proc)
    hz = os.sysconf("SC_CLK_TCK")
    before = {p: t for p in _pids(proc) if p not in skip and (t := _ticks(p, proc))}
    t0 = time.monotonic()
    time.sleep(sample_s)
    dt = time.monotonic() - t0
    heavy = []
    for pid, (name, ticks0) in before.items():
        now = _ticks(pid, proc)
        if now is None:
            continue
        share = (now[1] - ticks0) / hz / dt
        if share >= heavy_share and (_allowed(pid, proc) or mine) & mine:
            heavy.append((pid, name, share))
    heavy.sort(key=lambda h: -h[2])
    return Busy(os.getloadavg()[0], len(mine), heavy)


def before_point(point_id: str, where: str, log: TextIO) -> dict[str, Any]:
    """Local runs: load and other CPU-heavy processes before the kernel starts; one
    warning line (job log and stderr) when the machine is busy; the record fields."""
    if where != "local":
        return {}
    try:
        found = check()
    except OSError as exc:  # no /proc: say so, never stop a measurement
        print(f"busy check: not possible ({exc})", file=log)
        return {}
    print(f"busy check: load {found.load1:.2f}, {found.warning or 'idle'}", file=log)
    if found.warning:
        line = f"ciphersweep: warning: busy machine before {point_id}: {found.warning}"
        print(line, file=sys.stderr, flush=True)
    return found.fields()
