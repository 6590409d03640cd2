"""A closed terminal ends a run as Ctrl-C does.

Ctrl-C reaches the whole foreground process group: Snakemake and the kernels its jobs
run. A hang-up (SIGHUP) reaches only the terminal's session leader; where that is
Snakemake itself (``setsid``, a terminal of its own), the kernel of the running point
would go on to its time limit while the run waited for it. So the hang-up is passed on
to Snakemake's own descendants (the kernel then stops, the point is interrupted, not
failed: ciphersweep.job.kernel_process.Interrupted), and Snakemake's main thread gets
KeyboardInterrupt, on which it stops its jobs, keeps what is finished and releases its
lock; the same command continues.

Whichever signal ends a run (Ctrl-C, a hang-up, SIGTERM), it is recorded
(:func:`received`): the run then ends with one line saying so (the workflow's
``onerror`` summary, ciphersweep.campaign.console.interrupted_line) and, where the
signal came before any job (while Snakemake plans the run), with that line instead of
Python's traceback (:func:`one_line_interrupts`). SIGTERM before the jobs start ends
the run as Ctrl-C does; once they run, Snakemake's own handler lets the running jobs
finish (:func:`record_terminate` records the signal first).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType
from typing import Any

from ciphersweep.job.cpusample import tree


def pass_on(sig: int = signal.SIGHUP) -> list[int]:
    """Send ``sig`` to every live descendant of this process; the pids it reached."""
    reached = []
    for pid in tree(os.getpid())[1:]:
        try:
            os.kill(pid, sig)
        except OSError:  # gone meanwhile
            continue
        reached.append(pid)
    return reached


# the signals that interrupted this process, in the order they came
_RECEIVED: list[int] = []


def received() -> str | None:
    """The name of the first signal that interrupted this run (None: none did)."""
    return signal.Signals(_RECEIVED[0]).name if _RECEIVED else None


def _interrupt(signum: int, frame: FrameType | None) -> None:
    _RECEIVED.append(signum)
    raise KeyboardInterrupt


def _hang_up(signum: int, frame: FrameType | None) -> None:
    _RECEIVED.append(signum)
    pass_on(signum)
    raise KeyboardInterrupt


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def hangup_as_interrupt() -> bool:
    """Install the hang-up handler. A hang-up that is ignored (``nohup``) stays
    ignored. Returns whether the handler was set (only the main thread can set one)."""
    if not _main_thread():
        return False
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_DFL:
        return False
    signal.signal(signal.SIGHUP, _hang_up)
    return True


def interrupts_recorded() -> list[str]:
    """Ctrl-C (SIGINT) and SIGTERM end the run as KeyboardInterrupt and are recorded
    (:func:`received`); a hang-up too (:func:`hangup_as_interrupt`). A signal that is
    ignored or handled otherwise stays so. The names of the signals now handled."""
    if not _main_thread():
        return []
    done = ["SIGHUP"] if hangup_as_interrupt() else []
    for sig, default in (
        (signal.SIGINT, signal.default_int_handler),
        (signal.SIGTERM, signal.SIG_DFL),
    ):
        if signal.getsignal(sig) is default:
            signal.signal(sig, _interrupt)
            done.append(sig.name)
    return done


def record_terminate() -> bool:
    """Record SIGTERM before the handler in place now (Snakemake's: the running jobs
    finish, no new one starts) acts on it. Whether it was wrapped."""
    if not _main_thread():
        return False
    current = signal.getsignal(signal.SIGTERM)
    if not callable(current) or current is _interrupt:
        return False

    def terminate(signum: int, frame: FrameType | None) -> None:
        _RECEIVED.append(signum)
        current(signum, frame)

    signal.signal(signal.SIGTERM, terminate)
    return True


def interrupted_line(signame: str, where: str) -> str:
    """The one line a run ends with when ``signame`` interrupted it ``where``."""
    return (
        f"ciphersweep: interrupted by {signame} {where}: what was finished is kept; "
        "the same command continues"
    )


def one_line_interrupts() -> None:
    """An interruption that ends the process before its jobs ran (Snakemake plans
    the run) prints :func:`interrupted_line` instead of Python's traceback; other
    exceptions are reported as before."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
        if issubclass(kind, KeyboardInterrupt):
            name = received() or "SIGINT"
            print(interrupted_line(name, "while the run was planned"), file=sys.stderr)
            return
        previous(kind, value, tb)

    sys.excepthook = hook
