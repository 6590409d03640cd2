"""Sampled CPU %: the peak of (CPU time / wall time) over sampling intervals."""

from __future__ import annotations

import math
import os
import resource
import subprocess
import sys
import threading
import time

from ciphersweep.job import cpusample, launch
from support import make_point


def _fake(cpu: list[float], now: list[float], window: float) -> cpusample.Sampler:
    """A sampler over given readings; the clock gives each time twice (before and
    after the reading)."""
    readings, clock = iter(cpu), iter(t for t in now for _ in range(2))
    return cpusample.Sampler(
        1, read=lambda pid: next(readings), clock=lambda: next(clock), window=window
    )


def test_peak_from_samples() -> None:
    cpu = [0.0, 0.005, 0.015, 0.016, 0.0, 0.02]  # a reaped child: the sum drops
    now = [0.0, 0.01, 0.02, 0.03, 0.04, 0.05]
    s = _fake(cpu, now, window=0.01)
    for _ in range(6):
        s.sample()
    # 50 %, 100 %, 10 %, (drop: the window starts again), 200 % (two threads)
    assert s.samples == 4
    assert abs(s.peak - 200.0) < 1e-9


def test_peak_is_over_the_window_not_one_interval() -> None:
    """CPU time comes in scheduler ticks: one 10 ms interval can show 14 ms of CPU
    (up to 140 %) where the thread was busy 100 % of the time. Over the 0.1 s window the tick
    averages out; a run shorter than the window gets its average at stop()."""
    now = [0.01 * i for i in range(31)]
    tick = 0.004  # a busy thread's CPU time, brought up to date every 4 ms
    cpu = [math.floor(t / tick + 1e-9) * tick for t in now]
    single = _fake(cpu, now, window=0.0)
    windowed = _fake(cpu, now, window=0.1)
    for _ in range(31):
        single.sample()
        windowed.sample()
    assert single.peak > 115  # one interval: the tick shows
    assert windowed.peak <= 105  # the window: no core looks like more than one
    short = _fake([0.0, 0.01, 0.02], [0.0, 0.01, 0.02], window=0.1)
    for _ in range(3):
        short.sample()
    assert short.peak is None and short.stop() == 100.0


def test_one_busy_thread_reads_one_core() -> None:
    """A real single-threaded busy loop: its peak is one core (within a tick per
    window), never the 120-140 % a 10 ms interval showed. Load on the machine can
    only make it lower."""
    res = cpusample.run([sys.executable, "-c", BUSY], capture_output=True, timeout=60)
    assert res.returncode == 0
    assert res.cpu_peak_pct is not None and res.cpu_peak_pct <= 110, res.cpu_peak_pct


def test_every_thread_of_a_process_is_counted() -> None:
    """A process of several threads is read thread by thread (a single-threaded one is
    its own only task): this process's CPU time includes what a second thread burnt,
    0.2 s of CPU time whatever the machine's load, and the main thread's."""
    burnt: list[float] = []
    done, stop = threading.Event(), threading.Event()

    def burn() -> None:
        t0 = time.thread_time()
        while time.thread_time() - t0 < 0.2:
            pass
        burnt.append(time.thread_time())
        done.set()
        stop.wait()

    worker = threading.Thread(target=burn)
    worker.start()
    try:
        assert done.wait(60)
        main = time.thread_time()
        total = cpusample.process_cpu_s(os.getpid())
    finally:
        stop.set()
        worker.join()
    assert total is not None and total >= burnt[0] + main - 0.02, (total, burnt, main)


def test_gone_process_gives_no_sample() -> None:
    s = cpusample.Sampler(1, read=lambda pid: None)
    s.sample()
    s.sample()
    assert s.peak is None and s.samples == 0


BUSY = (
    "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass\n"
)


def test_busy_grandchild_is_counted() -> None:
    """The samples account for the grandchild's 0.4 s of CPU (a busy loop on CPU time,
    so whatever the machine's load), and their peak is at least the tree's average
    over the run (the average of the samples can't exceed their maximum)."""
    argv = [
        sys.executable,
        "-c",
        f"import subprocess, sys; subprocess.run([sys.executable, '-c', {BUSY!r}])",
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    res = cpusample.run(argv, capture_output=True, text=True, timeout=60)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert res.returncode == 0 and cpu >= 0.4
    average = 100 * cpu / wall
    assert res.cpu_peak_pct is not None
    assert res.cpu_seen_s >= 0.3, res.cpu_seen_s
    assert res.cpu_peak_pct >= 0.8 * average, (res.cpu_peak_pct, average)


def test_sleeping_child_is_near_zero() -> None:
    """A child blocked on its stdin, closed once the sampler has six windows of it
    (however slowly a crowded machine lets the sampler run)."""
    s = cpusample.Sampler(0)
    with subprocess.Popen(["cat"], stdin=subprocess.PIPE) as proc:
        s.pid = proc.pid
        s.start()
        deadline = time.monotonic() + 300  # a hang guard only
        while s.samples <= 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
        s.stop()
    assert proc.returncode == 0
    assert s.samples > 5
    assert s.peak is not None and s.peak < 50


def test_timeout_kills_and_raises() -> None:
    try:
        cpusample.run(["sleep", "30"], timeout=0.5)
    except subprocess.TimeoutExpired:
        return
    raise AssertionError("no TimeoutExpired")


def test_a_python_side_kernel_reads_one_core(tmp_path) -> None:
    """purepy runs on one thread; launched with its launch environment, its peak is one
    core. Without OPENBLAS_NUM_THREADS=1, NumPy's thread pool spinning while SciPy
    loads read as a 190 % peak on 2 cores, whatever the cipher did."""
    data = tmp_path / "in.bin"
    data.write_bytes(os.urandom(1000))
    point = make_point(backend="purepy", impl="purepy", cipher="aes-128-ecb", reps=3)
    argv = launch.kernel_prefix(point, None) + ["--cipher", "aes-128-ecb"]
    argv += ["--input", str(data), "--reps", "3", "--warmup", "0", "--energy", "none"]
    env = {**os.environ, **launch.python_env()}
    res = cpusample.run(argv, capture_output=True, text=True, timeout=120, env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.cpu_peak_pct is not None and res.cpu_peak_pct <= 115, res.cpu_peak_pct


def test_the_docstring_tells_the_study_figure_from_this_one() -> None:
    """The study read the whole system's psutil.cpu_percent() every 0.5 s, not its
    process's; this module samples the kernel's process tree, per core."""
    doc = " ".join((cpusample.__doc__ or "").split())
    assert "``psutil.cpu_percent()`` every 0.5 s" in doc
    assert "the whole system's use" in doc and "process's CPU %" not in doc
    assert "scope (the process tree, not the system)" in doc
