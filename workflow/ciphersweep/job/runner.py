"""Running one benchmark point (the body of the ``bench`` rule) and generating inputs.

A kernel failure (non-zero exit, timeout, verification failure, invalid records) never
fails the job: the raw file then holds ONE record with ``status: failed`` and the reason,
so the campaign goes on and the tables mark the cell. Such a point runs again at the
next start because its ``attempt`` parameter changes (:mod:`ciphersweep.verdict.admission`);
the records of a run carry the ``attempt`` token it was started with.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, TextIO

from ciphersweep.job import build as cs_build
from ciphersweep.job import busy as cs_busy
from ciphersweep.job import cpusample
from ciphersweep.job import launch as cs_launch
from ciphersweep.job import provenance as cs_prov
from ciphersweep.plan import fingerprint as cs_fp
from ciphersweep.plan.sweep import Point
from ciphersweep.verdict.admission import FIRST, validate_record


def image_digest(digest_file: str | None) -> str | None:
    if not digest_file or not os.path.exists(digest_file):
        return None
    text = Path(digest_file).read_text().split()
    if not text:
        return None
    d = text[0]
    return d if d.startswith("sha256:") else f"sha256:{d}"


@dataclass
class RunSpec:
    """Everything the bench job needs besides the point."""

    campaign: str
    input_path: str
    out_path: str
    log_path: str
    kernel_dir: str = "build/kernels"
    runtime: str = "none"
    image: str | None = None
    image_digest_file: str | None = None
    binds: list[str] = field(default_factory=list)
    mpi_launcher: str = "srun"
    mpirun_args: list[str] = field(default_factory=list)
    mpi_network: str = ""
    energy: str = "auto"
    timeout_s: int = 600
    git_rev: str | None = None
    cwd: str = "."
    attempt: str = FIRST


@lru_cache(maxsize=64)
def _cached_likwid_check(cores: tuple[int, ...], timeout: float) -> Any:
    """likwid-perfctr's answer for a core (about 1 s to ask): asked once per core within
    one workflow process (local runs execute all bench jobs in one process; under Slurm
    every job is a process of its own and asks once)."""
    from ciphersweep.job import energy

    return energy.check_likwid(cores, timeout=timeout)


@lru_cache(maxsize=64)
def _cached_probe(
    cores: tuple[int, ...], mode: str, backend: str, binary: str | None
) -> Any:
    """One probe per machine shape within one workflow process."""
    from ciphersweep.job import energy

    return energy.probe(
        cores,
        mode,
        backend=backend,
        binary=binary,
        check_likwid_fn=_cached_likwid_check,
    )


def _energy_hooks(
    point: Point, spec: RunSpec, binary: str | None, likwid_csv: str, log: TextIO
) -> tuple[list[str], str, Any, Any]:
    """Energy wrapper prefix, kernel --energy flag, probe and energy module.

    The probe never stops a timing run: any problem leaves energy unmeasured."""
    flag = "none" if spec.energy == "none" else "auto"
    try:
        from ciphersweep.job import energy
    except ImportError:  # pragma: no cover - the energy module is part of the package
        return [], flag, None, None
    try:
        cores = sorted(os.sched_getaffinity(0))[: max(1, point.ranks * point.threads)]
        probe = _cached_probe(tuple(cores), spec.energy, point.backend, binary)
        prefix = list(energy.wrapper(point, probe, out=likwid_csv) or [])
        print(probe.summary(), file=log)
        return prefix, probe.kernel_energy, probe, energy
    except Exception as exc:  # noqa: BLE001 - energy must never stop a timing run
        print(f"energy: probe failed ({exc}); continuing without energy", file=log)
        return [], flag, None, None


def failure_record(
    point: Point, spec: RunSpec, reason: str, launch_line: str | None = None
) -> dict[str, Any]:
    return {
        "schema": 1,
        "status": "failed",
        "reason": reason,
        "backend": point.backend,
        "impl": point.impl,
        "cipher": point.cipher,
        "mode": point.mode,
        "op": point.op,
        "bytes": point.size_bytes,
        "ranks": point.ranks,
        "threads": point.threads,
        "gpu": point.gpus,
        "block_threads": point.block_threads,
        "rep": None,
        "t_total": None,
        "t_compute": None,
        "verified": False,
        "joules": None,
        "energy_source": None,
        "host": socket.gethostname(),
        "timestamp": cs_prov.utc_now(),
        "launch_line": launch_line,
    }


def _orchestrator_fields(
    point: Point, spec: RunSpec, launch_line: str, oversub: bool
) -> dict[str, Any]:
    return {
        **cs_prov.orchestrator_fields(
            campaign=spec.campaign,
            point=point.id,
            image=spec.image,
            runtime=spec.runtime,
            launch_line=launch_line,
            git_rev=spec.git_rev,
            digest=image_digest(spec.image_digest_file),
        ),
        "size_label": point.size_label,
        "input_name": point.input_name,
        "oversubscribed": oversub,
        "build_variant": point.variant or None,
        **(cs_build.read_info(spec.kernel_dir) if spec.runtime == "none" else {}),
        "attempt": spec.attempt,
    }


def _busy_check(point: Point, plat: cs_launch.Platform, log: TextIO) -> dict[str, Any]:
    """Local runs: load and other CPU-heavy processes before the kernel starts; one
    warning line (job log and stderr) when the machine is busy; the record fields."""
    if plat.where != "local":
        return {}
    try:
        found = cs_busy.check()
    except OSError as exc:  # no /proc: say so, never stop a measurement
        print(f"busy check: not possible ({exc})", file=log)
        return {}
    fields = found.fields()
    print(f"busy check: load {found.load1:.2f}, {found.warning or 'idle'}", file=log)
    if found.warning:
        line = f"ciphersweep: warning: busy machine before {point.id}: {found.warning}"
        print(line, file=sys.stderr, flush=True)
    return fields


def _tail(text: str, n: int = 1) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[-n:])[:500] if lines else ""


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


def run_point(
    point: Point, spec: RunSpec, runner: Callable[..., Any] = cpusample.run
) -> dict[str, Any]:
    """Run one point and write ``spec.out_path``; return a small summary dict.

    Whatever goes wrong, the job itself succeeds with a failure record: one point never
    keeps the analysis of the others from running (and it runs again next time)."""
    try:
        return _run_point(point, spec, runner)
    except Exception as exc:  # noqa: BLE001 - turned into the point's failure record
        reason = f"the bench job failed: {type(exc).__name__}: {exc}"[:500]
        rec = failure_record(point, spec, reason)
        rec["attempt"] = spec.attempt
        Path(spec.out_path).parent.mkdir(parents=True, exist_ok=True)
        with open(spec.log_path, "a") as log:
            print(f"FAILED: {reason}", file=log)
        tmp = f"{spec.out_path}.tmp"
        Path(tmp).write_text(json.dumps(rec, sort_keys=True) + "\n")
        os.replace(tmp, spec.out_path)
        return {"status": "failed", "reason": reason, "wall": None}


def _run_point(
    point: Point, spec: RunSpec, runner: Callable[..., Any]
) -> dict[str, Any]:
    Path(spec.out_path).parent.mkdir(parents=True, exist_ok=True)
    Path(spec.log_path).parent.mkdir(parents=True, exist_ok=True)
    json_tmp = f"{spec.out_path}.kernel.tmp"
    with open(spec.log_path, "w") as log:
        likwid_csv = f"{spec.out_path}.likwid.csv"
        binary = (
            os.path.join(spec.kernel_dir, f"aes-{point.backend}")
            if spec.runtime == "none" and point.backend not in cs_launch.PY_KERNELS
            else None
        )
        prefix, eflag, probe, energy = _energy_hooks(
            point, spec, binary, likwid_csv, log
        )
        plat = cs_launch.Platform(
            where="slurm" if os.environ.get("SLURM_JOB_ID") else "local",
            mpi_launcher=spec.mpi_launcher,
            mpirun_args=list(spec.mpirun_args),
            mpi_network=spec.mpi_network,
            runtime=spec.runtime,
            image=spec.image,
            binds=list(spec.binds),
            kernel_dir=spec.kernel_dir,
            cwd=spec.cwd,
            cores=cs_launch.available_cores(),
            is_root=os.geteuid() == 0,
        )
        args = cs_launch.kernel_args(
            point, input_path=spec.input_path, json_path=json_tmp, energy=eflag
        )
        ln = cs_launch.build(point, plat, args, energy_prefix=prefix)
        print(f"point: {point.id}", file=log)
        if ln.env:
            print(
                "env: " + " ".join(f"{k}={v}" for k, v in sorted(ln.env.items())),
                file=log,
            )
        busy = _busy_check(point, plat, log)
        print(f"launch: {ln.text}", file=log, flush=True)
        env = dict(os.environ)
        env.update(ln.env)
        records, reason, wall, extra_peak = _run_processes(
            point, spec, runner, ln.argv, env, json_tmp, log
        )
        extra = _orchestrator_fields(point, spec, ln.text, ln.oversubscribed)
        extra["cpu_peak_pct"] = extra_peak
        if point.input_set is not None:
            extra["input_set"] = point.input_set
        extra.update(busy)
        if reason is None:
            for rec in records:
                rec.setdefault("status", "ok")
                for k, v in extra.items():
                    if rec.get(k) is None:
                        rec[k] = v
            if energy is not None and probe is not None:
                try:
                    if probe.uses_likwid:
                        text = (
                            Path(likwid_csv).read_text()
                            if os.path.exists(likwid_csv)
                            else ""
                        )
                        records = energy.merge_likwid(
                            records, energy.parse_likwid_csv(text) if text else None
                        )
                    records = energy.annotate(records, probe)
                except Exception as exc:  # noqa: BLE001 - energy never stops a timing run
                    print(f"energy: could not add energy ({exc})", file=log)
        else:
            print(f"FAILED: {reason}", file=log)
            rec = failure_record(point, spec, reason, ln.text)
            for k, v in extra.items():
                if rec.get(k) is None:
                    rec[k] = v
            records = [rec]
        tmp = f"{spec.out_path}.tmp"
        with open(tmp, "w") as fh:
            for rec in records:
                fh.write(json.dumps(rec, sort_keys=True) + "\n")
        os.replace(tmp, spec.out_path)
        if os.path.exists(json_tmp):
            os.remove(json_tmp)
        # what a killed aes-command leaves (kernel_command.scratch_dir)
        shutil.rmtree(f"{json_tmp}.d", ignore_errors=True)
    return {"status": "failed" if reason else "ok", "reason": reason, "wall": wall}


def _run_processes(
    point: Point,
    spec: RunSpec,
    runner: Callable[..., Any],
    argv: list[str],
    env: dict[str, str],
    json_tmp: str,
    log: TextIO,
) -> tuple[list[dict[str, Any]], str | None, float, float | None]:
    """The point's kernel processes one after another (config ``processes``); their
    records tagged with ``process``, the first failure's reason, the total wall time
    and the highest sampled CPU %."""
    records: list[dict[str, Any]] = []
    wall, peaks = 0.0, []
    for i in range(point.processes):
        if point.processes > 1:
            print(f"process {i + 1} of {point.processes}", file=log, flush=True)
        recs, reason, w, peak = _run_once(spec, runner, argv, env, json_tmp, log)
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


def _run_once(
    spec: RunSpec,
    runner: Callable[..., Any],
    argv: list[str],
    env: dict[str, str],
    json_tmp: str,
    log: TextIO,
) -> tuple[list[dict[str, Any]], str | None, float, float | None]:
    """One kernel process: its schema-valid records, or why there are none."""
    if os.path.exists(json_tmp):
        os.remove(json_tmp)
    t0 = time.monotonic()
    reason: str | None = None
    peak: float | None = None
    try:
        proc = runner(
            argv,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            timeout=spec.timeout_s,
        )
        rc, out, err = proc.returncode, proc.stdout or "", proc.stderr or ""
        peak = getattr(proc, "cpu_peak_pct", None)
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr or ""
        rc, out, err = None, "", err.decode() if isinstance(err, bytes) else err
        reason = f"timeout after {spec.timeout_s} s"
    except OSError as exc:
        rc, out, err = None, "", str(exc)
        reason = f"could not start: {exc}"
    wall = time.monotonic() - t0
    log.write(out)
    log.write(err)
    print(f"exit: {rc}  wall: {wall:.3f} s", file=log)
    if reason is None and rc != 0:
        reason = exit_reason(rc, err)
    records: list[dict[str, Any]] = []
    if reason is None:
        try:
            with open(json_tmp) as fh:
                records = [json.loads(line) for line in fh if line.strip()]
        except (OSError, ValueError) as exc:
            reason = f"unreadable records: {exc}"
    if reason is None and not records:
        reason = "kernel printed no records"
    for i, rec in enumerate(records if reason is None else []):
        bad = validate_record(rec)
        if bad:
            return [], f"record {i} does not match the record schema: {bad}", wall, peak
    return (records if reason is None else []), reason, wall, peak


def gen_input_argv(gen: list[str], out: str, size_bytes: int, seed: int) -> list[str]:
    """Launch line of the input generator (``aes-seq --gen-input``)."""
    return gen + ["--gen-input", out, "--size", f"{size_bytes}B", "--seed", str(seed)]


def run_logged(argv: list[str], log: str, env: dict[str, str] | None = None) -> None:
    """Run a command with its output in ``log``; raise with the log's tail on failure."""
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as fh:
        print(f"$ {' '.join(argv)}", file=fh, flush=True)
        rc = subprocess.run(
            argv, stdout=fh, stderr=subprocess.STDOUT, env=env, check=False
        ).returncode
    if rc != 0:
        tail = _tail(Path(log).read_text(errors="replace"), 5)
        raise RuntimeError(f"{argv[0]} failed (exit {rc}); see {log}: {tail}")


