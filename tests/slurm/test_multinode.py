"""The Slurm profile on a private cluster of four 8-CPU nodes (the reference study's
machine: MPI at 8, 16 and 32 ranks on 1, 2 and 4 nodes).

tests/cluster/up.sh --nodes 4 puts every slurmd in a network + UTS + mount namespace
of its own, so MPI ranks on different nodes talk over TCP across a bridge; Open MPI's
interface settings come from the campaign's ``cluster.mpi_network`` through the launch
module. One cluster serves the module; the test that kills a node has a cluster of its
own (test_multinode_node_loss.py).
"""

from __future__ import annotations

import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

from ciphersweep.job import launch
from multinodetools import CPUS, FOUR_NODES, NODES, expand_nodes, pousa_config
from slurmtools import (
    CHARLIECLOUD,
    Cluster,
    kernels_or_skip,
    records,
    run_slurm,
    staged_cpu_image,
    submitted_jobs,
)
from support import make_point, planned_points

# four 8-CPU nodes (the cluster fixture: tests/slurm/conftest.py)
CLUSTER_SHAPE = FOUR_NODES


def job_rows(cluster: Cluster, ids: set[str]) -> dict[str, dict[str, str]]:
    cluster.wait_accounted(ids)
    return {r["JobID"]: r for r in cluster.sacct("-X")}


def steps_of(cluster: Cluster, jid: str) -> list[dict[str, str]]:
    return [
        s
        for s in cluster.sacct("-j", jid)
        if "." in s["JobID"] and s["JobID"].split(".")[1].isdigit()
    ]


# Open MPI 4.1.4 (Debian 12's) crashes now and then in MPI_Init when 16 or 32 ranks
# share this machine's 2 cores across the namespace nodes: one rank segfaults in its TCP
# BTL (core dumps show mca_btl_tcp calling a NULL handler from opal_progress inside
# PMPI_Init) while its peers print "Open MPI failed to TCP connect to a peer MPI
# process ... Operation now in progress (115)", Open MPI's TCP wire-up under overload
# (open-mpi/ompi#10734, #11508). Seen in about one run of this module in four. When the
# rank dies before it has made its shared-memory segment, its peers on the same node
# report that instead ("A system call failed during shared memory initialization ...
# open(2) ... No such file or directory"; seen once). When every rank of one node
# crashes so, nobody is left there to report it: the log shows only the ranks' own
# reports of a call to a NULL handler ("Failing at address: (nil)"; seen once, the step
# then waited for the point's timeout until srun got --kill-on-bad-exit). The product
# records such a point as failed and measures it again when the same command runs
# again; run_measured does exactly that, once, and only for that crash.
OMPI_INIT_CRASHES = (
    ("Segmentation fault", "Open MPI failed to TCP connect to a peer"),
    ("Segmentation fault", "A system call failed during shared memory initialization"),
    ("Segmentation fault", "Failing at address: (nil)"),
)


def ompi_init_crash(log: str) -> bool:
    """Whether a point's log shows the Open MPI crash in MPI_Init described above."""
    return any(all(s in log for s in crash) for crash in OMPI_INIT_CRASHES)


def run_measured(
    workdir: Path, cfg: dict[str, Any], res: Path, timeout: float
) -> tuple[subprocess.CompletedProcess[str], dict[str, list[dict[str, Any]]]]:
    """The campaign under profiles/slurm, and the records of its first run. Points
    that failed with the Open MPI crash above are measured again by running the same
    command once more, which must run exactly those points; any other failure is
    left for the checks to report. The returned process carries both runs' output."""
    first = run_slurm(workdir, cfg, timeout=timeout)
    recs = records(res / "raw")
    failed = {p for p, rs in recs.items() if any(r["status"] != "ok" for r in rs)}
    logs = {p: (res / "logs" / "bench" / f"{p}.log").read_text() for p in failed}
    if (
        first.returncode != 0
        or not failed
        or not all(ompi_init_crash(log) for log in logs.values())
    ):
        return first, recs
    print(f"[slurm] Open MPI crashed in MPI_Init at {sorted(failed)}: running again")
    again = run_slurm(workdir, cfg, timeout=timeout)
    rerun = set(planned_points(again.stdout))
    assert rerun == failed, (sorted(failed), sorted(rerun), again.stdout[-3000:])
    both = subprocess.CompletedProcess(
        again.args, again.returncode, first.stdout + again.stdout, again.stderr
    )
    return both, recs


