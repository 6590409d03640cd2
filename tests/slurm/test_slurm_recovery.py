"""Interrupted campaigns under the Slurm profile, on a private single-node Slurm 22.05
cluster of this module's own (the ``cluster`` fixture of tests/slurm/conftest.py): a Snakemake killed mid-campaign resumes without redoing points,
and an allocation cancelled mid-group loses no raw file.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from slurmtools import (
    KERNELS,
    Cluster,
    default_config,
    kernels_or_skip,
    run_slurm,
    slurm_env,
    snakemake_cmd,
    submitted_jobs,
)
from support import default_signals

KBIN = "kbin"  # the kernels' folder, relative to the working directory
HELD = "openssl-aes-128-ctr-enc-4KiB-r1-t1.jsonl"  # the point that waits (_holding)
PACK = "pack"  # the campaign of the measured pack

# ======================================================================== resume


def _kernels(tmp_path: Path) -> Path:
    """A private copy of the kernels, ``tmp_path``/kbin (the campaign's build.dir
    ``KBIN``, relative to its working directory)."""
    kbin = tmp_path / KBIN
    kbin.mkdir()
    for name in ("aes-seq", "aes-openssl"):
        shutil.copy(KERNELS / name, kbin / name)  # newer than the sources: up to date
    return kbin


def _held_kernels(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A private copy of the kernels in which the openssl point of the 4KiB input waits
    (creating ``started``, which names its Slurm job) until ``release`` exists: a point
    known to be in progress, with no clock involved. Returns (kernel dir, started, release)."""
    return _holding(_kernels(tmp_path), tmp_path)


def _holding(kbin: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """The kernels in ``kbin`` made to hold the 4KiB openssl point (as
    :func:`_held_kernels`)."""
    started, release = tmp_path / "held.started", tmp_path / "held.release"
    real = kbin / "aes-openssl.real"
    os.replace(kbin / "aes-openssl", real)
    wrapper = kbin / "aes-openssl"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case "$*" in *4KiB*)\n'
        f"  echo \"$SLURM_JOB_ID\" > '{started}'\n"
        f"  while [ ! -e '{release}' ]; do sleep 0.1; done;;\n"
        "esac\n"
        f"exec '{real}' \"$@\"\n"
    )
    wrapper.chmod(0o755)
    st = real.stat()
    os.utime(wrapper, ns=(st.st_atime_ns, st.st_mtime_ns))
    return kbin, started, release


def _started_in_background(cmd: list[str], cwd: Path, log: Path) -> subprocess.Popen:
    """``snakemake --profile profiles/slurm`` left running (output to ``log``), in a
    session of its own with the default signal dispositions, for a test to interrupt."""
    with open(log, "w") as out, default_signals():
        return subprocess.Popen(
            cmd,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=slurm_env(),
            start_new_session=True,
        )


def test_killed_snakemake_resumes_without_redoing_points(
    cluster: Cluster, tmp_path: Path
) -> None:
    """Interrupt the snakemake process mid-campaign (SIGINT, as Ctrl-C does): it
    cancels its queued and running Slurm jobs and stops; running it again submits only
    what is missing, and points that had finished keep their raw files untouched.

    Deterministic: one point blocks until the test releases it, the interrupt comes
    once that point is running and the four points of the other two allocations (two
    bench jobs of two points) have
    finished, and Snakemake gets SIGINT's default disposition whatever the suite was
    started with (nohup, a background job)."""
    kernels_or_skip("seq", "openssl")
    kbin, started, release = _held_kernels(tmp_path)
    cfg = default_config(
        campaign="resume",
        sizes=["1KiB", "2KiB", "4KiB"],
        reps=1,
        warmup=0,
        backends={
            "seq": {"impls": ["ttable"]},
            "openssl": {"ciphers": ["aes-128-ctr"]},
        },
        # the three allocations side by side on the node: the held one blocks no other
        cluster={"pack_size": 2, "exclusive": False},
    )
    cfg["build"]["dir"] = KBIN
    raw = tmp_path / "results" / "resume" / "raw"
    cmd = snakemake_cmd(tmp_path, cfg)
    p = _started_in_background(cmd, tmp_path, tmp_path / "first.out")
    deadline = time.monotonic() + 300

    def finished_bench_jobs() -> int:
        # what Snakemake itself has registered, not only files on disk: outputs of jobs
        # it still counts as running are removed when it is interrupted
        return (tmp_path / "first.out").read_text().count("(Rule: bench)")

    while not (started.exists() and finished_bench_jobs() >= 2):
        if p.poll() is not None or time.monotonic() > deadline:
            os.killpg(p.pid, signal.SIGKILL)
            pytest.fail(
                "the held point never ran beside four finished ones:\n"
                + (tmp_path / "first.out").read_text()[-3000:]
            )
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    p.wait(timeout=120)
    first = (tmp_path / "first.out").read_text()
    assert p.returncode != 0, first[-3000:]
    done = {f.name: f.stat().st_mtime_ns for f in raw.glob("*.jsonl")}
    assert HELD not in done and 4 <= len(done) <= 5, (sorted(done), first[-3000:])
    first_jobs = set(submitted_jobs(first))
    # snakemake cancelled what it had running or queued (a cancelled job leaves the
    # queue once its processes are gone: after KillWait at the latest; this is a bound
    # on waiting for that state, not a race)
    deadline = time.monotonic() + 240
    while any(j in cluster.run("squeue", "-h", "-o", "%i").split() for j in first_jobs):
        assert time.monotonic() < deadline, "jobs of the killed run are still queued"
        time.sleep(0.5)

    release.touch()
    # the real kernel back in place of the holding wrapper: the records of the finished
    # points carry the real binary's digest (the wrapper execs it), which the plan
    # compares with the binary on disk
    os.replace(kbin / "aes-openssl.real", kbin / "aes-openssl")
    again = run_slurm(tmp_path, cfg, timeout=600)
    assert again.returncode == 0, again.stdout[-4000:]
    after = {f.name: f.stat().st_mtime_ns for f in raw.glob("*.jsonl")}
    assert len(after) == 6, sorted(after)
    for name, mtime in done.items():
        assert after[name] == mtime, f"{name} was redone"
    second_jobs = submitted_jobs(again.stdout)
    # only the allocation of the held point runs again
    assert len(second_jobs) == 1, second_jobs
    print(
        f"[slurm] interrupted after {len(done)} of 6 points; rerun submitted "
        f"{len(second_jobs)} job and left {len(done)} raw files untouched"
    )


