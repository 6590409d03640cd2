"""What a point asks of the scheduler: its estimated wall time, its resources (nodes,
tasks, CPUs, GPUs, runtime, memory), the kernel's time limit inside the job, and the
packing of small points of one resource shape into shared allocations."""

from __future__ import annotations

import math
from typing import Any

from ciphersweep import backends as registry
from ciphersweep.plan.sweep import Point

# Conservative single-core throughput (bytes/s) used only to estimate job runtimes,
# by impl of the C kernels; a backend's own impls: its ``rates``.
_RATE = {
    "ref": 4e6,
    "ttable": 30e6,
    "auto": 30e6,
    "aesni": 300e6,
    "vaes256": 600e6,
    "vaes": 600e6,
    "evp": 200e6,
    # AEADs (aes-seq): every repetition is also verified (a second pass)
    "ascon-ref": 10e6,
    "ascon-lowsize": 50e6,
    "ascon-opt64": 100e6,
    "gcm-byte": 2e6,  # the byte-oriented AES of "ref" + bitwise GHASH
    "gcm-ref": 30e6,
    "gcm-aesni": 300e6,
}
_CUDA_RATE = 50e6  # host<->device copies on a slow bus included


def estimate_seconds(point: Point) -> float:
    """Pessimistic wall time of one point: all runs on one core, plus start-up."""
    b = registry.BY_NAME.get(point.backend)
    if point.backend == "cuda":
        rate = _CUDA_RATE
    else:
        own = b.rates if b is not None else {}
        rate = own.get(point.impl) or _RATE.get(point.impl, _RATE["ref"])
    runs = point.reps + point.warmup + 1  # +1: verification / reference encryption
    # process start-up, once or per run (its backend's start_s)
    start = (b.start_s if b is not None else 0.0) * (
        runs if b is not None and b.start_per_run else 1
    )
    # precision: up to max_seconds of further repetitions
    extra = point.max_seconds if point.max_seconds is not None else 0.0
    one = start + 0.25 * point.ranks + runs * point.size_bytes / rate + extra
    return 2.0 + point.processes * one


def resources(
    point: Point, cluster: dict[str, Any], timeout_s: int | None = None
) -> dict[str, Any]:
    """Scheduler resources of one point (shared by the local and the Slurm profile)."""
    cpn = int(cluster["cores_per_node"])
    nodes = max(1, math.ceil(point.ranks * point.threads / cpn))
    runtime = max(2, math.ceil(estimate_seconds(point) * 3 / 60) + 1)
    mib = point.size_bytes / 2**20
    mem_mb = int(512 + 4 * mib + 64 * point.ranks)
    return timed(
        {
            "nodes": nodes,
            "tasks": point.ranks,
            "cpus_per_task": point.threads,
            # Snakemake's Slurm executor's resource (--gpus); 0 but for cuda and a
            # user kernel with gpus
            "gpu": point.gpus,
            "runtime": runtime,
            "mem_mb": mem_mb,
            "bench": 1,
            "slurm_extra": slurm_extra(cluster),
            # Slurm's job step runs an MPI point (more than one rank) directly in the
            # batch step, where its launcher (srun/mpirun) has the whole allocation;
            # other points run in a one-task step. None: the resource is left out.
            "mpi": (
                str(cluster.get("mpi_launcher", "srun"))
                if point.mpi_launched and point.ranks > 1
                else None
            ),
        },
        timeout_s,
    )


# What every job of a campaign asks sbatch besides its resources. --no-requeue: a job
# whose node fails ends (NODE_FAIL) with that node in its accounting, and Snakemake
# submits it again at once, without the dead node (retries in profiles/slurm). Were
# Slurm to requeue it, the Slurm executor plugin (2.8.0, its issue 485) would read the
# requeued job's node list, "None assigned", as a node to exclude, and every later
# sbatch of the run would fail ("Unable to open file assigned").
NO_REQUEUE = "--no-requeue"


def timed(r: dict[str, Any], timeout_s: int | None) -> dict[str, Any]:
    """A point's resources ``r`` under the campaign's kernel time limit ``timeout_s``
    (None: none): its runtime at least the limit and two minutes."""
    if timeout_s is None:
        return r
    return {**r, "runtime": max(r["runtime"], math.ceil(timeout_s / 60) + 2)}


def slurm_extra(cluster: dict[str, Any]) -> str:
    """THE sbatch options of a bench job beyond its resources: --no-requeue (above),
    and --exclusive where the campaign asks for whole nodes (``cluster.exclusive``)."""
    return f"--exclusive {NO_REQUEUE}" if cluster.get("exclusive", True) else NO_REQUEUE


def kernel_timeout(
    point: Point, cluster: dict[str, Any], timeout_s: int | None = None
) -> int:
    """Seconds the kernel may run before the bench job kills it (inside the job's runtime)."""
    if timeout_s is not None:
        return int(timeout_s)
    return max(30, int(resources(point, cluster)["runtime"] * 60 * 0.8))


def shape(point: Point, cluster: dict[str, Any]) -> str:
    """Resource shape: points with the same shape can share one allocation."""
    return _shape_of(resources(point, cluster))


def _shape_of(r: dict[str, Any]) -> str:
    return f"n{r['nodes']}-r{r['tasks']}-c{r['cpus_per_task']}-g{r['gpu']}"


def packs(
    points: list[Point],
    cluster: dict[str, Any],
    each: dict[str, dict[str, Any]] | None = None,
) -> dict[str, list[str]]:
    """Pack -> its point ids (in sweep order): what one bench job measures.

    Small points (estimated runtime <= cluster.pack_max_runtime minutes) of one resource
    shape are dealt, in sweep order, into ceil(n / cluster.pack_size) packs of nearly
    equal size, named ``pack-<shape>-<k>`` (with cluster.pack on). Every other point is
    a pack of its own, named by the point's id. One bench job measures what is pending
    of a pack, in one allocation under Slurm. ``each``: the points' resources without
    a time limit, where the caller has them already (default: worked out here).
    """
    limit = int(cluster.get("pack_max_runtime", 10))
    size = int(cluster.get("pack_size", 32))
    by_shape: dict[str, list[str]] = {}
    alone: dict[str, list[str]] = {}
    for p in points:
        r = each[p.id] if each is not None else resources(p, cluster)
        if cluster.get("pack", False) and r["runtime"] <= limit:
            by_shape.setdefault(_shape_of(r), []).append(p.id)
        else:
            alone[p.id] = [p.id]
    out: dict[str, list[str]] = {}
    for name, ids in by_shape.items():
        n = math.ceil(len(ids) / size)
        for k in range(n):
            chunk = ids[k * len(ids) // n : (k + 1) * len(ids) // n]
            # one point gains nothing from a pack, and keeps its own name
            if len(chunk) > 1:
                out[f"pack-{name}-{k + 1}"] = chunk
            else:
                alone[chunk[0]] = chunk
    return {**out, **alone}


def pack_resources(members: list[dict[str, Any]]) -> dict[str, Any]:
    """A pack's resources from its points' (one shape): the shape, the points' runtimes
    one after another, the largest memory."""
    out = dict(members[0])
    out["runtime"] = sum(int(r["runtime"]) for r in members)
    out["mem_mb"] = max(int(r["mem_mb"]) for r in members)
    return out
