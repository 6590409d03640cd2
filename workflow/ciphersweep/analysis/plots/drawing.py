"""THE processes that draw: every plot of a run (the campaign's plots, the history's
trend plot) is drawn apart from the Snakemake process.

:class:`Drawing` starts ``python -m ciphersweep.analysis.plots`` once per run, at its
first request or earlier with :meth:`Drawing.start` (as the records are gathered, so
that matplotlib is imported while they are). That process imports matplotlib once (no
pandas: its jobs are plain data, a plot's context without its frame), forks its drawing
children (one per core, at most four, each in a session of its own: :func:`_child`)
before it has a thread of its own, then serves requests one after another until its
standard input closes: a request names a function of a drawing module and its jobs (one
figure each, written to the files the job names), and the children draw the jobs side by
side. The rules' bodies share the Snakemake process's interpreter: apart, the drawing
neither holds it nor imports matplotlib into it.

Requests and answers are pickles on the drawing process's standard input and output,
one request at a time. An answer is the jobs' results, or the exception the first
failed job raised, raised here again as it was (an OSError keeps its file name, which
the console names), from the traceback it had there. The drawing process and its
children ignore Ctrl-C and hang-ups: the run decides how it ends, and they end when
the run closes their input, or when it ends without closing it.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import multiprocessing
import os
import pickle
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import IO, Any

import ciphersweep

_PACKAGE_ROOT = str(Path(ciphersweep.__file__).resolve().parent.parent)
# what the drawing process imports before it forks: the modules that draw, and the
# writers of each format (matplotlib imports them at a figure's first file)
PRELOAD = (
    "ciphersweep.analysis.plots.draw",
    "ciphersweep.analysis.plots.trend",
    "matplotlib.backends.backend_agg",
    "matplotlib.backends.backend_pdf",
    "matplotlib.backends.backend_svg",
)
MOST_CHILDREN = 4
PR_SET_PDEATHSIG = 1  # prctl(2)


class DrawingError(RuntimeError):
    """The drawing process ended without an answer (its last line of error said)."""


class RemoteTraceback(Exception):
    """Where a job failed in the drawing process: its traceback, as text."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def call(module: str, function: str, jobs: Sequence[Any]) -> list[Any]:
    """The jobs drawn in this process, one after another (no drawing process: the
    unit tests, a single plot)."""
    fn = getattr(importlib.import_module(module), function)
    return [fn(job) for job in jobs]


def draw_jobs(
    drawing: Drawing | None, module: str, function: str, jobs: Sequence[Any]
) -> list[Any]:
    """THE way a step draws: ``module.function(job)`` for each job, in the run's
    ``drawing`` process, or here (:func:`call`) without one."""
    if drawing is None:
        return call(module, function, jobs)
    return drawing.map(module, function, jobs)


class Drawing:
    """A run's drawing process, started once, closed by :meth:`close` (or when the run
    ends). Thread-safe: the rules that draw may ask at once; one request is served at a
    time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._asked = False  # the running process has been sent a request

    def start(self) -> None:
        """Start the drawing process now, if it is not running yet."""
        with self._lock:
            self._started()

    def map(self, module: str, function: str, jobs: Sequence[Any]) -> list[Any]:
        """``module.function(job)`` for each job, in the drawing process's children;
        their results in order. A failed job's exception is raised here."""
        with self._lock:
            proc = self._started()
            assert proc.stdin is not None and proc.stdout is not None
            self._asked = True
            try:
                pickle.dump((module, function, list(jobs)), proc.stdin)
                proc.stdin.flush()
                answer = pickle.load(proc.stdout)
            except (BrokenPipeError, EOFError, pickle.UnpicklingError):
                raise DrawingError(self._ended()) from None
        if answer[0] == "ok":
            return list(answer[1])
        _, exc, where = answer
        raise exc from RemoteTraceback(where)

    def close(self) -> None:
        """End the drawing process: it finishes the request it is drawing, if any. One
        that was never asked anything (a run that ended before its plots: failed,
        interrupted, or with other targets) is killed at once instead of being waited
        for while it imports matplotlib, which it would only do to end (its children
        end with it: their parent-death signal)."""
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is None:
                return
            if not self._asked:
                proc.kill()
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None

    def _started(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._asked = False
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(
                [_PACKAGE_ROOT, *filter(None, [env.get("PYTHONPATH")])]
            )
            # kept open while the process lives, read if it ends without an answer
            self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "ciphersweep.analysis.plots"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=env,
                # a session of its own: a Ctrl-C or hang-up of the run's terminal never
                # reaches it, even while it starts (the run decides how it ends; it
                # ends when its input closes)
                start_new_session=True,
            )
        return self._proc

    def _ended(self) -> str:
        """Why the drawing process gave no answer: its exit and last line of error."""
        proc, self._proc = self._proc, None
        rc = proc.wait() if proc is not None else None
        last = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            lines = self._stderr.read().decode(errors="replace").strip().splitlines()
            last = lines[-1] if lines else ""
        return f"the drawing process ended (exit {rc}): {last or 'no message'}"


