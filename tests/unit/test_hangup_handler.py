"""The hang-up handler passes SIGHUP on to the processes this one started (a kernel
in progress), then raises KeyboardInterrupt as Ctrl-C does."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from ciphersweep.campaign import hangup
from support import ROOT, default_signals


def test_a_hang_up_reaches_the_running_kernel_and_interrupts() -> None:
    with default_signals():  # not ignored, however the suite was started (nohup)
        kernel = subprocess.Popen(["sleep", "60"])
    try:
        assert kernel.pid in hangup.pass_on(signal.SIGHUP)
        assert kernel.wait(timeout=30) == -signal.SIGHUP
        with pytest.raises(KeyboardInterrupt):
            hangup._hang_up(signal.SIGHUP, None)
    finally:
        kernel.kill()
        kernel.wait()


def test_an_ignored_hang_up_stays_ignored() -> None:
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        assert hangup.hangup_as_interrupt() is False
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


JOB_THREAD = """
import subprocess, sys, threading
sys.path.insert(0, sys.argv[1])
from ciphersweep.campaign import hangup
assert hangup.hangup_as_interrupt()
done, box = threading.Semaphore(0), {}
def job():  # a job thread running a kernel, as Snakemake's run: jobs do
    kernel = subprocess.Popen(["sleep", "60"])
    print(kernel.pid, flush=True)
    box["rc"] = kernel.wait()
    done.release()
t = threading.Thread(target=job, daemon=True)
try:
    # (the hang-up may come while start() still waits for the thread to run)
    t.start()
    done.acquire()  # the main thread waits on a lock, as Snakemake's does
    done.acquire()
except KeyboardInterrupt:
    t.join(timeout=20)  # the kernel's end, once the hang-up reached it
    print("interrupted", box.get("rc"), flush=True)
"""


def test_the_hang_up_reaches_a_kernel_started_by_a_job_thread() -> None:
    """The kernel a job thread started gets the hang-up while the main thread waits
    on a lock, and the main thread its KeyboardInterrupt (before, the kernel ran on to
    its end and the run waited for it)."""
    with default_signals():  # not ignored, however the suite was started (nohup)
        proc = subprocess.Popen(
            [sys.executable, "-c", JOB_THREAD, str(ROOT / "workflow")],
            stdout=subprocess.PIPE,
            text=True,
        )
    try:
        assert proc.stdout is not None
        kernel = int(proc.stdout.readline())
        proc.send_signal(signal.SIGHUP)
        out, _ = proc.communicate(timeout=30)  # a bound: the kernel sleeps 60 s
    finally:
        proc.kill()
        proc.wait()
    assert out.split() == ["interrupted", str(-signal.SIGHUP)], (kernel, out)


PLANNED = "while the run was planned"
PLANNING = """
import os, signal, sys, time
sys.path.insert(0, sys.argv[1])
from ciphersweep.campaign import hangup
handled = hangup.interrupts_recorded()
hangup.one_line_interrupts()
print(" ".join(handled), flush=True)
while True:  # Snakemake planning the run: no handler of its own yet
    time.sleep(0.05)
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_an_interruption_before_the_jobs_is_one_line(sig: signal.Signals) -> None:
    """Ctrl-C, SIGTERM or a hang-up while the run is planned: the process ends as
    interrupted (KeyboardInterrupt's exit), with one line naming the signal instead
    of Python's traceback."""
    with default_signals():
        proc = subprocess.Popen(
            [sys.executable, "-c", PLANNING, str(ROOT / "workflow")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().split() == ["SIGHUP", "SIGINT", "SIGTERM"]
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert err.splitlines() == [hangup.interrupted_line(sig.name, PLANNED)]
    assert err.startswith(f"ciphersweep: interrupted by {sig.name} while the run")
    assert proc.returncode == -signal.SIGINT  # as an interrupted Python ends


def test_sigterm_is_recorded_before_the_handler_the_run_set() -> None:
    """Once the jobs run, SIGTERM is Snakemake's (the running jobs finish); it is
    recorded first, so that the run's end says it was interrupted."""
    seen: list[int] = []
    hangup._RECEIVED.clear()  # (a test above raised the hang-up handler's interrupt)
    before = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        assert hangup.record_terminate()
        assert hangup.received() is None
        signal.raise_signal(signal.SIGTERM)
        assert seen == [signal.SIGTERM]
        assert hangup.received() == "SIGTERM"
    finally:
        signal.signal(signal.SIGTERM, before)
        hangup._RECEIVED.clear()
