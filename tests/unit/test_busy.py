"""The busy-machine check: a real CPU-bound process is found through /proc, on the
cores it may run on only; the warning is one line and lands in the records' fields."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from ciphersweep.job import busy

# says so once it spins: a test starts when the spinner runs, not when Python has started
SPIN = (
    "import time\nprint('spinning', flush=True)\n"
    "t = time.monotonic() + 20\nwhile time.monotonic() < t: pass\n"
)


class Clock:
    """The checks' time, moved only by their waits and the test's, so the windows a
    check asks for are the logic's whatever the machine's speed at that moment.

    Paced by a process (``pid``), a wait of ``s`` lasts until that process has had
    ``s`` seconds of CPU, as if it had a core to itself: over any window of this clock
    it used at least the whole window, however little CPU a crowded machine gives it.
    Without one, a wait is a real sleep of ``s``."""

    def __init__(self, pid: int | None = None) -> None:
        self.now, self.pid = 1000.0, pid

    def __call__(self) -> float:
        return self.now

    def _cpu_s(self) -> float:
        assert self.pid is not None
        found = busy._ticks(self.pid, Path("/proc"))
        assert found is not None, f"process {self.pid} is gone"
        return found[1] / os.sysconf("SC_CLK_TCK")

    def sleep(self, s: float) -> None:
        if self.pid is None:
            time.sleep(s)
        else:
            start, deadline = self._cpu_s(), time.monotonic() + 300  # a hang guard
            while self._cpu_s() - start < s:
                assert time.monotonic() < deadline, f"{self.pid} got no CPU in 300 s"
                time.sleep(0.01)
        self.now = round(self.now + s, 9)  # whole nanoseconds: sums of waits are exact


@pytest.fixture
def spinner():
    cpus = sorted(os.sched_getaffinity(0))
    proc = subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE)
    os.sched_setaffinity(proc.pid, {cpus[0]})
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"spinning\n"
        yield proc, cpus
    finally:
        proc.kill()
        proc.wait()


def _monitor(clock: Clock, sample_s: float) -> busy.Monitor:
    return busy.Monitor(sample_s=sample_s, clock=clock, sleep=clock.sleep)


def test_cpu_heavy_process_on_our_cores_is_reported(spinner) -> None:
    """Found at the share that counts in a run (HEAVY_SHARE): the clock's window is
    one in which the spinner had a core's worth of CPU, however crowded the machine."""
    proc, cpus = spinner
    found = _monitor(Clock(proc.pid), 0.5).check(cores={cpus[0]})
    pids = [pid for pid, _, _ in found.heavy]
    assert proc.pid in pids
    assert os.getpid() not in pids  # the checking process itself never counts
    line = found.warning  # the three busiest are named: the spinner may not be one
    assert line and "\n" not in line and "other CPU-heavy processes:" in line
    assert found.fields()["busy_warning"] == line
    if len(cpus) > 1:  # pinned elsewhere: not on the cores to be used
        other = _monitor(Clock(proc.pid), 0.3).check(cores={cpus[1]})
        assert proc.pid not in [pid for pid, _, _ in other.heavy]


def test_load_warning_and_quiet_machine_fields() -> None:
    assert busy.Busy(3.5, 2, runnable=2.4).warning == (
        "2.4 other runnable tasks on 2 cores (load average 3.50)"
    )
    assert busy.Busy(0.2, 2).warning is None
    assert busy.Busy(0.2, 2).fields() == {"busy_load1": 0.2, "busy_warning": None}
    many = busy.Busy(0.1, 2, [(i, "x", 1.0) for i in range(5)])
    assert many.warning.endswith("+2 more")
    assert busy._cpu_list("0-2,5") == {0, 1, 2, 5}


def test_the_campaigns_own_load_average_is_no_warning(tmp_path: Path) -> None:
    """A 2-core machine running points back to back reads a load average of about 2
    with nothing else running (the kernels of the minute before): only tasks runnable
    besides the checking one, now, make a busy machine."""
    assert busy.Busy(2.15, 2, runnable=0.2).warning is None
    (tmp_path / "loadavg").write_text("2.15 1.90 1.40 1/180 4242\n")
    stat = tmp_path / "stat"
    stat.write_text("cpu  1 2 3 4\nprocs_running 1\nprocs_blocked 0\n")
    quiet = busy.check(cores={0, 1}, sample_s=0.01, proc=tmp_path)
    assert (quiet.load1, quiet.runnable, quiet.warning) == (2.15, 0.0, None)
    stat.write_text("procs_running 4\n")  # three others on two cores
    crowded = busy.check(cores={0, 1}, sample_s=0.01, proc=tmp_path)
    assert crowded.runnable == 3.0
    assert crowded.warning == "3.0 other runnable tasks on 2 cores (load average 2.15)"


