"""The kernel processes of one point, one after another: their records checked against
the record schema, or the reason there are none (exit status, signal, timeout, the
kernel's own message, unreadable or invalid records)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any, TextIO

from ciphersweep.job.record_schema import validate_record
from ciphersweep.plan.sweep import Point

Outcome = tuple[list[dict[str, Any]], str | None, float, float | None]

# The signals that stop a kernel from outside the point: Ctrl-C, a closed terminal,
# ``scancel`` or Slurm ending the job. They say nothing about the kernel.
INTERRUPTS = (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)


class Interrupted(Exception):
    """The kernel was stopped from outside (one of :data:`INTERRUPTS`): the point was
    not measured and did not fail. No record is written (the point keeps its previous
    raw file, which is never replaced before new records are complete); the job fails,
    and the same command measures the point again (ciphersweep.verdict.admission.attempt)."""


def failure_reason(stderr: str) -> str:
    """The kernel's own one-line message (``aes-<backend>: ...``) if there is one,
    else the last meaningful stderr line (MPI launchers add banners around it)."""
    lines = [ln.strip() for ln in stderr.splitlines() if any(c.isalnum() for c in ln)]
    for ln in lines:
        if ln.startswith("aes-") and ":" in ln:
            return ln[:500]
    return lines[-1][:500] if lines else ""


def exit_reason(rc: int, stderr: str) -> str:
    """Why a kernel with exit status ``rc`` failed, for the failures table."""
    msg = failure_reason(stderr)
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = "unknown signal"
        head = f"killed by signal {-rc} ({name})"
        return f"{head}: {msg}" if msg else head
    return f"exit {rc}: {msg or 'no message'}"


def run_processes(
    point: Point,
    timeout_s: int,
    runner: Callable[..., Any],
    argv: list[str],
    env: dict[str, str],
    json_tmp: str,
    log: TextIO,
) -> Outcome:
    """The point's kernel processes one after another (config ``processes``); their
    records tagged with ``process``, the first failure's reason, the total wall time
    and the highest sampled CPU %."""
    records: list[dict[str, Any]] = []
    wall, peaks = 0.0, []
    for i in range(point.processes):
        if point.processes > 1:
            print(f"process {i + 1} of {point.processes}", file=log, flush=True)
        recs, reason, w, peak = run_once(timeout_s, runner, argv, env, json_tmp, log)
        wall += w
        if peak is not None:
            peaks.append(peak)
        if reason is not None:
            if point.processes > 1:
                reason = f"process {i + 1} of {point.processes}: {reason}"
            return records, reason, wall, max(peaks, default=None)
        for r in recs:
            r["process"] = i
        records += recs
    return records, point.reps_problem(records), wall, max(peaks, default=None)


def _start(
    timeout_s: int, runner: Callable[..., Any], argv: list[str], env: dict[str, str]
) -> tuple[int | None, str, str, str | None, float | None]:
    """One kernel process: exit status, stdout, stderr, why it did not finish, and
    its sampled CPU peak."""
    try:
        proc = runner(
            argv,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr or ""
        err = err.decode() if isinstance(err, bytes) else err
        return None, "", err, f"timeout after {timeout_s} s", None
    except OSError as exc:
        return None, "", str(exc), f"could not start: {exc}", None
    peak = getattr(proc, "cpu_peak_pct", None)
    return proc.returncode, proc.stdout or "", proc.stderr or "", None, peak


def _read_records(json_tmp: str) -> tuple[list[dict[str, Any]], str | None]:
    """The records a kernel wrote, each schema-valid, or why there are none."""
    try:
        with open(json_tmp) as fh:
            records = [json.loads(line) for line in fh if line.strip()]
    except (OSError, ValueError) as exc:
        return [], f"unreadable records: {exc}"
    if not records:
        return [], "kernel printed no records"
    for i, rec in enumerate(records):
        bad = validate_record(rec)
        if bad:
            return [], f"record {i} does not match the record schema: {bad}"
    return records, None


def run_once(
    timeout_s: int,
    runner: Callable[..., Any],
    argv: list[str],
    env: dict[str, str],
    json_tmp: str,
    log: TextIO,
) -> Outcome:
    """One kernel process: its schema-valid records, or why there are none."""
    if os.path.exists(json_tmp):
        os.remove(json_tmp)
    t0 = time.monotonic()
    rc, out, err, reason, peak = _start(timeout_s, runner, argv, env)
    wall = time.monotonic() - t0
    log.write(out)
    log.write(err)
    print(f"exit: {rc}  wall: {wall:.3f} s", file=log)
    if rc is not None and -rc in INTERRUPTS:
        name = signal.Signals(-rc).name
        raise Interrupted(f"the kernel was stopped by {name}: the run was interrupted")
    if reason is None and rc != 0:
        reason = exit_reason(rc or 0, err)
    if reason is not None:
        return [], reason, wall, peak
    records, reason = _read_records(json_tmp)
    return records, reason, wall, peak
