"""The bodies of the job rules: running one benchmark point (``bench``), generating an
input (``gen_input``, by the bench job that first needs it) and building a container
image (``build_image``).

A kernel failure (non-zero exit, timeout, verification failure, invalid records) never
fails the job: the raw file then holds ONE record with ``status: failed`` and the reason,
so the campaign goes on and the tables mark the cell. Such a point runs again at the
next start because its ``attempt`` parameter changes (:mod:`ciphersweep.verdict.admission`);
the records of a run carry the ``attempt`` token it was started with.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from ciphersweep.backends import codepath
from ciphersweep.core import atomic
from ciphersweep.core.digest import file_hexdigest
from ciphersweep.job import build as cs_build
from ciphersweep.job import busy as cs_busy
from ciphersweep.job import cpusample
from ciphersweep.job import kernel_process as cs_kproc
from ciphersweep.job import launch as cs_launch
from ciphersweep.job import point_record as cs_record
from ciphersweep.job.energy import hooks as energy_hooks
from ciphersweep.job.logged import run_logged
from ciphersweep.job.spec import RunSpec
from ciphersweep.plan import fingerprint as cs_fp
from ciphersweep.plan.sweep import Point

__all__ = ["RunSpec", "build_image", "gen_input", "gen_input_argv", "run_point"]


def run_point(
    point: Point,
    spec: RunSpec,
    runner: Callable[..., Any] = cpusample.run,
    busy: cs_busy.Monitor | None = None,
) -> dict[str, Any]:
    """Run one point and write ``spec.out_path``; return a small summary dict.

    Whatever goes wrong, the job itself succeeds with a failure record: one point never
    keeps the analysis of the others from running (and it runs again next time). The
    one exception is an interruption from outside (:class:`kernel_process.Interrupted`):
    nothing was measured, so nothing is recorded (the point keeps its previous raw
    file) and the job fails with one line naming the point. ``busy``: the busy checks
    of the job's pack (a new one: this point alone)."""
    try:
        return _run_point(point, spec, runner, busy or cs_busy.Monitor())
    except cs_kproc.Interrupted as exc:
        with open(spec.log_path, "a") as log:
            print(f"INTERRUPTED: {exc}", file=log)
        raise cs_kproc.Interrupted(
            f"ciphersweep: interrupted: {point.id}: {exc} (its previous records "
            "are kept; the same command measures it)"
        ) from None
    except Exception as exc:  # noqa: BLE001 - turned into the point's failure record
        reason = f"the bench job failed: {type(exc).__name__}: {exc}"[:500]
        return _failed(point, spec, reason, "a")


def _failed(point: Point, spec: RunSpec, reason: str, log_mode: str) -> dict[str, Any]:
    """A point that failed before its kernel wrote anything: its failure record (its
    raw file) and the line in its log (``log_mode``: "w" starts the log afresh)."""
    rec = cs_record.failure_record(point, spec, reason)
    rec["attempt"] = spec.attempt
    Path(spec.out_path).parent.mkdir(parents=True, exist_ok=True)
    Path(spec.log_path).parent.mkdir(parents=True, exist_ok=True)
    with open(spec.log_path, log_mode) as log:
        print(f"FAILED: {reason}", file=log)
    cs_record.write(spec.out_path, [rec])
    return {"status": "failed", "reason": reason, "wall": None}


def _where() -> str:
    """``slurm`` inside a Slurm job, else ``local``."""
    return "slurm" if os.environ.get("SLURM_JOB_ID") else "local"


def _platform(spec: RunSpec, mpi_session: str = "") -> cs_launch.Platform:
    """Where and how this job launches its kernel."""
    return cs_launch.Platform(
        where=_where(),
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
        mpi_session_base=mpi_session,
    )