def check_mpi_points(
    cluster: Cluster, res: Path, proc: subprocess.CompletedProcess[str], launcher: str
) -> dict[str, list[dict[str, Any]]]:
    """Every MPI point ran verified, on ranks / 8 nodes: the record's node list is
    sacct's, and the MPI step spans the point's nodes."""
    recs = records(res / "raw")
    assert proc.returncode == 0, proc.stdout[-5000:]
    ids = {str(r["slurm_job_id"]) for rs in recs.values() for r in rs}
    acct = job_rows(cluster, ids)
    submitted = set(submitted_jobs(proc.stdout))
    for point, rs in recs.items():
        for r in rs:
            assert r["status"] == "ok" and r["verified"] is True, (
                point,
                r.get("reason"),
                r,
            )
            jid = str(r["slurm_job_id"])
            assert jid in submitted and acct[jid]["State"] == "COMPLETED", acct.get(jid)
            assert r["slurm_nodelist"] == acct[jid]["NodeList"], (point, r, acct[jid])
            nodes = expand_nodes(r["slurm_nodelist"])
            want = -(-r["ranks"] // CPUS)
            assert len(nodes) == want, (point, r["slurm_nodelist"])
            # --exclusive: the allocation holds every CPU of its nodes
            assert f"cpu={CPUS * want}" in acct[jid]["AllocTRES"], acct[jid]
            if r["backend"] != "mpi":
                continue
            assert r["launch_line"].startswith(launcher), r["launch_line"]
            steps = steps_of(cluster, jid)
            if launcher.startswith("srun"):
                mine = [s for s in steps if s["NTasks"] == str(r["ranks"])]
                assert mine and all(
                    s["NodeList"] == r["slurm_nodelist"] for s in mine
                ), (
                    point,
                    steps,
                )
            elif want > 1:
                # mpirun starts its daemons on the other nodes of the allocation with srun
                others = set(nodes) - {nodes[0]}
                spans = [set(expand_nodes(s["NodeList"])) for s in steps]
                assert others in spans, (point, steps)
    return recs


def on_every_node(cluster: Cluster, script: str) -> str:
    """The output of one job step per node running the shell script."""
    return cluster.run(
        "srun", "-N", str(NODES), "--ntasks-per-node=1", "sh", "-c", script, timeout=60
    )


def test_four_nodes_in_namespaces(cluster: Cluster) -> None:
    """Four idle nodes with 8 CPUs each, each with its own hostname and address (a job
    step on every node reports its hostname and its only non-loopback address)."""
    print(f"[slurm] {NODES}-node bring-up took {cluster.bringup_s:.1f} s")
    lines = cluster.run("sinfo", "-h", "-N", "-o", "%N|%c|%T").split()
    assert sorted(lines) == [f"node{i}|{CPUS}|idle" for i in range(1, NODES + 1)]
    out = on_every_node(
        cluster,
        "echo \"$(hostname) $(ip -4 -o addr show scope global | awk '{print $4}')\""
        ' "$(head -1 /etc/slurm/slurm.conf)"',
    )
    rows = sorted(out.splitlines())
    subnet = cluster.env["CS_SUBNET"].rsplit(".", 1)[0]
    assert len(rows) == NODES, rows
    for i, row in enumerate(rows, 1):
        host, addr, marker = row.split(" ", 2)
        assert host == f"node{i}" and addr == f"{subnet}.{10 + i}/24", row
        assert marker == f"# ciphersweep test cluster: {cluster.state}", row


def test_nodes_have_private_shared_memory(cluster: Cluster) -> None:
    """Each node has a /dev/shm of its own, as separate machines do: Open MPI names its
    shared-memory segments after the host and the Slurm job, which repeat between test
    clusters, and two jobs mapping one segment crashed aes-mpi (SIGSEGV in the
    shared-memory transport).  A file a job step writes there is seen by its node only
    and never by the machine. Every step counts only once all have written theirs (a
    barrier in the cluster's state directory, which all nodes share), however slowly
    the steps start."""
    probe = f"cs-shm-probe-{cluster.state.name}"
    barrier = cluster.state / "shm-barrier"
    barrier.mkdir()
    out = on_every_node(
        cluster,
        f'touch "/dev/shm/{probe}-$(hostname)" && touch "{barrier}/$(hostname)" &&'
        f' while [ "$(ls "{barrier}" | wc -l)" -lt {NODES} ]; do sleep 0.1; done &&'
        f' echo "$(hostname) $(ls /dev/shm | grep -c {probe})"',
    )
    rows = sorted(out.splitlines())
    assert rows == [f"node{i} 1" for i in range(1, NODES + 1)], rows
    assert not list(Path("/dev/shm").glob(f"{probe}-*"))


CRASH_C = r"""
#include <mpi.h>
#include <signal.h>
int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank >= 2) raise(SIGSEGV); /* every rank of the second node */
  MPI_Barrier(MPI_COMM_WORLD);   /* the first node's would wait here for ever */
  MPI_Finalize();
  return 0;
}
"""


def test_a_node_whose_ranks_crash_ends_its_step(
    cluster: Cluster, tmp_path: Path
) -> None:
    """Under the workflow's srun launch line, when every rank of one node crashes (as
    Open MPI's TCP wire-up did once: OMPI_INIT_CRASHES), the step ends at once and
    fails with the signal; the other node's ranks, waiting for them in MPI_Barrier,
    are killed. Without --kill-on-bad-exit they waited until the job's time limit
    (3 min here, the point's timeout in a campaign), and the job ended TIMEOUT."""
    src = tmp_path / "crash.c"
    src.write_text(CRASH_C)
    subprocess.run(["mpicc", "-o", str(tmp_path / "crash"), str(src)], check=True)
    plat = launch.Platform(
        where="slurm", mpi_launcher="srun", mpi_network=cluster.env["CS_SUBNET"]
    )
    ln = launch.build(make_point(backend="mpi", impl="ref", ranks=4), plat, [])
    assert "--kill-on-bad-exit=1" in ln.argv, ln.text
    step = [*ln.argv[:-1], str(tmp_path / "crash")]  # the launcher, then the program
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(ln.env.items()))
    script = tmp_path / "job.sh"
    script.write_text(f"#!/bin/bash\nexport {env}\n{shlex.join(step)}\n")
    script.chmod(0o755)
    out = tmp_path / "job.out"
    sub = ["sbatch", "--parsable", "--wait", "-N", "2", "--ntasks-per-node=2"]
    sub += ["-t", "3", "-o", str(out), "-D", str(tmp_path), str(script)]
    job = cluster.run(*sub, check=False, timeout=600).strip().split(";")[0]
    log = out.read_text()
    state = job_rows(cluster, {job}).get(job, {}).get("State", "")
    assert state.startswith("FAILED"), (state, log)
    assert "Segmentation fault" in log and "TIME LIMIT" not in log, log