def gen_input(gen: list[str], out: str, nbytes: int, seed: int, log: str) -> None:
    """The ``gen_input`` rule: one deterministic input file of ``nbytes``."""
    Path(log).write_text("")
    env = dict(os.environ)
    if gen and gen[0] == "ch-run" and not env.get("USER"):
        env["USER"] = cs_launch._user()
    run_logged(gen_input_argv(gen, out, nbytes, seed), log, env)
    size = os.path.getsize(out)
    if size != nbytes:
        raise RuntimeError(f"{out}: {size} bytes written, {nbytes} expected")
    cs_fp.write_digest(out)  # what the points' records must show they read


def build_image(
    script: str,
    recipe: str,
    image: str,
    digest: str,
    runtime: str,
    build_args: str,
    log: str,
) -> None:
    """The ``build_image`` rule: containers/build-image.sh RECIPE OUT_IMAGE, then its digest."""
    import hashlib

    Path(log).write_text("")
    Path(image).parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["CIPHERSWEEP_RUNTIME"] = runtime
    env["CIPHERSWEEP_APPTAINER_BUILD_ARGS"] = build_args
    run_logged([script, recipe, image], log, env)
    if os.path.exists(digest) and Path(digest).read_text().strip():
        return  # the build script wrote it ("<hex>  <file>", as sha256sum prints it)
    h = hashlib.sha256()
    with open(image, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    Path(digest).write_text(f"{h.hexdigest()}  {os.path.basename(image)}\n")
