"""A finished run ends when its work does.

Two waits used to follow the last job, about 1.5 s of a 7 s campaign:

- Snakemake re-evaluates its schedule on a ``threading.Timer`` of its job-rate window
  (``--max-jobs-per-timespan``, 1 s) after each scheduling pass. The timers are not
  daemon threads, so the interpreter waits for the last one to fire before it exits:
  up to a second after the last job.
- At exit the interpreter's garbage collector walks every object the run has made
  (Snakemake, pandas, SciPy, matplotlib): about 0.4 s with nothing left to free that
  the process' end would not free anyway.

:func:`end_promptly` runs in the workflow's ``onsuccess`` and ``onerror`` handlers,
which Snakemake calls once its scheduler has returned: no scheduling pass is left for
a timer to trigger. It cancels the pending timers (Python's public ``Timer.cancel``;
the workflow starts none of its own) and freezes the collector (``gc.freeze``), so that
what remains is Snakemake's own closing (its log, its lock), then the exit.
"""

from __future__ import annotations

import gc
import threading


def pending_timers() -> list[threading.Timer]:
    """The timers of this process that have not fired yet."""
    return [
        t
        for t in threading.enumerate()
        if isinstance(t, threading.Timer) and not t.finished.is_set()
    ]


def end_promptly() -> int:
    """Cancel the pending timers and freeze the collector; how many were cancelled."""
    timers = pending_timers()
    for timer in timers:
        timer.cancel()
    gc.freeze()
    return len(timers)