def test_pousa2011_mpi_across_nodes_srun_packed(
    cluster: Cluster, tmp_path: Path
) -> None:
    """pousa2011's MPI points (8, 16, 32 ranks) under profiles/slurm with srun
    --mpi=pmix: 1, 2 and 4 exclusive nodes; two sizes of one shape share one packed
    allocation, and each MPI step spans exactly its point's nodes."""
    kernels_or_skip("seq", "mpi")
    cfg = pousa_config(cluster, "pousa-srun", sizes=["1KiB", "512KiB"])
    res = tmp_path / "results" / "pousa-srun"
    t0 = time.monotonic()
    p, first = run_measured(tmp_path, cfg, res, timeout=600)
    took = time.monotonic() - t0
    recs = check_mpi_points(cluster, res, p, "srun --mpi=pmix ")
    assert len(recs) == 8, sorted(recs)
    # the packing, as the first run allocated it
    by_job: dict[str, list[str]] = {}
    for point, rs in first.items():
        by_job.setdefault(str(rs[0]["slurm_job_id"]), []).append(point)
    multi = [
        pts
        for pts in by_job.values()
        if len(pts) == 2 and len(expand_nodes(first[pts[0]][0]["slurm_nodelist"])) > 1
    ]
    assert len(multi) == 2, by_job  # the 16- and 32-rank shapes, packed
    print(f"[slurm] pousa2011 MPI 8/16/32 ranks via srun: {took:.0f} s, jobs {by_job}")


def test_pousa2011_mpi_across_nodes_mpirun(cluster: Cluster, tmp_path: Path) -> None:
    """The same points with cluster.mpi_launcher: mpirun: mpirun inside the job step
    reads the allocation back from Slurm and starts ranks on all of its nodes."""
    kernels_or_skip("seq", "mpi")
    cfg = pousa_config(cluster, "pousa-mpirun", cluster={"mpi_launcher": "mpirun"})
    res = tmp_path / "results" / "pousa-mpirun"
    t0 = time.monotonic()
    p, _ = run_measured(tmp_path, cfg, res, timeout=600)
    took = time.monotonic() - t0
    recs = check_mpi_points(cluster, res, p, "mpirun -np ")
    assert len(recs) == 4, sorted(recs)
    print(f"[slurm] pousa2011 MPI 8/16/32 ranks via mpirun: {took:.0f} s")


def test_charliecloud_campaign_on_many_nodes(cluster: Cluster, tmp_path: Path) -> None:
    """platform.container.runtime: charliecloud on the multi-node cluster: a 16-rank
    point spans two nodes, srun sits outside ch-run on every node, and the image comes
    from the shared cache."""
    cfg = pousa_config(cluster, "pousa-ch", ranks=(16,), platform=CHARLIECLOUD)
    res = tmp_path / "results" / "pousa-ch"
    digest = staged_cpu_image(res)
    t0 = time.monotonic()
    p, _ = run_measured(tmp_path, cfg, res, timeout=600)
    assert "rule build_image" not in p.stdout, "the cached image was rebuilt"
    recs = check_mpi_points(cluster, res, p, "srun --mpi=pmix ")
    assert len(recs) == 2, sorted(recs)
    for point, rs in recs.items():
        r = rs[0]
        assert r["runtime"] == "charliecloud" and "ch-run" in r["launch_line"], r
        assert r["image_digest"] == f"sha256:{digest}", (point, r["image_digest"])
        if r["backend"] == "mpi":
            line = r["launch_line"]
            assert line.index("srun --mpi=pmix") < line.index("ch-run"), line
    print(f"[slurm] charliecloud on 2 nodes: {time.monotonic() - t0:.0f} s")


# ------------------------------------------------------------------ a node dies
