"""THE place where a benchmark point's launch line is built.

    [host launcher]  mpirun -np R [--oversubscribe] [--allow-run-as-root] |
                     srun --mpi=pmix -n R [-c T]                   (MPI points only)
    [container]      apptainer exec [--nv] [--bind B]... IMAGE |
                     ch-run [-b B]... -b WORKDIR:/mnt -c /mnt IMAGE --
    [energy wrapper] e.g. likwid-perfctr -m -g ENERGY -C CORES -O -o FILE
    kernel ARGS      aes-<backend> --impl ... --json FILE

The host launcher is always outside the container (Apptainer's hybrid MPI model).
The kernels that are modules of this package (a backend's ``kernel_module``: the
Python runners, ``aes-command``, ``aes-user``) are run by the workflow's own Python
(``python -m ciphersweep.job.kernel_<name>``); the command backend's
program is given to ``aes-command`` after ``--`` as an argument list whose placeholders
(:data:`ciphersweep.plan.launch_checks.PLACEHOLDERS`) :func:`command_argv` fills in for each run, with no shell.
"""

from __future__ import annotations

import os
import pwd
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ciphersweep import backends as registry
from ciphersweep.core import paths
from ciphersweep.job.launch_env import (
    mpi_local_env,
    mpi_network_env,
    mpi_session_env,
    mpi_topology_env,
    omp_binding_env,
    slurm_allocation_env,
)
from ciphersweep.plan.launch_checks import placeholder_errors
from ciphersweep.plan.sweep import AEAD_MODES, Point

# backends whose kernel is a module of this package, run by the workflow's Python
PY_KERNELS = {b.name: b.kernel_module for b in registry.ALL if b.kernel_module}

# inside a Charliecloud image the working directory is bound here (it exists in every
# Debian root file system, and SquashFS images cannot grow new mount points)
CH_WORKDIR = "/mnt"


@dataclass
class Platform:
    """Where and how a point is launched (derived from the config and the job's environment)."""

    where: str = "local"  # local | slurm
    mpi_launcher: str = "srun"  # under Slurm: srun | mpirun
    mpirun_args: list[str] = field(default_factory=list)
    mpi_network: str = (
        ""  # interface or CIDR MPI uses between nodes ("" = Open MPI's choice)
    )
    runtime: str = "none"  # none | apptainer | charliecloud
    image: str | None = None
    binds: list[str] = field(default_factory=list)
    kernel_dir: str = (
        "build/kernels"  # native build dir, or bin dir inside the image ("" = PATH)
    )
    cwd: str = "."
    cores: int = 1  # cores available to the job on this node
    is_root: bool = False
    # a directory of this launch alone for mpirun's session files ("" = Open MPI's own)
    mpi_session_base: str = ""


@dataclass
class Launch:
    argv: list[str]
    oversubscribed: bool
    env: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return shlex.join(self.argv)


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def kernel_args(
    point: Point,
    *,
    input_path: str,
    json_path: str,
    energy: str = "auto",
) -> list[str]:
    """Command-line arguments of the kernel for one point (the kernel contract)."""
    args: list[str] = []
    b = registry.get(point.backend)
    if b.cipher_flag:
        args += ["--cipher", point.cipher]
        if point.key_bits is not None:
            args += ["--key-bits", str(point.key_bits)]
        if b.impl_flag:
            args += ["--impl", point.impl]
    elif point.cipher in AEAD_MODES:
        args += ["--cipher", point.cipher, "--impl", point.impl]
    else:
        args += ["--impl", point.impl, "--mode", point.mode]
    args += ["--op", point.op, "--input", input_path]
    if point.nopad and point.mode in ("ecb", "cbc"):
        args.append("--nopad")
    args += ["--reps", str(point.reps), "--warmup", str(point.warmup)]
    if point.batch > 1:
        args += ["--batch", str(point.batch)]
    if point.target is not None:  # precision: the kernel calibrates its repetitions
        args += [
            "--target-ci",
            f"{point.target:g}",
            "--max-reps",
            str(point.max_reps),
            "--max-seconds",
            f"{point.max_seconds:g}",
        ]
    if b.shape_args is not None:  # its own flags (threads, block size...)
        args += b.shape_args(point)
    args += ["--energy", energy, "--json", json_path]
    if point.inject_fault:
        args += ["--inject-fault", "corrupt"]
    if b.tail_args is not None:  # a program and its arguments
        args += b.tail_args(point)
    return args


def command_argv(template: Sequence[str], values: dict[str, str]) -> list[str]:
    """A command backend's argument list with its placeholders filled in.

    Each item is expanded on its own and stays ONE argument: no shell ever sees it, so
    a ``;`` or a space in a path is part of that path."""
    bad = placeholder_errors(template)
    if bad:
        raise ValueError(bad)
    return [str(item).format_map(values) for item in template]


def host_launcher(point: Point, plat: Platform) -> tuple[list[str], bool]:
    """The MPI launcher prefix and whether the node is oversubscribed."""
    total = point.ranks * point.threads
    oversub = total > plat.cores
    if not point.mpi_launched:
        return [], oversub
    r = str(point.ranks)
    if plat.where == "slurm" and plat.mpi_launcher == "srun":
        # --overlap: a one-rank point runs inside the one-task step Snakemake's job step
        # started and may share its CPUs; --cpu-bind=cores pins ranks where the site's
        # task plugin can; --kill-on-bad-exit=1: a rank that crashes ends the step at
        # once (its point fails with the signal); when every rank of one node crashed,
        # the other nodes' ranks waited for them in a collective until the point's
        # timeout (the ranks of the kernels this workflow builds end together, after
        # MPI_Finalize, so a rank that ends well never ends the others early).
        argv = ["srun", "--mpi=pmix", "--overlap", "--cpu-bind=cores"]
        argv += ["--kill-on-bad-exit=1", "-n", r]
        if point.threads > 1:
            argv += ["-c", str(point.threads)]
        return argv, oversub
    argv = ["mpirun", "-np", r]
    if plat.where == "local" and point.ranks > plat.cores:
        argv.append("--oversubscribe")
    if plat.is_root:
        argv.append("--allow-run-as-root")
    if plat.where == "local" and not any("pml" in a for a in plat.mpirun_args):
        # one node: shared memory through ob1/vader; skipping UCX's search for network
        # devices halves mpirun's start-up (mpirun_args naming a pml wins)
        argv += ["--mca", "pml", "ob1"]
    argv += list(plat.mpirun_args)
    return argv, oversub


