"""The Slurm profile end to end, on a private single-node Slurm 22.05 cluster.

The module-scoped ``cluster`` fixture (tests/slurm/conftest.py) starts munge, MariaDB, slurmdbd, slurmctld and
slurmd with tests/cluster/up.sh (one node declaring 32 CPUs and one fake GPU, with a
private configuration: the machine's /etc/slurm is never written) and stops them with
tests/cluster/down.sh; the last test checks that nothing is left.
It needs root on Debian 12 with the packages of scripts/apt-test.txt; without them the
tests are skipped with the reason. The other single-node modules
(test_slurm_launchers.py, test_slurm_recovery.py) start a cluster of their own, so that
they run beside this one under pytest-xdist.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from slurmtools import (
    CLUSTER_DIR,
    KERNELS,
    Cluster,
    daemon_pids,
    default_config,
    etc_slurm_snapshot,
    kernels_or_skip,
    netns_left,
    records,
    run_slurm,
    slurm_env,
    snakemake_cmd,
    start_cluster,
    submitted_jobs,
)
from support import planned_points

# ======================================================================== the cluster

HELLO_C = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int rank, size, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("hello size=%d sum=%d\n", size, sum);
  MPI_Finalize();
  return 0;
}
"""


def test_cluster_is_up(cluster: Cluster) -> None:
    """One idle node with 32 CPUs and a GPU, registered in accounting; bring-up time."""
    print(f"[slurm] bring-up took {cluster.bringup_s:.1f} s")
    line = cluster.run("sinfo", "-h", "-N", "-o", "%N|%c|%G|%T").strip()
    node, cpus, gres, state = line.split("|")
    assert node == cluster.node and cpus == "32" and "gpu:1" in gres, line
    assert state == "idle", line
    assert "cstest" in cluster.run(
        "sacctmgr", "-n", "-P", "show", "cluster", "format=cluster"
    )
    assert "pmix" in cluster.run("srun", "--mpi=list") + cluster.run(
        "srun", "--mpi=list", check=False
    )


def test_mpi_hello_srun_pmix(cluster: Cluster, tmp_path: Path) -> None:
    """sbatch + srun --mpi=pmix runs Open MPI programs with 1, 2, 4 and 32 ranks."""
    src = tmp_path / "hello.c"
    src.write_text(HELLO_C)
    subprocess.run(["mpicc", "-o", str(tmp_path / "hello"), str(src)], check=True)
    script = tmp_path / "job.sh"
    script.write_text(
        "#!/bin/bash\nset -e\nfor n in 1 2 4 32; do\n"
        f"  srun --mpi=pmix -n $n {tmp_path / 'hello'}\ndone\n"
    )
    script.chmod(0o755)
    out = tmp_path / "job.out"
    cluster.run(
        "sbatch",
        "--wait",
        "-n",
        "32",
        "-o",
        str(out),
        "-D",
        str(tmp_path),
        str(script),
        timeout=240,
    )
    lines = [x for x in out.read_text().splitlines() if x.startswith("hello")]
    assert lines == [f"hello size={n} sum={n * (n - 1) // 2}" for n in (1, 2, 4, 32)], (
        out.read_text()
    )


def test_oversize_request_is_refused_at_once(cluster: Cluster) -> None:
    """33 tasks on the 32-CPU partition: sbatch fails at submission (EnforcePartLimits),
    it does not leave a job pending forever (no job was submitted: the answer is an
    error, not a job id, whatever the time it took)."""
    p = subprocess.run(
        ["sbatch", "-n", "33", "--wrap", "true"],
        capture_output=True,
        text=True,
        timeout=60,
        env=slurm_env(),
        check=False,
    )
    assert p.returncode != 0, p.stdout
    assert "sbatch: error" in p.stderr, p.stderr
    assert "Submitted batch job" not in p.stdout, p.stdout
    print(f"[slurm] 33 tasks refused: {p.stderr.strip()}")


# ======================================================================== packing