def test_the_orchestrators_own_runnable_threads_are_not_counted(tmp_path: Path) -> None:
    """Between two packs Snakemake's own threads finish the job before (a few
    milliseconds of bookkeeping): runnable then, they are the orchestrator's, not
    another user's load, and a 2-core point on a quiet machine is not called busy for
    them. Other tasks still count."""
    import threading

    (tmp_path / "loadavg").write_text("0.50 0.40 0.30 1/180 4242\n")
    (tmp_path / "stat").write_text("procs_running 3\n")  # this thread and two more
    tasks = tmp_path / str(os.getpid()) / "task"
    states = {threading.get_native_id(): "R", 901: "R", 902: "R", 903: "S"}
    for tid, state in states.items():
        (tasks / str(tid)).mkdir(parents=True)
        (tasks / str(tid) / "stat").write_text(f"{tid} (snakemake) {state} 1 2 3\n")
    quiet = busy.check(cores={0, 1}, sample_s=0.01, proc=tmp_path)
    assert (quiet.runnable, quiet.warning) == (0.0, None)
    (tmp_path / "stat").write_text("procs_running 5\n")  # two tasks not ours
    crowded = busy.check(cores={0, 1}, sample_s=0.01, proc=tmp_path)
    assert crowded.runnable == 2.0 and crowded.warning is not None


@pytest.mark.usefixtures("spinner")
def test_runnable_tasks_are_counted_on_this_machine() -> None:
    found = busy.check(sample_s=0.3)
    assert found.runnable is not None and found.runnable >= 0.4  # the spinner runs


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The windows the runnable tasks are sampled over, as the checks ask for them."""
    seen: list[float] = []
    sample = busy._runnable_others

    def counted(p: Path, sample_s: float, steps: int = 5, **kw: Any) -> float:
        seen.append(sample_s)
        return sample(p, sample_s, steps, **kw)

    monkeypatch.setattr(busy, "_runnable_others", counted)
    return seen


def test_a_packs_later_checks_use_the_time_since_the_previous_one(
    spinner, windows: list[float]
) -> None:
    """In a pack the first check samples its window; a later one counts the other
    processes' CPU since the newest earlier check at least a window old (the previous
    points' runs) and reads the runnable tasks without a window of their own."""
    proc, cpus = spinner
    clock = Clock(proc.pid)
    mon = _monitor(clock, 0.2)
    first = mon.check(cores={cpus[0]})
    assert windows == [pytest.approx(0.2)]  # nothing opened before: the whole window
    clock.sleep(0.3)  # the previous point's run
    later = mon.check(cores={cpus[0]})
    assert len(windows) == 1  # the later check sampled no window of its own
    assert later.runnable is not None and later.runnable >= 0.5  # the spinner runs
    assert proc.pid in [pid for pid, _, _ in first.heavy]
    assert proc.pid in [pid for pid, _, _ in later.heavy]
    assert os.getpid() not in [pid for pid, _, _ in later.heavy]
    # right after: over the window since the first check's end, a few "points" back
    soon = mon.check(cores={cpus[0]})
    assert len(windows) == 1 and proc.pid in [p for p, _, _ in soon.heavy]


def test_a_window_opened_at_the_start_is_not_waited_for_again(
    spinner: tuple[subprocess.Popen[bytes], list[int]], windows: list[float]
) -> None:
    """Opened as the run starts (the workflow's onstart), the first window is old enough
    by the first point: that check samples no window, and still sees the CPU-heavy
    process that ran over the window."""
    proc, cpus = spinner
    clock = Clock(proc.pid)
    mon = _monitor(clock, 0.2)
    mon.open()
    opened = list(mon.seen)
    mon.open()  # a second call keeps the window it opened
    assert mon.seen == opened
    clock.sleep(0.3)  # the build check and the inputs
    first = mon.check(cores={cpus[0]})
    assert windows == []  # no window sampled: the one opened is old enough
    assert proc.pid in [pid for pid, _, _ in first.heavy]


def test_a_check_soon_after_the_opening_waits_only_the_rest_of_the_window(
    windows: list[float],
) -> None:
    """Opened 0.125 s before the first check (by this clock), a window of 0.25 s has
    0.125 s left: the check samples that much and no more; one right after it has a
    window old enough (its own, 0.125 s back, is not; the opening, 0.25 s back, is)."""
    clock = Clock()
    mon = _monitor(clock, 0.25)
    mon.open()
    clock.sleep(0.125)
    mon.check()
    assert windows == [0.125]
    mon.check()
    assert windows == [0.125]
