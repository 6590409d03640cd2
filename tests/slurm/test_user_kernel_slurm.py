"""A user's own kernel under the Slurm profile, on this module's private one-node
cluster: the shipped example (examples/mykernel) built by its Slurm job and run on 2
ranks, started by srun (cluster.mpi_launcher) inside the point's allocation, its
output verified against OpenSSL and tabled."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from slurmtools import (
    ROOT,
    Cluster,
    default_config,
    kernels_or_skip,
    records,
    run_slurm,
    submitted_jobs,
)


def test_user_kernel_on_two_ranks_under_slurm(cluster: Cluster, tmp_path: Path) -> None:
    kernels_or_skip("seq")  # the input generator
    cfg = default_config(
        campaign="slurmuser",
        sizes=["4KiB"],
        ops=["encrypt"],
        reps=3,
        warmup=0,
        precision=None,  # a user kernel runs exactly reps repetitions
        backends={
            "user": {
                "kernels": [
                    {
                        "name": "mykernel",
                        "source": str(ROOT / "examples" / "mykernel"),
                        "ciphers": ["aes-128-ctr"],
                        "ranks": [2],
                    }
                ]
            }
        },
    )
    p = run_slurm(tmp_path, cfg, timeout=600)
    assert p.returncode == 0, p.stdout[-4000:]
    res = tmp_path / "results" / "slurmuser"
    (pid, recs), *more = records(res / "raw").items()
    assert more == [] and pid == "user-mykernel-aes-128-ctr-enc-4KiB-r2-t1"
    assert [r["status"] for r in recs] == ["ok"] * 3, recs[0].get("reason")
    r = recs[0]
    assert r["verified"] and r["ranks"] == 2 and r["fingerprint"]["ranks"] == 2
    assert r["command_line"].startswith("srun --mpi=pmix --overlap"), r["command_line"]
    assert " -n 2 " in r["command_line"]
    assert r["slurm_job_id"] in submitted_jobs(p.stdout)
    assert r["slurm_nodelist"] == cluster.node
    table = pd.read_csv(res / "tables" / "time.csv", index_col=0)
    assert float(table.loc["mykernel aes-128-ctr (2 ranks)", "4KiB"]) > 0