@contextmanager
def _mpi_session(point: Point) -> Iterator[str]:
    """A scratch directory for the session files of a local MPI point's mpirun (see
    launch_env.mpi_session_env), removed afterwards; "" for every other point (under
    Slurm, srun's PMIx keeps each step's files apart, and a multi-node mpirun would
    leave the directory behind on every node)."""
    if not point.mpi_launched or _where() != "local":
        yield ""
        return
    base = tempfile.mkdtemp(prefix="cs-mpi-")
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _binary(point: Point, spec: RunSpec) -> str | None:
    """The native kernel binary a point runs (None: in an image, or Python-side)."""
    if spec.runtime != "none" or point.backend in cs_launch.PY_KERNELS:
        return None
    return os.path.join(spec.kernel_dir, f"aes-{point.backend}")


def _launch_line(
    point: Point,
    spec: RunSpec,
    scratch: tuple[str, str, str],
    log: TextIO,
) -> tuple[cs_launch.Launch, Any]:
    """The point's launch line (with the energy wrapper) and its energy probe;
    ``scratch``: the kernel's JSON file, likwid's CSV and mpirun's session base."""
    json_tmp, likwid_csv, mpi_session = scratch
    prefix, eflag, probe = energy_hooks.setup(
        point, spec.energy, _binary(point, spec), likwid_csv, log
    )
    args = cs_launch.kernel_args(
        point, input_path=spec.input_path, json_path=json_tmp, energy=eflag
    )
    plat = _platform(spec, mpi_session)
    ln = cs_launch.build(point, plat, args, energy_prefix=prefix)
    print(f"point: {point.id}", file=log)
    if ln.env:
        env = " ".join(f"{k}={v}" for k, v in sorted(ln.env.items()))
        print(f"env: {env}", file=log)
    return ln, probe


def kernel_json(out_path: str) -> str:
    """The file the kernel of the point whose raw file is ``out_path`` writes its
    records to (read, then removed, by the bench job)."""
    return f"{out_path}.kernel.tmp"


def remove_scratch(out_path: str) -> None:
    """What a run of the point whose raw file is ``out_path`` leaves while it is in
    progress: the kernel's records file and an aes-command's scratch folder
    (kernel_command.scratch_dir), and the temporary file of a raw file being replaced
    (ciphersweep.core.atomic). Removed after each run of the point and, for a bench
    job killed meanwhile (SIGKILL, a lost node), when its pack next runs."""
    json_tmp = kernel_json(out_path)
    if os.path.isfile(json_tmp):
        os.remove(json_tmp)
    shutil.rmtree(f"{json_tmp}.d", ignore_errors=True)
    atomic.remove_leftovers(out_path)


def _stale_build(point: Point, spec: RunSpec) -> str | None:
    """Why the point's binary cannot be measured for this campaign: its build carries
    another build key than the plan's (other sources or settings: a build directory
    that another campaign, with other settings and its own Snakemake records, built
    last; Snakemake builds it again only where its records of the build say it must).
    None when the key is the plan's, or not checked."""
    if spec.build_key is None or _binary(point, spec) is None:
        return None
    built = cs_build.info_build_key(spec.kernel_dir)
    if built == spec.build_key:
        return None
    rule = "build_variant" if point.variant else "build_kernels"
    return (
        f"{spec.kernel_dir} holds a build of other sources or settings (build key "
        f"{str(built)[:23]}, this campaign's {spec.build_key[:23]}): --forcerun "
        f"{rule} builds it again"
    )


def _run_point(
    point: Point, spec: RunSpec, runner: Callable[..., Any], busy: cs_busy.Monitor
) -> dict[str, Any]:
    Path(spec.out_path).parent.mkdir(parents=True, exist_ok=True)
    Path(spec.log_path).parent.mkdir(parents=True, exist_ok=True)
    json_tmp = kernel_json(spec.out_path)
    likwid_csv = f"{spec.out_path}.likwid.csv"
    stale = _stale_build(point, spec)
    if stale:  # nothing its records could be admitted with: not run
        return _failed(point, spec, stale, "w")
    ensure_input(point, spec)
    try:
        with open(spec.log_path, "w") as log, _mpi_session(point) as session:
            scratch = (json_tmp, likwid_csv, session)
            reason, wall = _measure(point, spec, (runner, busy), scratch, log)
    finally:
        remove_scratch(spec.out_path)
    return {"status": "failed" if reason else "ok", "reason": reason, "wall": wall}


