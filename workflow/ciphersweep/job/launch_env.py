"""The environment a launch line adds for its kernel: OpenMP threads pinned to cores,
Open MPI kept on one network, PMIx's job store in-process and hwloc's discovery kept to
the CPUs for one node's mpirun, and the Slurm allocation mpirun needs to see. Settings
already in the user's environment always win."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from typing import Any


def mpi_network_env(
    network: str, environ: dict[str, str] | None = None
) -> dict[str, str]:
    """Open MPI settings for ranks on several nodes talking over one TCP network.

    ``network`` (config ``cluster.mpi_network``) is an interface name or a CIDR block:
    the out-of-band channel (oob) and the byte transfer layer (btl) use only it, ranks
    on the same node use shared memory (vader), and the pml is ob1, which drives those
    btls (UCX would look for other devices). Nothing is set for "", and settings
    already in the user's environment win."""
    if not network:
        return {}
    env = os.environ if environ is None else environ
    want = {
        "OMPI_MCA_pml": "ob1",
        "OMPI_MCA_btl": "self,vader,tcp",
        "OMPI_MCA_btl_tcp_if_include": network,
        "OMPI_MCA_oob_tcp_if_include": network,
    }
    return {k: v for k, v in want.items() if k not in env}


def mpi_session_env(
    base: str, mpirun_args: list[str], environ: dict[str, str] | None = None
) -> dict[str, str]:
    """mpirun's session directory under ``base``, a directory of this launch alone.

    Open MPI 4.1 keeps one session directory per user and host (/tmp/ompi.HOST.UID):
    the first mpirun to finish removes it while another is making its own in it, and
    that one fails with "A call to mkdir was unable to create the desired directory"
    (open-mpi/ompi#8510; measured here: 3 of 360 one-rank launches, three at a time).
    Nothing is set without ``base``, or where the user chose a base already
    (OMPI_MCA_orte_tmpdir_base, or orte_tmpdir_base in cluster.mpirun_args)."""
    env = os.environ if environ is None else environ
    if (
        not base
        or "OMPI_MCA_orte_tmpdir_base" in env
        or any("orte_tmpdir_base" in a for a in mpirun_args)
    ):
        return {}
    return {"OMPI_MCA_orte_tmpdir_base": base}


def mpi_local_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """PMIx's job store in each process (``hash``) for one node's mpirun.

    mpirun's PMIx server hands its ranks the job's information (ranks, nodes, how to
    reach each other) through a store; by default PMIx 4 first sets up two in shared
    memory (``ds12`` and ``ds21``), which a few ranks on one node do not need.
    In-process, a launch of aes-mpi starts and ends sooner (Open MPI 4.1.4, PMIx 4.2.2,
    2 cores: 13 ms of about 0.11 s idle, 33-65 ms of 0.22-0.34 s with two busy
    processes). The kernel's timed regions do not read it: it holds what MPI_Init and a
    first contact between two ranks look up, which the setup's collectives and the
    warm-up repetition make. A value already in the user's environment wins."""
    env = os.environ if environ is None else environ
    return {} if "PMIX_MCA_gds" in env else {"PMIX_MCA_gds": "hash"}


# hwloc's discovery without I/O devices: the components that read every PCI device's
# configuration space, and the plugins only they and XML use (libpciaccess, OpenCL,
# X11/NV-CONTROL, libxml2: hwloc's own XML code stands in for the last)
HWLOC_CPU_ONLY = {
    "HWLOC_COMPONENTS": "-linuxio,-pci",
    "HWLOC_PLUGINS_BLACKLIST": "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_xml_libxml",
}


def mpi_topology_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """hwloc's discovery kept to CPUs, caches and memory, for one node's mpirun of a
    kernel this workflow builds.

    mpirun discovers the node's topology once per launch (its ranks take it from
    mpirun) and places and binds ranks by cores; I/O devices play no part. Reading
    every PCI device's configuration space was most of that discovery's CPU time on a
    virtual machine, and its plugins load X11, OpenCL and libxml2.
    Measured (Open MPI 4.1.4, hwloc 2.9.0, 2 cores, aes-mpi on 1 KiB, median of 12):
    2 ranks 96 to 80 ms idle and 155 to 116 ms with two busy processes, 18 ms less
    CPU; the same bindings. The ranks inherit the variables, so they are set for the
    workflow's own kernels only (a user's program may look up its GPU or network card
    through hwloc). Nothing is set where the user set either variable."""
    env = os.environ if environ is None else environ
    return {} if any(k in env for k in HWLOC_CPU_ONLY) else dict(HWLOC_CPU_ONLY)


def omp_binding_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """OpenMP threads pinned one per core, so that a thread never migrates during a
    timed region; settings already in the user's environment win."""
    env = os.environ if environ is None else environ
    want = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}
    return {k: v for k, v in want.items() if k not in env}


def slurm_allocation_env(
    environ: dict[str, str] | None = None,
    run: Callable[..., Any] = subprocess.run,
) -> dict[str, str]:
    """Allocation variables mpirun needs to see the job's nodes and slots.

    Snakemake's Slurm job step passes on only SLURM_JOB_ID of the SLURM_* variables, and
    Open MPI's mpirun without SLURM_JOB_NODELIST / SLURM_TASKS_PER_NODE fails (or runs
    everything on the first node). They are read back from ``scontrol show job``.
    Nothing is returned outside a job or when the variables are already there."""
    env = dict(os.environ if environ is None else environ)
    job = env.get("SLURM_JOB_ID") or env.get("SLURM_JOBID")
    if not job or env.get("SLURM_JOB_NODELIST"):
        return {}
    try:
        out = run(
            ["scontrol", "show", "job", "-o", job],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    fields = dict(item.split("=", 1) for item in (out or "").split() if "=" in item)
    nodelist = fields.get("NodeList", "")
    try:
        nodes = int(fields.get("NumNodes", "1").split("-")[0])
        tasks = int(fields.get("NumTasks", "1"))
    except ValueError:
        return {}
    if not nodelist or nodelist == "(null)" or nodes < 1:
        return {}
    per_node = -(-tasks // nodes)
    tpn = str(per_node) if nodes == 1 else f"{per_node}(x{nodes})"
    return {
        "SLURM_JOB_NODELIST": nodelist,
        "SLURM_NODELIST": nodelist,
        "SLURM_JOB_NUM_NODES": str(nodes),
        "SLURM_NNODES": str(nodes),
        "SLURM_NTASKS": str(tasks),
        "SLURM_TASKS_PER_NODE": tpn,
        "SLURM_JOBID": job,
    }