def container_prefix(point: Point, plat: Platform) -> tuple[list[str], dict[str, str]]:
    """The container runtime prefix and environment it needs."""
    if plat.runtime == "none":
        return [], {}
    if not plat.image:
        raise ValueError(f"container runtime {plat.runtime!r} needs an image")
    if plat.runtime == "apptainer":
        argv = ["apptainer", "exec"]
        if point.backend == "cuda":
            argv.append("--nv")
        for b in plat.binds:
            argv += ["--bind", b]
        return argv + [plat.image], {}
    if plat.runtime == "charliecloud":
        argv = ["ch-run"]
        for b in plat.binds:
            argv += ["-b", b]
        argv += [
            "-b",
            f"{os.path.abspath(plat.cwd)}:{CH_WORKDIR}",
            "-c",
            CH_WORKDIR,
            plat.image,
            "--",
        ]
        env = {} if os.environ.get("USER") else {"USER": user_name()}
        if point.mpi_launched:
            # every rank runs in its own user namespace, where Open MPI's CMA single-copy
            # transport cannot work; it would warn (and garble mpirun's log) otherwise
            env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
        return argv, env
    raise ValueError(f"unknown container runtime {plat.runtime!r}")


def user_name() -> str:
    """This user's name (for Charliecloud, which needs ``$USER``)."""
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:  # pragma: no cover
        return str(os.getuid())


def kernel_prefix(point: Point, plat: Platform) -> list[str]:
    """The kernel itself: its binary, or the Python running a Python-side kernel."""
    mod = PY_KERNELS.get(point.backend)
    if mod is not None:
        return [sys.executable, "-m", f"{paths.KERNEL_PACKAGE}.{mod}"]
    return [kernel_path(point, plat)]


def python_env() -> dict[str, str]:
    """The Python-side kernels' environment: PYTHONPATH with this package, and one
    OpenBLAS thread. The kernels use no BLAS, but NumPy (under SciPy, which the
    repetition loop uses) starts a pool of OpenBLAS threads that spin while it loads:
    on 2 cores that read as a 190 % CPU peak of a one-thread kernel."""
    here = str(paths.WORKFLOW)
    old = os.environ.get("PYTHONPATH")
    return {
        "PYTHONPATH": here + (os.pathsep + old if old else ""),
        "OPENBLAS_NUM_THREADS": "1",
    }


def kernel_path(point: Point, plat: Platform) -> str:
    name = f"aes-{point.backend}"
    if plat.runtime != "none":
        return f"{plat.kernel_dir.rstrip('/')}/{name}" if plat.kernel_dir else name
    return os.path.join(os.path.abspath(plat.kernel_dir), name)


def build(
    point: Point,
    plat: Platform,
    args: Sequence[str],
    energy_prefix: Sequence[str] | None = None,
) -> Launch:
    """Full launch line for a point: launcher, container, energy wrapper, kernel + args."""
    host, oversub = host_launcher(point, plat)
    cont, env = container_prefix(point, plat)
    backend = registry.get(point.backend)
    if "openmp" in (backend.traits_of(point.impl) or ()):
        env = {**omp_binding_env(), **env}  # an OpenMP kernel's threads pinned
    if point.backend in PY_KERNELS:
        env = {**env, **python_env()}
    if host and host[0] == "mpirun" and plat.where == "slurm":
        env = {**slurm_allocation_env(), **env}
    if host:
        env = {**mpi_network_env(plat.mpi_network), **env}
    if host and host[0] == "mpirun":
        env = {**mpi_session_env(plat.mpi_session_base, plat.mpirun_args), **env}
        if plat.where == "local":
            env = {**mpi_local_env(), **env}
            if backend.kind == "native":
                env = {**mpi_topology_env(), **env}
    kernel = list(energy_prefix or []) + kernel_prefix(point, plat) + list(args)
    if backend.kind == "user":  # aes-user starts it under the launcher
        argv = cont + kernel + ["--", *host]
    else:
        argv = host + cont + kernel
    return Launch(argv=argv, oversubscribed=oversub, env=env)


def kernel_env(
    point: Point, plat: Platform, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment a point's kernel is launched with (``environ``, default this
    process's, with what its launch line adds), as the bench job builds it: the plan
    takes the code-path variables and library versions a point's records must show
    from it."""
    base = os.environ if environ is None else environ
    return {**base, **build(point, plat, []).env}


def generator_argv(plat: Platform) -> list[str]:
    """Prefix that runs ``aes-seq`` (the input generator) natively or in the image."""
    gen = Point(
        backend="seq",
        impl="auto",
        mode="ctr",
        op="encrypt",
        cipher="aes-128-ctr",
        size_bytes=1,
        size_label="1B",
        input_name="1B",
        input_path=None,
    )
    cont, _ = container_prefix(gen, plat)
    return cont + [kernel_path(gen, plat)]