def _measure(
    point: Point,
    spec: RunSpec,
    how: tuple[Callable[..., Any], cs_busy.Monitor],
    scratch: tuple[str, str, str],
    log: TextIO,
) -> tuple[str | None, float]:
    """Launch the point, write its records (or its failure record) to ``spec.out_path``;
    why it failed (None: it did not) and its wall time. ``how``: what runs the kernel
    processes, and the busy checks."""
    runner, monitor = how
    ln, probe = _launch_line(point, spec, scratch, log)
    json_tmp, likwid_csv, _ = scratch
    busy = monitor.before_point(point.id, _where(), log)
    print(f"launch: {ln.text}", file=log, flush=True)
    env = {**os.environ, **ln.env}
    records, reason, wall, peak = cs_kproc.run_processes(
        point, spec.timeout_s, runner, ln.argv, env, json_tmp, log
    )
    extra = cs_record.orchestrator_fields(point, spec, ln.text, ln.oversubscribed)
    extra["cpu_peak_pct"] = peak
    if point.input_set is not None:
        extra["input_set"] = point.input_set
    extra.update(busy)
    if reason is None:
        records = cs_record.completed(records, extra)
        chosen = codepath.select(point.backend, point.impl, env)
        records = cs_record.with_code_path(records, chosen)
        records = energy_hooks.finish(records, probe, likwid_csv, log)
    else:
        print(f"FAILED: {reason}", file=log)
        rec = cs_record.failure_record(point, spec, reason, ln.text)
        records = [cs_record.fill(rec, extra)]
    cs_record.write(spec.out_path, records)
    return reason, wall


def gen_input_argv(gen: list[str], out: str, size_bytes: int, seed: int) -> list[str]:
    """Launch line of the input generator (``aes-seq --gen-input``)."""
    return gen + ["--gen-input", out, "--size", f"{size_bytes}B", "--seed", str(seed)]


def gen_input(gen: list[str], out: str, nbytes: int, seed: int, log: str) -> None:
    """One deterministic input file of ``nbytes`` (written whole, then put in place)
    and its digest beside it (``.sha256``)."""
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    Path(log).write_text("")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if gen and gen[0] == "ch-run" and not env.get("USER"):
        env["USER"] = cs_launch.user_name()
    part = f"{out}.part{os.getpid()}"
    try:
        run_logged(gen_input_argv(gen, part, nbytes, seed), log, env)
        size = os.path.getsize(part)
        if size != nbytes:
            raise RuntimeError(f"{out}: {size} bytes written, {nbytes} expected")
        os.replace(part, out)
    finally:
        Path(part).unlink(missing_ok=True)
    cs_fp.write_digest(out)  # what the points' records must show they read


def ensure_input(point: Point, spec: RunSpec) -> None:
    """A generated input the point reads, made when it (or its digest) is missing:
    by the first bench job that needs it. Bytes other than the generator's in its place
    are measured as they are (the records say which; ciphersweep.plan.fingerprint)."""
    data = spec.input_path
    if not spec.generator or (
        os.path.exists(data) and os.path.exists(cs_fp.digest_file(data))
    ):
        return
    gen_input(spec.generator, data, point.size_bytes, point.seed, spec.generator_log)


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
    Path(log).write_text("")
    Path(image).parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["CIPHERSWEEP_RUNTIME"] = runtime
    env["CIPHERSWEEP_APPTAINER_BUILD_ARGS"] = build_args
    run_logged([script, recipe, image], log, env)
    if os.path.exists(digest) and Path(digest).read_text().strip():
        return  # the build script wrote it ("<hex>  <file>", as sha256sum prints it)
    Path(digest).write_text(f"{file_hexdigest(image)}  {os.path.basename(image)}\n")