def pack_config() -> dict[str, Any]:
    """1,000 small points: 25 sizes x 2 ops x (2 modes x 6 native + 8 EVP ciphers)."""
    return default_config(
        campaign="pack1000",
        sizes=[f"{k}KiB" for k in range(1, 26)],
        modes=["ecb", "ctr"],
        ops=["encrypt", "decrypt"],
        reps=1,
        warmup=0,
        backends={
            "seq": {"impls": ["ref", "ttable"]},
            "omp": {"impls": ["ttable"], "threads": [2, 4]},
            "mpi": {"impls": ["ttable"], "ranks": [2, 4]},
            "openssl": {
                "ciphers": [
                    "aes-128-ecb",
                    "aes-128-cbc",
                    "aes-128-ctr",
                    "aes-128-cfb",
                    "aes-128-ofb",
                    "aes-256-ecb",
                    "aes-256-cbc",
                    "aes-256-ctr",
                ]
            },
        },
    )


def planned_submissions(text: str) -> tuple[int, dict[str, int]]:
    """Slurm jobs a dry run of the Slurm profile plans: one per group job plus one per
    job outside any group that is not a local rule."""

    local = {"all", "gather", "tables", "plots", "binary_sizes"}
    groups = re.findall(r"\] Group job (\S+) ", text)
    single = [
        m
        for m in re.findall(r"^(?:local)?rule (\w+):", text, flags=re.MULTILINE)
        if m not in local
    ]
    kinds: dict[str, int] = {}
    for g in groups:
        kind = g.rsplit("-", 0)[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    for r in single:
        kinds[r] = kinds.get(r, 0) + 1
    return len(groups) + len(single), kinds


def test_packing_1000_points_dry_run(tmp_path: Path) -> None:
    """A 1,000-point sweep of small sizes plans at most 40 Slurm jobs (dry run of the
    Slurm profile: the jobs Snakemake would submit), every point in one of them."""
    cfg = pack_config()
    cmd = snakemake_cmd(tmp_path, cfg, "-n", "--verbose")  # every job and point
    p = subprocess.run(
        cmd,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=slurm_env(),
        check=False,
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    text = p.stdout + p.stderr
    assert "ciphersweep: 1000 benchmark points to measure" in text, text[-2000:]
    assert len(planned_points(text)) == 1000
    n, kinds = planned_submissions(text)
    print(f"[slurm] 1000 points -> {n} planned Slurm jobs: {kinds}")
    assert n <= 40, kinds
    # every bench job measures a pack of points (none measures a point alone)
    packs = re.findall(r"wildcards: pack=(\S+)", text)
    assert len(packs) == kinds["bench"] and all(p.startswith("pack-") for p in packs)


# ======================================================================== the campaign


@dataclass
class CampaignRun:
    workdir: Path
    config: dict[str, Any]
    proc: subprocess.CompletedProcess[str]
    cancelled: list[str]
    wall_s: float

    @property
    def res(self) -> Path:
        return self.workdir / "results" / self.config["campaign"]


def _scancel_when_running(pattern: str, done: list[str], stop: Any) -> None:
    """Cancel (once) the first running Slurm job whose comment contains ``pattern``."""
    while not stop.is_set():
        try:
            out = subprocess.run(
                ["squeue", "-h", "-o", "%i|%T|%k|%M"],
                capture_output=True,
                text=True,
                timeout=20,
                env=slurm_env(),
                check=False,
            ).stdout
        except subprocess.TimeoutExpired:
            continue
        for line in out.splitlines():
            jid, state, comment, elapsed = (line.split("|") + ["", "", "", ""])[:4]
            if (
                state == "RUNNING"
                and pattern in comment
                and elapsed not in ("0:00", "0:01")
            ):
                subprocess.run(
                    ["scancel", jid], env=slurm_env(), check=False, timeout=20
                )
                done.append(jid)
                return
        time.sleep(0.5)


@pytest.fixture(scope="module")
def campaign(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> CampaignRun:
    """The default campaign through `snakemake --profile profiles/slurm`, sized for a
    2-core test machine (one size, 2 repetitions), with MPI at 1, 2, 4 and 32 ranks, a
    CUDA point (when aes-cuda was built), one point whose output is corrupted on purpose
    (fails verification), and the 32-rank allocation cancelled with scancel while it
    runs."""
    import threading

    kernels_or_skip("seq", "omp", "mpi", "openssl")
    backends: dict[str, Any] = {
        "seq": {"impls": ["ttable"]},
        "omp": {"impls": ["ttable"], "threads": [2]},
        "mpi": {"impls": ["ttable"], "ranks": [1, 2, 4, 32]},
        "openssl": {"ciphers": ["aes-128-ctr"]},
    }
    if (KERNELS / "aes-cuda").exists():
        backends["cuda"] = {"impls": ["auto"], "block_threads": [256], "gpus": [1]}
    cfg = default_config(
        campaign="slurm",
        sizes=["1KiB"],
        reps=2,
        precision=None,  # exactly 2 repetitions (the default campaign adapts them)
        warmup=0,
        backends=backends,
        debug={"inject_fault": ["omp-*"]},
    )
    workdir = tmp_path_factory.mktemp("campaign")
    cancelled: list[str] = []
    stop = threading.Event()
    t = threading.Thread(target=_scancel_when_running, args=("r32", cancelled, stop))
    t.start()
    t0 = time.monotonic()
    try:
        proc = run_slurm(workdir, cfg, timeout=600)
    finally:
        stop.set()
        t.join(timeout=30)
    run = CampaignRun(workdir, cfg, proc, cancelled, time.monotonic() - t0)
    print(
        f"\n[slurm] campaign took {run.wall_s:.0f} s; cancelled: {cancelled}",
        file=sys.stderr,
    )
    return run


def test_campaign_completes_with_tables(campaign: CampaignRun) -> None:
    p = campaign.proc
    assert p.returncode == 0, p.stdout[-5000:]
    tables = sorted(x.name for x in (campaign.res / "tables").glob("*.csv"))
    assert "speedup.csv" in tables or any("speedup" in t for t in tables), tables
    assert (campaign.res / "measurements.csv").exists()
    recs = records(campaign.res / "raw")
    assert len(recs) == (8 if "cuda" in campaign.config["backends"] else 7), sorted(
        recs
    )


def test_jobs_went_through_sbatch_and_records_match_sacct(
    cluster: Cluster, campaign: CampaignRun
) -> None:
    """Every record names the Slurm job and node list that ran it, as sacct has them."""
    recs = records(campaign.res / "raw")
    ids = {r[0]["slurm_job_id"] for r in recs.values()}
    assert None not in ids and ids, recs
    cluster.wait_accounted({str(i) for i in ids})
    acct = {r["JobID"]: r for r in cluster.sacct("-X")}
    out = campaign.proc.stdout
    submitted = set(submitted_jobs(out))
    for point, rs in recs.items():
        for r in rs:
            jid = str(r["slurm_job_id"])
            assert jid in submitted, (point, jid, submitted)
            assert jid in acct, (point, jid)
            assert r["slurm_nodelist"] == acct[jid]["NodeList"] == cluster.node, (
                point,
                r,
            )
            assert acct[jid]["State"] == "COMPLETED", (point, acct[jid])
            assert "--exclusive" not in r.get("launch_line", "")
    # the binaries' sizes (size(1)) are read where Snakemake runs: no allocation
    # (each submission's log is in a folder named after its rule)
    rules = re.findall(r"submitted with SLURM jobid \d+ \(log: \S*?/rule_(\w+)/", out)
    assert len(rules) == len(submitted) and "bench" in rules, rules
    assert "binary_sizes" not in rules, rules


def test_mpi_points_launched_by_srun(cluster: Cluster, campaign: CampaignRun) -> None:
    """MPI points with 1, 2, 4 and 32 ranks ran under srun --mpi=pmix inside their
    allocation: the launch line says so and sacct shows a step with that many tasks."""
    recs = records(campaign.res / "raw")
    seen = set()
    for point, rs in recs.items():
        if not point.startswith("mpi-"):
            continue
        r = rs[0]
        assert r["status"] == "ok", (point, r.get("reason"))
        assert r["launch_line"].startswith("srun --mpi=pmix "), r["launch_line"]
        assert r["ranks"] == int(point.split("-r")[1].split("-")[0])
        steps = cluster.sacct("-j", str(r["slurm_job_id"]))
        ntasks = {s["NTasks"] for s in steps if "." in s["JobID"]}
        assert str(r["ranks"]) in ntasks, (point, steps)
        seen.add(r["ranks"])
    assert seen == {1, 2, 4, 32}


def test_benchmark_jobs_are_exclusive(cluster: Cluster, campaign: CampaignRun) -> None:
    """cluster.exclusive (default on): a benchmark allocation holds the whole node."""
    recs = records(campaign.res / "raw")
    seq = next(r[0] for p, r in recs.items() if p.startswith("seq-"))
    row = cluster.sacct("-X", "-j", str(seq["slurm_job_id"]))[0]
    assert "cpu=32" in row["AllocTRES"], row


def test_cuda_point_gets_the_gpu_allocation(
    cluster: Cluster, campaign: CampaignRun
) -> None:
    """CUDA-shaped point, ALLOCATION ONLY: this machine has no GPU, so the test checks
    that the point's Slurm job asked for and got the (fake) GPU and that aes-cuda was
    built; the kernel itself cannot run here and its point is marked failed."""
    if "cuda" not in campaign.config["backends"]:
        pytest.skip("aes-cuda was not built (no nvcc): no CUDA point in the campaign")
    recs = records(campaign.res / "raw")
    point, rs = next((p, r) for p, r in recs.items() if p.startswith("cuda-"))
    r = rs[0]
    row = cluster.sacct("-X", "-j", str(r["slurm_job_id"]))[0]
    assert "gres/gpu=1" in row["ReqTRES"], row
    assert "gres/gpu=1" in row["AllocTRES"], row
    others = [
        cluster.sacct("-X", "-j", str(x[0]["slurm_job_id"]))[0]["ReqTRES"]
        for p, x in recs.items()
        if not p.startswith("cuda-")
    ]
    assert not any("gres/gpu" in o for o in others), others
    assert (KERNELS / "aes-cuda").exists()
    print(
        f"[slurm] CUDA point {point}: allocation only (no GPU on this machine): "
        f"Slurm job {r['slurm_job_id']} requested {row['ReqTRES']}; aes-cuda is built; "
        f"kernel status {r['status']}: {r.get('reason')}"
    )


def test_verification_failure_is_marked_and_others_complete(
    campaign: CampaignRun,
) -> None:
    recs = records(campaign.res / "raw")
    omp = [r for p, r in recs.items() if p.startswith("omp-")]
    assert omp and all(
        len(r) == 1 and r[0]["status"] == "failed" and "verification" in r[0]["reason"]
        for r in omp
    ), omp
    for p, r in recs.items():
        if p.startswith(("seq-", "mpi-", "openssl-")):
            assert all(x["status"] == "ok" for x in r) and len(r) == 2, (p, r)
    failures = (campaign.res / "failures.csv").read_text()
    assert "omp-" in failures


def test_scancelled_job_is_retried(cluster: Cluster, campaign: CampaignRun) -> None:
    """The 32-rank allocation was cancelled with scancel while it ran; Snakemake
    submitted it again and its points are complete (nothing lost)."""
    assert campaign.cancelled, "no running 32-rank allocation was seen to cancel"
    jid = campaign.cancelled[0]
    cluster.wait_accounted({jid})
    row = cluster.sacct("-X", "-j", jid)[0]
    assert row["State"].startswith("CANCELLED"), row
    recs = records(campaign.res / "raw")
    r32 = {p: r for p, r in recs.items() if "-r32-" in p}
    assert r32 and all(x["status"] == "ok" for r in r32.values() for x in r)
    assert all(str(x["slurm_job_id"]) != jid for r in r32.values() for x in r)
    assert "Trying to restart job" in campaign.proc.stdout


def test_packed_points_share_an_allocation_one_after_another(
    campaign: CampaignRun,
) -> None:
    """Points of one resource shape ran in one allocation, one after another: its
    Slurm log says each point was measured once, in the pack's order, and the pack's
    log names them all."""
    recs = records(campaign.res / "raw")
    by_job: dict[str, list[str]] = {}
    for p, rs in recs.items():
        by_job.setdefault(str(rs[0]["slurm_job_id"]), []).append(p)
    packed = {j: v for j, v in by_job.items() if len(v) > 1}
    assert packed, by_job  # seq, openssl and the 1-rank MPI point share one shape
    logs = campaign.workdir / ".snakemake" / "slurm_logs"
    for jid, points in packed.items():
        log = next(logs.glob(f"rule_bench/*/{jid}.log"))
        pack = log.parent.name.removeprefix("pack=")
        order = (campaign.res / "packs" / f"{pack}.txt").read_text().split()
        done = re.findall(r"ciphersweep: (\S+): measured", log.read_text())
        assert sorted(done) == sorted(points) and done == [
            p for p in order if p in done
        ]
        text = (campaign.res / "logs" / "packs" / f"{pack}.log").read_text()
        assert text.startswith(f"{pack}: {len(points)} of {len(order)} point(s)"), text
        print(f"[slurm] allocation {jid}: {len(points)} points one after another")


# ======================================================================== refusals


def _job_count(cluster: Cluster) -> int:
    return len(cluster.sacct("-X"))


def test_33_ranks_rejected_by_config_validation(
    cluster: Cluster, tmp_path: Path
) -> None:
    """First line of defence: 33 ranks with cluster.max_ranks 32 is a config error,
    reported at once, before anything is submitted."""
    kernels_or_skip("seq", "mpi")
    before = _job_count(cluster)
    cfg = default_config(
        campaign="r33",
        sizes=["1KiB"],
        backends={"mpi": {"impls": ["ttable"], "ranks": [33]}},
    )
    p = run_slurm(tmp_path, cfg, timeout=600)
    assert p.returncode != 0
    assert "max_ranks" in p.stdout and "33" in p.stdout, p.stdout[-2000:]
    assert _job_count(cluster) == before  # nothing submitted, however long it took
    print(f"[slurm] config error: {p.stdout.strip().splitlines()[-1]}")


def test_33_ranks_refused_by_the_cluster_not_a_hang(
    cluster: Cluster, tmp_path: Path
) -> None:
    """Second line: a config that claims bigger nodes than the partition has (64 cores)
    passes validation; Slurm refuses the 33-task job at submission (EnforcePartLimits)
    and Snakemake stops with sbatch's message instead of waiting."""
    kernels_or_skip("seq", "mpi")
    cfg = default_config(
        campaign="r33slurm",
        sizes=["1KiB"],
        backends={"mpi": {"impls": ["ttable"], "ranks": [33]}},
        cluster={"cores_per_node": 64, "max_ranks": 64},
    )
    t0 = time.monotonic()
    p = run_slurm(tmp_path, cfg, timeout=600)
    took = time.monotonic() - t0
    assert p.returncode != 0, p.stdout[-3000:]
    assert "SLURM sbatch failed" in p.stdout, p.stdout[-3000:]
    assert "--ntasks=33" in p.stdout
    msg = next(x for x in p.stdout.splitlines() if "sbatch failed" in x)
    print(f"[slurm] refused after {took:.0f} s: {msg.strip()}")


# ======================================================================== tear-down


def test_teardown_leaves_no_daemons(cluster: Cluster) -> None:
    """Tear-down stops every daemon it started (by PID); /etc/slurm was never touched."""
    cluster.down()
    assert cluster.info["teardown_rc"] == 0, cluster.info["teardown_out"]
    print(f"[slurm] tear-down took {cluster.info['teardown_s']:.1f} s")
    assert daemon_pids(cluster.state) == {}
    assert netns_left(cluster) == [], "network namespaces left behind"
    assert etc_slurm_snapshot() == cluster.info["etc_slurm"], "/etc/slurm was changed"


# ======================================================================== no accounting


def test_no_accounting_cluster_status_does_not_hang(
    cluster: Cluster, tmp_path: Path
) -> None:
    """A cluster without accounting (no slurmdbd; sacct has nothing): the profile's
    squeue status still sees jobs end, so the campaign finishes. (With the plugin's
    default, sacct, Snakemake would wait for the first job forever.) Runs on a second,
    accounting-free private cluster once the first one is down."""
    kernels_or_skip("seq")
    cluster.down()
    state = tmp_path / "noacct-cluster"
    env = dict(os.environ, CS_SLURM_ACCOUNTING="none", CS_SLURM_MINJOBAGE="300")
    noacct = start_cluster(state, env=env)
    try:
        sacct = subprocess.run(
            ["sacct", "-X"],
            capture_output=True,
            text=True,
            env=slurm_env(),
            timeout=30,
            check=False,
        )
        assert "accounting storage is disabled" in sacct.stderr.lower(), sacct.stderr
        cfg = default_config(
            campaign="noacct",
            sizes=["1KiB"],
            reps=1,
            warmup=0,
            backends={"seq": {"impls": ["ttable"]}},
        )
        p = run_slurm(tmp_path / "wd", cfg, timeout=600)
        assert p.returncode == 0, p.stdout[-3000:]
        recs = records(tmp_path / "wd" / "results" / "noacct" / "raw")
        assert [r[0]["status"] for r in recs.values()] == ["ok"]
        print(
            f"[slurm] no accounting: up in {noacct.bringup_s:.1f} s; "
            "campaign done via squeue"
        )
    finally:
        down = subprocess.run(
            [str(CLUSTER_DIR / "down.sh"), str(state)],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    assert down.returncode == 0, down.stdout + down.stderr
    assert daemon_pids(state) == {}
    assert netns_left(noacct) == [], "network namespaces left behind"
