"""aes-user: a user's own kernel (``backends.user.kernels``), started as
docs/kernel-contract.md says and held to what the built-in kernels are held to.

    python -m ciphersweep.job.kernel_user --cipher aes-128-ctr --op encrypt \\
        --input FILE --reps N --warmup W --name NAME --program PATH \\
        [--ranks R] [--threads T] [--gpus G] [--kernel-arg=ARG ...] [--json FILE] \\
        -- [MPI LAUNCHER ...]

runs, once, ``[LAUNCHER] PATH --mode M --op O --key HEX --iv HEX --input IN --output
OUT --reps N --warmup W --threads T [--gpus G] ARG...`` (the launcher: the one
:mod:`ciphersweep.job.launch` put after ``--``, for more than one rank). Everything the
kernel says is checked before a record is written: one JSON object per timed
repetition on stdout with a ``t_total`` in seconds (other lines are its own), as many as
``--reps``, the ``bytes``, ``ranks`` and ``threads`` it reports (where it does) those
of the point, and its ``--output`` equal to OpenSSL EVP's for the same key, IV and
input (for decryption the kernel reads OpenSSL's ciphertext of the input). The records
are then made here, as the Python-side kernels make theirs
(:mod:`ciphersweep.job.pykernel`): the program's digest, the input's digest, the shape,
provenance and energy; any problem is one ``aes-user: NAME: ...`` line and no record.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from ciphersweep.core import stats as cs_stats
from ciphersweep.core.record_fields import GPU, TIMINGS
from ciphersweep.job import kernel_command, pykernel
from ciphersweep.job import provenance as cs_prov
from ciphersweep.job import user_build as cs_user_build

PROG = "aes-user"
# the timings a record keeps from a kernel's own report besides t_total
_PARTS = tuple(t for t in TIMINGS if t != "t_total")
# the shape a kernel may report, and the point's value it must equal
_SHAPE = ("bytes", "ranks", "threads")


def _extra(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--name", required=True, help="the kernel's name (the impl)")
    ap.add_argument("--program", required=True, help="the kernel's executable")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--gpus", type=int, default=0)
    ap.add_argument("--kernel-arg", action="append", default=[], dest="kernel_args")
    ap.add_argument("launcher", nargs=argparse.REMAINDER, help="-- [MPI LAUNCHER ...]")


class Failed(pykernel.KernelError):
    """A failure of the kernel: the message names it."""

    def __init__(self, ns: argparse.Namespace, what: str) -> None:
        super().__init__(f"{ns.name}: {what}")


def argv(ns: argparse.Namespace, job: pykernel.Job, inp: str, out: str) -> list[str]:
    """The kernel's command line (the contract's flags, then its own arguments)."""
    c = job.cipher
    launcher = ns.launcher[1:] if ns.launcher[:1] == ["--"] else ns.launcher
    line = [*launcher, ns.program, "--mode", c.mode, "--op", ns.op]
    line += ["--key", c.key().hex(), "--iv", c.iv().hex()]
    line += ["--input", inp, "--output", out]
    line += ["--reps", str(ns.reps), "--warmup", str(ns.warmup)]
    line += ["--threads", str(ns.threads)]
    if ns.gpus:
        line += ["--gpus", str(ns.gpus)]
    return line + list(ns.kernel_args)


def _program(ns: argparse.Namespace) -> None:
    """The program is there (a failed build says why it is not) and executable."""
    info = cs_user_build.read_info(ns.program)
    if info is not None and not info.get("ok", False):
        raise Failed(ns, str(info.get("reason") or "the build failed"))
    if not os.path.isfile(ns.program):
        raise Failed(ns, f"{ns.program} does not exist")
    if not os.access(ns.program, os.X_OK):
        raise Failed(ns, f"{ns.program} is not executable")


def reports(ns: argparse.Namespace, stdout: str) -> list[dict[str, Any]]:
    """The JSON objects a kernel printed, one a line (other lines are its own)."""
    found = []
    for line in stdout.splitlines():
        text = line.strip()
        if not text.startswith("{"):
            continue
        try:
            obj = json.loads(text)
        except ValueError:
            raise Failed(
                ns, f"printed a line that is not JSON: {text[:80]!r}"
            ) from None
        found.append(obj)
    if not found:
        raise Failed(
            ns,
            "printed no JSON records (one JSON object per timed repetition on stdout)",
        )
    if len(found) != ns.reps:
        raise Failed(
            ns, f"printed {len(found)} JSON records, {ns.reps} expected (--reps)"
        )
    return found


def _seconds(
    ns: argparse.Namespace, i: int, rec: dict[str, Any], key: str
) -> float | None:
    """A timing of a report: a finite number of seconds >= 0 (None: not reported)."""
    v = rec.get(key)
    if v is None and key != "t_total":
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        what = "no t_total" if v is None else f"{key} {v!r}, not a number of seconds"
        raise Failed(ns, f"record {i} has {what}")
    if not math.isfinite(v) or v < 0 or (key == "t_total" and v == 0):
        raise Failed(ns, f"record {i} has {key} {v!r} (allowed: seconds > 0)")
    return float(v)


def shape_problem(rec: dict[str, Any], want: dict[str, Any]) -> str | None:
    """The first of ``bytes``, ``ranks``, ``threads`` a report gives otherwise than the
    point (None: it gives none otherwise). ``want``: the point's value, or the values
    it may be (``bytes``: the input's length, or what a decryption reads)."""
    for key in _SHAPE:
        allowed = want[key] if isinstance(want[key], tuple) else (want[key],)
        got = rec.get(key)
        if key in rec and (isinstance(got, bool) or got not in allowed):
            return f"reports {key} {got!r}, the point has {allowed[0]}"
    return None


def timings(
    ns: argparse.Namespace, found: list[dict[str, Any]], want: dict[str, int]
) -> list[dict[str, Any]]:
    """Each report's timings (t_total; the parts it gives), its shape checked."""
    out = []
    for i, rec in enumerate(found):
        if not isinstance(rec, dict):
            raise Failed(ns, f"record {i} is not a JSON object")
        bad = shape_problem(rec, want)
        if bad:
            raise Failed(ns, f"record {i} {bad}")
        t = {"t_total": _seconds(ns, i, rec, "t_total")}
        for key in _PARTS:  # the parts the tables know must be seconds
            t[key] = _seconds(ns, i, rec, key)
        for key in sorted(k for k in rec if k.startswith("t_") and k not in t):
            v = rec[key]  # its own parts: kept where they are seconds
            number = isinstance(v, int | float) and not isinstance(v, bool)
            if number and math.isfinite(v) and v >= 0:
                t[key] = float(v)
        if t.get("t_compute") is None:  # the whole repetition is its computation
            t["t_compute"] = t["t_total"]
        out.append(t)
    return out


def _run(ns: argparse.Namespace, line: list[str], log: str) -> tuple[str, float]:
    """Run the kernel once: its stdout and wall seconds; stderr goes to ``log``."""
    t0 = time.perf_counter()
    try:
        with open(log, "w") as err:
            proc = subprocess.run(
                line, stdout=subprocess.PIPE, stderr=err, text=True, check=False
            )
    except OSError as exc:
        raise Failed(ns, f"cannot start {line[0]}: {exc.strerror or exc}") from None
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        msg = kernel_command._last_line(log) or "no message"
        raise Failed(ns, f"exited {proc.returncode}: {msg}")
    return proc.stdout, wall


def _energy(
    ns: argparse.Namespace,
    parts: list[dict[str, Any]],
    run: tuple[Any, list[Any], list[Any], float],
) -> list[dict[str, Any]]:
    """Each repetition's energy: the package energy of the whole run (RAPL) at its mean
    power over the repetition's t_total, or none with the reason."""
    meter, before, after, wall = run
    whole = meter.fields(before, after)
    if whole.get("joules") is None or wall <= 0:
        return [whole for _ in parts]
    note = "mean package power of the whole kernel run x t_total"
    return [
        {
            **whole,
            "joules": whole["joules"] * p["t_total"] / wall,
            "joules_pkg": whole["joules"] * p["t_total"] / wall,
            "energy_note": note,
        }
        for p in parts
    ]


def run(ns: argparse.Namespace) -> list[dict[str, Any]]:
    _program(ns)
    job = pykernel.prepare(ns)
    scratch = (
        kernel_command.scratch_dir(ns.json)
        if ns.json
        else tempfile.mkdtemp(prefix="cs-user-")
    )
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    try:
        return _measure(ns, job, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _measure(
    ns: argparse.Namespace, job: pykernel.Job, scratch: str
) -> list[dict[str, Any]]:
    inp = job.input_path
    if not job.encrypt:  # the kernel decrypts OpenSSL's ciphertext of the input
        inp = os.path.join(scratch, "input.enc")
        with open(inp, "wb") as fh:
            fh.write(job.data)
    out = os.path.join(scratch, "output.bin")
    line = argv(ns, job, inp, out)
    print(f"kernel: {shlex.join(line)}", file=sys.stderr)
    meter = pykernel.Energy(ns.energy)
    e0 = meter.read()
    stdout, wall = _run(ns, line, os.path.join(scratch, "stderr.log"))
    e1 = meter.read()
    sizes = (len(job.plaintext), len(job.data))  # a decryption reads the ciphertext
    want = {"bytes": sizes, "ranks": ns.ranks, "threads": ns.threads}
    parts = timings(ns, reports(ns, stdout), want)
    timed = sum(p["t_total"] for p in parts)
    if timed > wall:  # its repetitions cannot have taken longer than its whole run
        raise Failed(
            ns,
            f"reports {timed:.3g} s of timed repetitions, more than the {wall:.3g} s "
            "its whole run took",
        )
    try:
        with open(out, "rb") as fh:
            data = fh.read()
    except OSError:
        raise Failed(ns, "wrote no --output file") from None
    if ns.inject_fault == "corrupt" and data:
        data = bytes([data[0] ^ 0xFF]) + data[1:]
    try:
        pykernel.check(job, data, "its --output")
    except pykernel.KernelError as exc:
        raise Failed(ns, str(exc)) from None
    return _records(ns, job, parts, (meter, e0, e1, wall), len(data), shlex.join(line))


def _records(
    ns: argparse.Namespace,
    job: pykernel.Job,
    parts: list[dict[str, Any]],
    energy: tuple[Any, list[Any], list[Any], float],
    out_bytes: int,
    line: str,
) -> list[dict[str, Any]]:
    rec0 = pykernel.base_record(ns, job, "user", ns.name, ns.program)
    info = cs_user_build.read_info(ns.program) or {}
    fp = rec0["fingerprint"]
    fp.update(ranks=ns.ranks, threads=ns.threads, gpus=ns.gpus)
    fp["build_key"] = info.get("build_key")
    fp["cflags"] = info.get("cflags")
    rec0.update(
        ranks=ns.ranks,
        threads=ns.threads,
        **{GPU: ns.gpus},
        cores_used=ns.ranks * ns.threads,
        compiler=info.get("compiler"),
        cflags=info.get("cflags"),
        clock="the kernel's own (its reported t_total)",
        command_line=line,
        verified_by="openssl",
        out_bytes=out_bytes,
    )
    calib = cs_stats.Calibration(None, ns.reps)
    records = []
    for i, (t, e) in enumerate(zip(parts, _energy(ns, parts, energy), strict=True)):
        calib.add(t["t_total"], 0.0)
        rec = {**rec0, **t, **e, "rep": i, "verified": True}
        rec["timestamp"] = cs_prov.utc_now()
        records.append(rec)
    for rec in records:
        rec.update(calib.fields())
    return records


def main(argv_: Sequence[str] | None = None) -> int:
    ns = pykernel.parse_args(PROG, argv_, _extra)
    return pykernel.main(PROG, run, ns)


if __name__ == "__main__":
    sys.exit(main())
