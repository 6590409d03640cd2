"""Provenance: what ran where, with which software, so a number can be explained later.

The kernels put their own facts into every record (host, CPU model and cores, GPU model
and driver, compiler and flags, MPI library and OpenSSL versions, timestamp). This
module adds what only the orchestrator knows (project git revision, image and its
digest, container runtime, launch line, Slurm job id and node list) and collects the
host facts shown in the report's provenance section.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import math
import os
import platform
import re
import shutil
import socket
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ciphersweep.core import paths

__all__ = [
    "KERNEL_FIELDS",
    "ORCHESTRATOR_FIELDS",
    "PROVENANCE_ROWS",
    "cpu_model",
    "git_dirty",
    "git_revision",
    "host_facts",
    "image_digest",
    "openssl_version",
    "orchestrator_fields",
    "provenance_rows",
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


def _run(cmd: Sequence[str], cwd: str | os.PathLike[str] | None = None) -> str | None:
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


def utc_now() -> str:
    """ISO 8601 UTC timestamp with a Z suffix (the records' format)."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def git_revision(repo: str | os.PathLike[str] | None = None) -> str | None:
    """``git rev-parse HEAD`` of the project (None outside a git checkout)."""
    return _run(["git", "rev-parse", "HEAD"], cwd=repo or _project_root())


def git_dirty(repo: str | os.PathLike[str] | None = None) -> bool | None:
    """Whether tracked files differ from HEAD (None outside a git checkout)."""
    root = repo or _project_root()
    if _run(["git", "rev-parse", "HEAD"], cwd=root) is None:
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
        with p.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return f"sha256:{h.hexdigest()}"
    if p.is_dir():
        for f in sorted(x for x in p.rglob("*") if x.is_file() and not x.is_symlink()):
            h.update(str(f.relative_to(p)).encode() + b"\0")
            with f.open("rb") as fh:
                for chunk in iter(lambda fh=fh: fh.read(1 << 20), b""):
                    h.update(chunk)
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
        nodelist = _run(["squeue", "-h", "-j", job, "-o", "%N"])
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
        import shlex

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


def cpu_model(cpuinfo: str | None = None) -> str | None:
    """CPU model name from /proc/cpuinfo (x86 "model name", Arm "Model"/"CPU part")."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            cpuinfo = ""
    for key in ("model name", "Model", "cpu model", "cpu"):
        m = re.search(rf"^{re.escape(key)}\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
        if m:
            return m.group(1).strip()
    return platform.processor() or None


def _sockets(cpuinfo: str) -> int | None:
    ids = set(re.findall(r"^physical id\s*:\s*(\d+)", cpuinfo, re.MULTILINE))
    return len(ids) or None


def _mem_total_gib() -> float | None:
    try:
        m = re.search(
            r"^MemTotal:\s*(\d+) kB", Path("/proc/meminfo").read_text(), re.MULTILINE
        )
    except OSError:
        return None
    return round(int(m.group(1)) / 1024**2, 1) if m else None


def _os_release() -> str | None:
    try:
        text = Path("/etc/os-release").read_text()
    except OSError:
        return None
    m = re.search(r'^PRETTY_NAME="?([^"\n]+)"?', text, re.MULTILINE)
    return m.group(1) if m else None


def openssl_version() -> str | None:
    """``openssl version`` output (the command-line tool)."""
    return _run(["openssl", "version"])


def _first_line(text: str | None) -> str | None:
    return text.splitlines()[0].strip() if text else None


def _gpus() -> tuple[str | None, str | None]:
    out = _run(
        ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]
    )
    if not out:
        return None, None
    names, drivers = [], []
    for line in out.splitlines():
        parts = [x.strip() for x in line.split(",")]
        if parts and parts[0]:
            names.append(parts[0])
        if len(parts) > 1:
            drivers.append(parts[1])
    return (
        ", ".join(sorted(set(names))) or None,
        ", ".join(sorted(set(drivers))) or None,
    )


def host_facts() -> dict[str, Any]:
    """Facts about the machine the orchestrator runs on (report provenance section).

    Values that cannot be found are None; nothing here fails.
    """
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        cpuinfo = ""
    gpu_model, gpu_driver = _gpus()
    nvcc = _run(["nvcc", "--version"])
    nvcc_rel = re.search(r"release ([0-9.]+)", nvcc or "")
    likwid = _first_line(_run(["likwid-perfctr", "--version"]))
    return {
        "host": socket.gethostname(),
        "os": _os_release(),
        "kernel": platform.release(),
        "arch": platform.machine(),
        "cpu_model": cpu_model(cpuinfo),
        "cpu_cores": os.cpu_count(),
        "cpu_sockets": _sockets(cpuinfo),
        "memory_gib": _mem_total_gib(),
        "gpu_model": gpu_model,
        "gpu_driver": gpu_driver,
        "cc": _first_line(_run(["cc", "--version"])),
        "nvcc": f"CUDA {nvcc_rel.group(1)}" if nvcc_rel else None,
        "mpi": _first_line(_run(["mpirun", "--version"])),
        "openssl": openssl_version(),
        "likwid": likwid,
        "python": platform.python_version(),
        "snakemake": _package_version("snakemake"),
        "git_rev": git_revision(),
        "git_dirty": git_dirty(),
        "timestamp": utc_now(),
        **slurm_ids(),
    }


def _package_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


# Report rows: (label, record fields, host_facts keys). Record values win: they say what
# the kernels really ran with; host facts fill what no record carries.
PROVENANCE_ROWS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("Hosts", ("host",), ("host",)),
    ("CPU model", ("cpu_model",), ("cpu_model",)),
    ("CPU cores", ("cpu_cores",), ("cpu_cores",)),
    ("Sockets", (), ("cpu_sockets",)),
    ("Memory [GiB]", (), ("memory_gib",)),
    ("OS / kernel", (), ("os", "kernel")),
    ("GPU model", ("gpu_model",), ("gpu_model",)),
    ("GPU driver", ("gpu_driver",), ("gpu_driver",)),
    ("GPU power limit [W]", ("gpu_power_limit_w",), ()),
    ("GPU SM clock [MHz]", ("gpu_sm_clock_mhz_start", "gpu_sm_clock_mhz_end"), ()),
    (
        "GPU memory clock [MHz]",
        ("gpu_mem_clock_mhz_start", "gpu_mem_clock_mhz_end"),
        (),
    ),
    ("GPU temperature [°C]", ("gpu_temp_c_start", "gpu_temp_c_end"), ()),
    ("Compiler", ("compiler",), ("cc",)),
    ("Compiler flags", ("cflags",), ()),
    ("CUDA", (), ("nvcc",)),
    ("MPI library", ("mpi_version",), ("mpi",)),
    ("OpenSSL", ("openssl_version",), ("openssl",)),
    ("likwid", (), ("likwid",)),
    ("Energy sources", ("energy_source",), ()),
    ("Project git revision", ("git_rev",), ("git_rev",)),
    ("Container runtime", ("runtime",), ()),
    ("Image", ("image",), ()),
    ("Image digest", ("image_digest",), ()),
    ("Slurm job ids", ("slurm_job_id",), ("slurm_job_id",)),
    ("Slurm node lists", ("slurm_nodelist",), ("slurm_nodelist",)),
    ("Python / Snakemake", (), ("python", "snakemake")),
    ("First / last record", ("timestamp",), ()),
    ("Busy machine before a point", ("busy_warning",), ()),
)


_NONE_TEXT = {
    "Image": "none (native binaries)",
    "Image digest": "none (native binaries)",
    "Container runtime": "none",
    "GPU model": "none found",
    "GPU driver": "none found",
    "GPU power limit [W]": "not read (no GPU, or no NVML)",
    "GPU SM clock [MHz]": "not read (no GPU, or no NVML)",
    "GPU memory clock [MHz]": "not read (no GPU, or no NVML)",
    "GPU temperature [°C]": "not read (no GPU, or no NVML)",
    "Slurm job ids": "none (not run under Slurm)",
    "Slurm node lists": "none (not run under Slurm)",
    "Energy sources": "none",
    "Busy machine before a point": "no warning (or not checked: Slurm, older records)",
}


def _missing(v: Any) -> bool:
    """None, or the NaN pandas puts in a numeric column for a missing value."""
    return v is None or (isinstance(v, float) and math.isnan(v))


# Rows whose values vary from point to point: shown as the range over the start and end
# readings of every point (aes-cuda reads them when a point starts and ends).
_RANGE_ROWS = ("GPU SM clock [MHz]", "GPU memory clock [MHz]", "GPU temperature [°C]")


def _range(recs: list[dict[str, Any]], fields: tuple[str, ...]) -> list[str]:
    vals = [r.get(f) for r in recs for f in fields]
    nums = [float(v) for v in vals if not _missing(v)]
    if not nums:
        return []
    lo, hi = min(nums), max(nums)
    return [
        f"{lo:g}" if lo == hi else f"{lo:g} .. {hi:g} (start and end of the points)"
    ]


def _distinct(values: Iterable[Any]) -> list[str]:
    out: list[str] = []
    for v in values:
        if _missing(v):
            continue
        if (
            isinstance(v, float) and v.is_integer()
        ):  # pandas turns int columns with gaps into floats
            v = int(v)
        s = str(v).strip()
        if s and s not in out:
            out.append(s)
    return out


def provenance_rows(
    records: Iterable[Mapping[str, Any]] | Any,
    facts: Mapping[str, Any] | None = None,
    *,
    max_values: int = 6,
) -> list[tuple[str, str]]:
    """(label, value) rows for the report's provenance section.

    ``records``: the measurements (an iterable of dicts or a pandas DataFrame, one row
    per repetition); ``facts``: :func:`host_facts` of the machine that made the report.
    Several distinct values are listed (at most ``max_values``, then "+N more");
    nothing known is shown as "unknown".
    """
    if hasattr(records, "to_dict"):
        recs = records.to_dict("records")
    else:
        recs = [dict(r) for r in records]
    facts = facts or {}
    ok = [
        r for r in recs if r.get("status") in ("ok", None) or _missing(r.get("status"))
    ] or recs
    rows: list[tuple[str, str]] = []
    for label, rfields, fkeys in PROVENANCE_ROWS:
        if label == "First / last record":
            ts = sorted(_distinct(r.get("timestamp") for r in ok))
            rows.append((label, f"{ts[0]} / {ts[-1]}" if ts else "unknown"))
            continue
        vals: list[str] = _range(ok, rfields) if label in _RANGE_ROWS else []
        for f in rfields if label not in _RANGE_ROWS else ():
            vals += [v for v in _distinct(r.get(f) for r in ok) if v not in vals]
        if label == "Energy sources" and any(_missing(r.get("joules")) for r in ok):
            some = "none for some points" if vals else "none"
            vals.append(f"{some} (see the energy table's notes)")
        if not vals and fkeys:
            parts = _distinct(facts.get(k) for k in fkeys)
            if parts:
                vals = [" / ".join(parts)] if len(fkeys) > 1 else parts
        if label == "Project git revision" and facts.get("git_dirty"):
            vals = [v + " (working tree had local changes)" for v in vals]
        if not vals:
            text = _NONE_TEXT.get(label, "unknown")
        elif len(vals) > max_values:
            text = "; ".join(vals[:max_values]) + f"; +{len(vals) - max_values} more"
        else:
            text = "; ".join(vals)
        rows.append((label, text))
    return rows


# Report section: a two-column table written by ciphersweep.analysis.tables.model' writer (CSV,
# Markdown, LaTeX) through its plugin hook; imported lazily so that this module stays
# importable on its own.


def build_provenance_table(ctx: Any, facts: Mapping[str, Any] | None = None) -> Any:
    """The report's provenance section as a table (field, value)."""
    from ciphersweep.analysis.tables.model import Table

    meas = getattr(ctx, "measurements", None)
    records = meas if meas is not None and len(meas) else []
    rows = provenance_rows(records, host_facts() if facts is None else facts)
    return Table(
        "provenance",
        "Provenance: hardware, software versions, project revision, image and jobs of this campaign",
        [label for label, _ in rows],
        ["value"],
        {(label, "value"): value for label, value in rows},
        row_header="field",
        caption="Where and with what the campaign ran: hardware, software versions, the "
        "project's git revision, the container image and the Slurm jobs, taken from the "
        "records of every repetition (several values are listed where records differ); "
        "fields no record carries come from the machine that made the report.",
    )


def register_tables(register: Any) -> None:
    """ciphersweep.analysis.tables.model plugin hook: the provenance section."""
    from ciphersweep.analysis.tables.model import Builder

    register(Builder("provenance", build_provenance_table))
