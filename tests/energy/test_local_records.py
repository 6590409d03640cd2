"""Records of a real local run: energy honestly unavailable (or measured), timings intact,
provenance fields correct. Runs each CPU backend once through the bench job's code
(ciphersweep.job.runner.run_point), with the kernels that scripts/build-kernels.sh built."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from ciphersweep.job import energy, hostfacts, provenance, record_schema, runner
from support import make_point, run_spec

ROOT = Path(__file__).resolve().parents[2]
SIZE = 65536


@pytest.fixture(scope="module")
def data(kernels: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("inputs") / "64KiB.bin"
    subprocess.run(
        [
            str(kernels / "aes-seq"),
            "--gen-input",
            str(out),
            "--size",
            str(SIZE),
            "--seed",
            "1",
        ],
        check=True,
        timeout=60,
    )
    return out


def sh(*cmd: str) -> str:
    return subprocess.run(
        cmd, capture_output=True, text=True, check=True, cwd=ROOT, timeout=60
    ).stdout.strip()


@pytest.mark.parametrize(
    ("backend", "ranks", "threads"),
    [("seq", 1, 1), ("omp", 1, 2), ("mpi", 2, 1), ("openssl", 1, 1)],
)
def test_local_run_records(
    backend: str,
    ranks: int,
    threads: int,
    kernels: Path,
    data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for var in ("SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_NODELIST", "SLURM_NODELIST"):
        monkeypatch.delenv(var, raising=False)
    if backend == "mpi" and shutil.which("mpirun") is None:
        pytest.fail("mpirun missing: openmpi-bin is in scripts/apt-run.txt")
    p = make_point(
        size="64KiB",
        backend=backend,
        impl="evp" if backend == "openssl" else "ttable",
        ranks=ranks,
        threads=threads,
        reps=2,
    )
    spec = run_spec(
        tmp_path,
        p,
        data,
        campaign="energy-test",
        kernel_dir=str(kernels),
        mpi_launcher="mpirun",
        energy="auto",
        timeout_s=120,
        git_rev=provenance.git_revision(),
        cwd=str(ROOT),
    )
    started = dt.datetime.now(dt.UTC)
    result = runner.run_point(p, spec)
    log = Path(spec.log_path).read_text()
    assert result["status"] == "ok", log
    recs = [
        json.loads(x) for x in Path(spec.out_path).read_text().splitlines() if x.strip()
    ]
    assert len(recs) == 2

    # the probe's decision is in the job log, as the records say
    cores = sorted(os.sched_getaffinity(0))[: ranks * threads]
    probe = energy.probe(
        cores, "auto", backend=backend, binary=kernels / f"aes-{backend}"
    )
    assert probe.summary().split(";")[0] in log

    for r in recs:
        assert r["status"] == "ok"
        assert record_schema.validate_record(r) is None
        # timings intact whatever happened to energy
        assert r["t_total"] > 0 and r["t_compute"] > 0 and r["verified"] is True
        assert r["bytes"] == SIZE and r["ranks"] == ranks and r["threads"] == threads
        # energy: a value from the source the probe chose, or null with the reasons
        if probe.source is None:
            assert r["joules"] is None and r["energy_source"] is None
            for reason in probe.note.split("; "):
                assert reason in r["energy_note"]
            if not energy.check_rapl().ok:
                assert (
                    "powercap not present" in r["energy_note"]
                    or "energy_uj" in r["energy_note"]
                )
            lk = probe.check("likwid")
            if lk is not None and not lk.ok:
                assert "likwid: " in r["energy_note"]
        else:
            assert r["joules"] > 0 and r["energy_source"] in ("likwid", "rapl")
        # CPU utilisation as defined
        assert r["cores_used"] == ranks * threads
        assert r["cpu_util"] == pytest.approx(
            (r["cpu_user_s"] + r["cpu_sys_s"]) / (r["t_total"] * r["cores_used"]),
            rel=0.05,
        )
        # provenance
        assert r["git_rev"] == sh("git", "rev-parse", "HEAD")
        cli = sh(
            "openssl", "version"
        )  # "OpenSSL 3.0.x d m y (Library: OpenSSL 3.0.x d m y)"
        lib = re.search(r"\(Library: (.*)\)$", cli)
        assert r["openssl_version"] == (lib.group(1) if lib else cli)
        assert r["host"] == socket.gethostname()
        assert r["cpu_model"] == hostfacts.cpu_model()
        assert r["cpu_cores"] == os.cpu_count()
        assert r["compiler"] and sh("cc", "-dumpfullversion") in r["compiler"]
        assert r["cflags"] and "-O" in r["cflags"]
        if backend == "mpi":
            assert (
                sh("mpirun", "--version").splitlines()[0].split()[-1]
                in r["mpi_version"]
            )
        assert r["campaign"] == "energy-test" and r["point"] == p.id
        assert (
            r["runtime"] == "none" and r["image"] is None and r["image_digest"] is None
        )
        assert r["slurm_job_id"] is None and r["slurm_nodelist"] is None
        assert f"aes-{backend}" in r["launch_line"]
        ts = dt.datetime.fromisoformat(r["timestamp"])
        assert started - dt.timedelta(seconds=1) <= ts <= dt.datetime.now(dt.UTC)
