"""A closed terminal ends a run as Ctrl-C does.

Ctrl-C reaches the whole foreground process group: Snakemake and the kernels its jobs
run. A hang-up (SIGHUP) reaches only the terminal's session leader; where that is
Snakemake itself (``setsid``, a terminal of its own), the kernel of the running point
would go on to its time limit while the run waited for it. So the hang-up is passed on
to Snakemake's own descendants (the kernel then stops, the point is interrupted, not
failed: ciphersweep.job.kernel_process.Interrupted), and Snakemake's main thread gets
KeyboardInterrupt, on which it stops its jobs, keeps what is finished and releases its
lock; the same command continues.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType

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


def _hang_up(signum: int, frame: FrameType | None) -> None:
    pass_on(signum)
    raise KeyboardInterrupt


def hangup_as_interrupt() -> bool:
    """Install the hang-up handler. A hang-up that is ignored (``nohup``) stays
    ignored. Returns whether the handler was set (only the main thread can set one)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_DFL:
        return False
    signal.signal(signal.SIGHUP, _hang_up)
    return True