def _pack_config(reps: int = 1) -> dict[str, Any]:
    """Three openssl points in one pack (one allocation), the held 4KiB point between
    the other two: one measured before it, one after."""
    cfg = default_config(
        campaign=PACK,
        sizes=["1KiB", "4KiB", "2KiB"],
        reps=reps,
        warmup=0,
        backends={"openssl": {"ciphers": ["aes-128-ctr"]}},
        cluster={"pack_size": 3, "exclusive": False},  # the three points: one pack
    )
    cfg["build"]["dir"] = KBIN
    return cfg


@pytest.fixture(scope="module")
def measured_pack(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working directory whose three packed points (:func:`_pack_config`) the real
    kernels measured, in one allocation: the starting point of the tests that
    interrupt that allocation when it measures them again, each in a copy of its own
    (:func:`_measured_copy`; nothing in it names its own path)."""
    kernels_or_skip("openssl")
    work = tmp_path_factory.mktemp("measured-pack")
    _kernels(work)
    first = run_slurm(work, _pack_config(), timeout=600)
    assert first.returncode == 0, first.stdout[-4000:]
    assert len(list((work / "results" / PACK / "raw").glob("*.jsonl"))) == 3
    return work


def _measured_copy(
    measured_pack: Path, tmp_path: Path
) -> tuple[Path, Path, Path, dict[str, bytes]]:
    """``tmp_path`` made a copy of the measured pack's working directory (file times
    kept, which Snakemake compares), its 4KiB point held when it runs again: (started,
    release, raw directory, raw files' bytes)."""
    shutil.copytree(measured_pack, tmp_path, symlinks=True, dirs_exist_ok=True)
    _kbin, started, release = _holding(tmp_path / KBIN, tmp_path)
    raw = tmp_path / "results" / PACK / "raw"
    before = {f.name: f.read_bytes() for f in raw.glob("*.jsonl")}
    return started, release, raw, before


def _held_run(cmd: list[str], tmp_path: Path, started: Path) -> tuple[Any, str]:
    """``cmd`` started in the background until the held point runs: (the process,
    the Slurm job id of its allocation)."""
    p = _started_in_background(cmd, tmp_path, tmp_path / "second.out")
    deadline = time.monotonic() + 300
    while not (started.exists() and started.read_text().strip()):
        if p.poll() is not None or time.monotonic() > deadline:
            os.killpg(p.pid, signal.SIGKILL)
            pytest.fail(
                "the held point never ran:\n"
                + (tmp_path / "second.out").read_text()[-3000:]
            )
        time.sleep(0.2)
    return p, started.read_text().strip()


def test_a_failed_allocation_keeps_every_raw_file(
    cluster: Cluster, measured_pack: Path, tmp_path: Path
) -> None:
    """An allocation of packed points cancelled while it re-measures them (scancel, a
    preemption, a node lost) loses no raw file: the point in progress gets its previous
    file back, the points not yet started keep theirs, and the points that finished
    keep their new ones. (Without keep-incomplete in the profile, Snakemake's main
    process found no backup of its own for the group's outputs and removed all of
    them "since they might be corrupted".)"""
    started, release, raw, before = _measured_copy(measured_pack, tmp_path)
    cfg = _pack_config()
    cmd = snakemake_cmd(tmp_path, cfg, "--forcerun", "bench", "--retries", "0")
    p, jid = _held_run(cmd, tmp_path, started)
    cluster.run("scancel", jid)
    p.wait(timeout=240)
    second = (tmp_path / "second.out").read_text()
    assert p.returncode != 0, second[-3000:]  # the cancelled allocation failed
    release.touch()
    after = {f.name: f.read_bytes() for f in raw.glob("*.jsonl")}
    assert sorted(after) == sorted(before), (sorted(after), second[-3000:])
    assert "Removing output files of failed job bench" not in second, second[-3000:]
    assert after[HELD] == before[HELD], "the interrupted point lost its previous file"
    for name, data in after.items():
        # untouched, or re-measured in the cancelled allocation before the held point
        recs = [json.loads(x) for x in data.decode().splitlines() if x.strip()]
        assert recs, name
        assert data == before[name] or str(recs[0].get("slurm_job_id")) == jid, name
    print(
        f"[slurm] allocation {jid} cancelled mid-group: "
        f"{sum(after[n] == before[n] for n in after)} of 3 raw files as before, "
        f"none removed"
    )


def test_an_interrupted_point_of_a_packed_allocation_loses_nothing_and_converges(
    cluster: Cluster, measured_pack: Path, tmp_path: Path
) -> None:
    """One point of a packed allocation interrupted while it is measured again
    (`scancel --signal=INT`, as Ctrl-C reaches an interactive job): no admitted raw
    file is lost (the interrupted point keeps its previous one, the points measured
    before it their new ones, the points after it their old ones), and the same
    command measures exactly what is left, one more allocation, and then has nothing
    to do."""
    started, release, raw, before = _measured_copy(measured_pack, tmp_path)
    kbin = tmp_path / KBIN
    cfg = _pack_config(reps=2)  # every point is measured again, in one allocation
    cmd = snakemake_cmd(tmp_path, cfg, "--retries", "0")
    p, jid = _held_run(cmd, tmp_path, started)
    cluster.run("scancel", "--full", "--signal=INT", jid)
    p.wait(timeout=240)
    second = (tmp_path / "second.out").read_text()
    assert p.returncode != 0, second[-3000:]  # the interrupted allocation failed
    release.touch()
    os.replace(kbin / "aes-openssl.real", kbin / "aes-openssl")
    after = {f.name: f.read_bytes() for f in raw.glob("*.jsonl")}
    assert sorted(after) == sorted(before), (sorted(after), second[-3000:])
    assert after[HELD] == before[HELD], "the interrupted point lost its records"
    for name, data in after.items():
        recs = [json.loads(x) for x in data.decode().splitlines() if x.strip()]
        # as before, or measured again in full before the interrupted point
        assert data == before[name] or (
            {r["status"] for r in recs} == {"ok"}
            and {str(r.get("slurm_job_id")) for r in recs} == {jid}
        ), name
    assert "Removing output files of failed job bench" not in second, second[-3000:]
    assert "Traceback" not in second, second[-3000:]

    again = run_slurm(tmp_path, cfg, "--retries", "0", timeout=600)
    assert again.returncode == 0, again.stdout[-4000:]
    assert len(submitted_jobs(again.stdout)) == 1, again.stdout[-4000:]
    final = {f.name: f.read_bytes() for f in raw.glob("*.jsonl")}
    summary = pd.read_csv(tmp_path / "results" / PACK / "summary.csv")
    n = dict(zip(summary["point"] + ".jsonl", summary["n"]))
    for name, data in final.items():
        recs = [json.loads(x) for x in data.decode().splitlines() if x.strip()]
        assert len(recs) >= 2 and {r["status"] for r in recs} == {"ok"}, name
        assert n[name] == len(recs), (name, n)  # the summary: what the file holds
        if after[name] != before[name]:  # measured in the interrupted allocation
            assert data == after[name], f"{name} was measured twice"
    left = [f.name for f in raw.parent.rglob("*") if ".tmp" in f.name]
    assert not left, left
    dry = run_slurm(tmp_path, cfg, "-n")
    assert "Nothing to be done" in dry.stdout, dry.stdout[-3000:]
    print(
        f"[slurm] allocation {jid} interrupted mid-pack: "
        f"{sum(after[n] != before[n] for n in after)} of 3 measured again there, "
        "the rest in one more allocation, none lost"
    )
