"""Provenance: what ran where, with which software, so a number can be explained later.

The kernels put their own facts into every record (host, CPU model and cores, GPU model
and driver, compiler and flags, MPI library and OpenSSL versions, timestamp). This
module adds what only the orchestrator knows (project git revision, image and its
digest, container runtime, launch line, Slurm job id and node list);
:mod:`ciphersweep.job.hostfacts` collects the facts of the machine the orchestrator
runs on.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ciphersweep.core import paths
from ciphersweep.core.digest import hash_file

__all__ = [
    "KERNEL_FIELDS",
    "ORCHESTRATOR_FIELDS",
    "git_dirty",
    "git_revision",
    "image_digest",
    "orchestrator_fields",
    "run_text",
    "slurm_ids",
    "utc_now",
]

# Provenance fields the kernels write into each record (record.schema.yaml).
KERNEL_FIELDS = (
    "host",
    "cpu_model",
    "cpu_cores",
    "gpu_model",
    "gpu_driver",
    "compiler",
    "cflags",
    "mpi_version",
    "openssl_version",
    "timestamp",
)
# Fields the orchestrator adds after the kernel ran (record.schema.yaml, "orchestrator").
ORCHESTRATOR_FIELDS = (
    "campaign",
    "point",
    "git_rev",
    "image",
    "image_digest",
    "runtime",
    "launch_line",
    "slurm_job_id",
    "slurm_nodelist",
)

_TIMEOUT = 10.0


def run_text(
    cmd: Sequence[str], cwd: str | os.PathLike[str] | None = None
) -> str | None:
    """stdout of a command (stripped), None when it is missing or fails."""
    if shutil.which(cmd[0]) is None:
        return None
    try:
        proc = subprocess.run(
            list(cmd),
            capture_output=True,
            text=True,
            timeout=_TIMEOUT,
            cwd=cwd,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.strip() or None


def utc_now(micro: bool = False) -> str:
    """ISO 8601 UTC timestamp with a Z suffix (the records' format; ``micro``: with
    microseconds, for orderings that two events in one second must not tie)."""
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ"
    return _dt.datetime.now(_dt.UTC).strftime(fmt)


def git_revision(repo: str | os.PathLike[str] | None = None) -> str | None:
    """``git rev-parse HEAD`` of the project (None outside a git checkout)."""
    return run_text(["git", "rev-parse", "HEAD"], cwd=repo or _project_root())


def git_dirty(repo: str | os.PathLike[str] | None = None) -> bool | None:
    """Whether tracked files differ from HEAD (None outside a git checkout)."""
    root = repo or _project_root()
    if run_text(["git", "rev-parse", "HEAD"], cwd=root) is None:
        return None
    try:
        proc = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=_TIMEOUT,
            cwd=root,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return bool(proc.stdout.strip()) if proc.returncode == 0 else None


def _project_root() -> Path:
    return paths.PROJECT


def image_digest(path: str | os.PathLike[str] | None) -> str | None:
    """``sha256:<hex>`` of an image file (SIF, SquashFS); None for no image.

    For a directory image (an unpacked Charliecloud tree) the digest is over the sorted
    relative paths and file contents, so it is stable across copies.
    """
    if not path:
        return None
    p = Path(path)
    h = hashlib.sha256()
    if p.is_file():
        hash_file(h, p)
        return f"sha256:{h.hexdigest()}"
    if p.is_dir():
        for f in sorted(x for x in p.rglob("*") if x.is_file() and not x.is_symlink()):
            h.update(str(f.relative_to(p)).encode() + b"\0")
            hash_file(h, f)
        return f"sha256:{h.hexdigest()}"
    return None


def slurm_ids(env: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """Slurm job id and node list of the current job (None outside Slurm)."""
    e = os.environ if env is None else env
    job = e.get("SLURM_JOB_ID") or e.get("SLURM_JOBID")
    array = e.get("SLURM_ARRAY_JOB_ID")
    task = e.get("SLURM_ARRAY_TASK_ID")
    if array and task:
        job = f"{array}_{task}"
    nodelist = e.get("SLURM_JOB_NODELIST") or e.get("SLURM_NODELIST")
    if job and not nodelist:
        # inside a Snakemake job step only SLURM_JOB_ID is passed on: ask Slurm
        nodelist = run_text(["squeue", "-h", "-j", job, "-o", "%N"])
    return {
        "slurm_job_id": job or None,
        "slurm_nodelist": nodelist or None,
    }


def orchestrator_fields(
    *,
    campaign: str | None = None,
    point: str | None = None,
    image: str | os.PathLike[str] | None = None,
    runtime: str | None = None,
    launch_line: str | Sequence[str] | None = None,
    git_rev: str | None = None,
    digest: str | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The orchestrator's provenance fields for the records of one bench job.

    Compute once per job and merge into every record (``{**record, **fields}``).
    ``launch_line`` may be the argv list; it is joined with shell quoting.
    """
    if launch_line is not None and not isinstance(launch_line, str):
        launch_line = shlex.join([str(a) for a in launch_line])
    return {
        "campaign": campaign,
        "point": point,
        "git_rev": git_rev if git_rev is not None else git_revision(),
        "image": str(image) if image else None,
        "image_digest": digest if digest is not None else image_digest(image),
        "runtime": runtime or "none",
        "launch_line": launch_line,
        **slurm_ids(env),
    }
