"""Launchers under the Slurm profile, on a private single-node Slurm 22.05 cluster of
this module's own (the ``cluster`` fixture of tests/slurm/conftest.py): cluster.mpi_launcher mpirun inside the job steps Snakemake
starts, and Charliecloud's ch-run inside Slurm jobs, with srun in front of it for MPI.
"""

from __future__ import annotations

import time
from pathlib import Path

from slurmtools import (
    CHARLIECLOUD,
    Cluster,
    default_config,
    kernels_or_skip,
    records,
    run_slurm,
    staged_cpu_image,
    submitted_jobs,
)

# ======================================================================== mpirun


def test_mpirun_launcher_under_snakemake(cluster: Cluster, tmp_path: Path) -> None:
    """cluster.mpi_launcher: mpirun works inside the job steps Snakemake starts, which
    pass on only SLURM_JOB_ID: the allocation is read back from scontrol, so mpirun
    starts all ranks (2 and 4) of the point in its allocation."""
    kernels_or_skip("seq", "mpi")
    cfg = default_config(
        campaign="mpirun",
        sizes=["1KiB"],
        reps=1,
        warmup=0,
        backends={"mpi": {"impls": ["ttable"], "ranks": [2, 4]}},
        cluster={"mpi_launcher": "mpirun"},
    )
    p = run_slurm(tmp_path, cfg, timeout=600)
    assert p.returncode == 0, p.stdout[-4000:]
    recs = records(tmp_path / "results" / "mpirun" / "raw")
    assert len(recs) == 2
    for point, rs in recs.items():
        r = rs[0]
        assert r["status"] == "ok", (point, r.get("reason"))
        assert r["launch_line"].startswith(f"mpirun -np {r['ranks']} "), r[
            "launch_line"
        ]
        assert r["slurm_job_id"] in submitted_jobs(p.stdout)
        assert r["slurm_nodelist"] == cluster.node


# ======================================================================== containers


def test_charliecloud_campaign_under_slurm(cluster: Cluster, tmp_path: Path) -> None:
    """platform.container.runtime: charliecloud through the Slurm profile: every point
    runs in the cached CPU image with ch-run inside its Slurm job; MPI points put srun
    --mpi=pmix on the host, in front of ch-run; records carry the image's digest."""
    cfg = default_config(
        campaign="slurmch",
        sizes=["1KiB"],
        reps=1,
        warmup=0,
        backends={
            "seq": {"impls": ["ttable"]},
            "mpi": {"impls": ["ttable"], "ranks": [1, 2]},
            "openssl": {"ciphers": ["aes-128-ctr"]},
        },
        platform=CHARLIECLOUD,
    )
    res = tmp_path / "results" / "slurmch"
    digest = staged_cpu_image(res)

    t0 = time.monotonic()
    p = run_slurm(tmp_path, cfg, timeout=600)
    assert p.returncode == 0, p.stdout[-4000:]
    assert "rule build_image" not in p.stdout, "the cached image was rebuilt"
    recs = records(res / "raw")
    assert len(recs) == 4, sorted(recs)
    ids = {str(r[0]["slurm_job_id"]) for r in recs.values()}
    assert "None" not in ids, recs
    cluster.wait_accounted(ids)
    acct = {r["JobID"]: r for r in cluster.sacct("-X")}
    submitted = set(submitted_jobs(p.stdout))
    for point, rs in recs.items():
        for r in rs:
            assert r["status"] == "ok", (point, r.get("reason"))
            assert r["runtime"] == "charliecloud", (point, r["runtime"])
            assert r["image_digest"] == f"sha256:{digest}", (point, r["image_digest"])
            line = r["launch_line"]
            assert "ch-run" in line, (point, line)
            jid = str(r["slurm_job_id"])
            assert jid in submitted and jid in acct, (point, jid, submitted)
            assert acct[jid]["State"] == "COMPLETED", (point, acct[jid])
            assert r["slurm_nodelist"] == acct[jid]["NodeList"] == cluster.node
            if r["backend"] == "mpi":
                # the host launcher sits outside the container
                assert line.startswith("srun --mpi=pmix "), (point, line)
                assert line.index("srun --mpi=pmix") < line.index("ch-run"), line
                steps = cluster.sacct("-j", jid)
                ntasks = {x["NTasks"] for x in steps if "." in x["JobID"]}
                assert str(r["ranks"]) in ntasks, (point, steps)
    print(
        f"[slurm] charliecloud campaign: {len(recs)} points in "
        f"{len(ids)} Slurm job(s), {time.monotonic() - t0:.0f} s"
    )