def _draw_job(item: tuple[str, str, Any]) -> Any:
    module, function, job = item
    return getattr(importlib.import_module(module), function)(job)


def _answer(pool: ProcessPoolExecutor | None, request: Any) -> tuple[Any, ...]:
    module, function, jobs = request
    try:
        if pool is None or len(jobs) < 2:
            return ("ok", call(module, function, jobs))
        return ("ok", list(pool.map(_draw_job, [(module, function, j) for j in jobs])))
    except Exception as exc:  # noqa: BLE001 - raised again in the run as it was
        return ("error", _travelling(exc), traceback.format_exc())


def _travelling(exc: Exception) -> Exception:
    """``exc``, or a RuntimeError saying it, where ``exc`` would not come back whole
    from a pickle (an exception whose constructor takes other arguments than its
    ``args``)."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any failure to travel
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


def _child(answers: int, parent: int) -> None:
    """A drawing child as it starts: it writes no answers (its parent does), it is in a
    session of its own, and it ends with its parent, even one killed outright (Linux's
    parent-death signal; without it, elsewhere, a child may outlive a parent killed
    outright).

    The session: where the kernel shares the processors between sessions before
    sharing them between a session's processes (``sched_autogroup_enabled``), children
    in one session would share one session's part of a loaded machine between them;
    each in its own, each child draws with the part any other process started in a
    session of its own has (another user's, a test ReFrame starts, a task srun starts).
    Nothing else changes: the children already ignore the terminal's signals, and end
    with their parent."""
    os.close(answers)
    os.setsid()
    prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)
    if prctl is not None:  # Linux
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(0)


def _wait_for_end(pid: int) -> None:
    """Return once the process ``pid`` (this process's parent) has ended."""
    try:
        fd = os.pidfd_open(pid)  # Linux 5.3: readable once the process ends
    except (AttributeError, OSError):
        fd = -1
    if fd >= 0:
        try:
            if os.getppid() == pid:  # the descriptor is the parent's, still running
                select.select([fd], [], [])
        finally:
            os.close(fd)
        return
    while os.getppid() == pid:
        time.sleep(0.1)


def _end_with(parent: int) -> None:
    """End this process as soon as the run's process ``parent`` ends, even while it
    draws (its children end with it: their parent-death signal)."""

    def watch() -> None:
        _wait_for_end(parent)
        os._exit(1)

    threading.Thread(target=watch, name="run-watch", daemon=True).start()


def serve(inp: IO[bytes], out: IO[bytes], parent: int | None = None) -> int:
    """The drawing process: answer each request on ``inp`` on ``out`` until ``inp``
    closes, or until the process ``parent`` ends."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    # the libraries' objects live as long as the process: no collection walks them
    # while they are imported (a tenth of the import), nor after, in the children
    gc.disable()
    for module in PRELOAD:
        importlib.import_module(module)
    gc.freeze()
    gc.enable()
    children = min(MOST_CHILDREN, os.cpu_count() or 1)
    # forked now, before the pool's own thread exists: this process has no other
    pool = (
        ProcessPoolExecutor(
            children,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_child,
            initargs=(out.fileno(), os.getpid()),
        )
        if children > 1
        else None
    )
    if pool is not None:
        pool.submit(int).result()  # the children exist before the first request
    if parent is not None:  # (a thread, now that the children are forked)
        _end_with(parent)
    try:
        while True:
            try:
                request = pickle.load(inp)
            except EOFError:
                return 0
            answer = _answer(pool, request)
            pickle.dump(answer, out)
            out.flush()
            if isinstance(answer[1], BrokenProcessPool):
                return 1  # a child died: the run starts a new drawing process
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def main() -> int:
    """The drawing process's answers go to its standard output as it started; whatever
    the drawing prints there goes to standard error instead."""
    parent = os.getppid()
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    with answers:
        return serve(sys.stdin.buffer, answers, parent)
