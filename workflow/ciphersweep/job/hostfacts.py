"""Facts about the machine the orchestrator runs on (CPU, memory, OS, GPUs, compilers,
MPI, OpenSSL, likwid, Python and Snakemake versions), for the report's provenance
section; what the records do not say is filled from here."""

from __future__ import annotations

import os
import platform
import re
import socket
from importlib import metadata
from pathlib import Path
from typing import Any

from ciphersweep.job.provenance import (
    git_dirty,
    git_revision,
    run_text,
    slurm_ids,
    utc_now,
)


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
    return run_text(["openssl", "version"])


def _first_line(text: str | None) -> str | None:
    return text.splitlines()[0].strip() if text else None


def _gpus() -> tuple[str | None, str | None]:
    out = run_text(
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
    nvcc = run_text(["nvcc", "--version"])
    nvcc_rel = re.search(r"release ([0-9.]+)", nvcc or "")
    likwid = _first_line(run_text(["likwid-perfctr", "--version"]))
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
        "cc": _first_line(run_text(["cc", "--version"])),
        "nvcc": f"CUDA {nvcc_rel.group(1)}" if nvcc_rel else None,
        "mpi": _first_line(run_text(["mpirun", "--version"])),
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
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
