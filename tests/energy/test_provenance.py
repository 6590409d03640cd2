"""Orchestrator-side provenance helpers."""

from __future__ import annotations

import hashlib
import socket
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from ciphersweep.analysis.tables import provenance_rows
from ciphersweep.job import hostfacts, provenance

ROOT = Path(__file__).resolve().parents[2]


def sh(*cmd: str) -> str:
    return subprocess.run(
        cmd, capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.strip()


def test_git_revision_is_head() -> None:
    assert provenance.git_revision() == sh("git", "rev-parse", "HEAD")
    assert provenance.git_dirty() in (True, False)


def test_git_revision_outside_a_checkout(tmp_path: Path) -> None:
    assert provenance.git_revision(tmp_path) is None
    assert provenance.git_dirty(tmp_path) is None


def test_openssl_version_is_the_cli() -> None:
    assert hostfacts.openssl_version() == sh("openssl", "version")


def test_image_digest(tmp_path: Path) -> None:
    img = tmp_path / "cpu.sqfs"
    img.write_bytes(b"\x00squashfs" * 100_000)
    assert (
        provenance.image_digest(img)
        == "sha256:" + hashlib.sha256(img.read_bytes()).hexdigest()
    )
    assert provenance.image_digest(None) is None
    assert provenance.image_digest(tmp_path / "missing.sif") is None
    tree = tmp_path / "tree"
    (tree / "bin").mkdir(parents=True)
    (tree / "bin" / "aes-seq").write_bytes(b"x")
    d1 = provenance.image_digest(tree)
    (tree / "bin" / "aes-seq").write_bytes(b"y")
    assert (
        d1 is not None
        and d1.startswith("sha256:")
        and provenance.image_digest(tree) != d1
    )


def test_slurm_ids() -> None:
    assert provenance.slurm_ids({}) == {"slurm_job_id": None, "slurm_nodelist": None}
    env = {"SLURM_JOB_ID": "4711", "SLURM_JOB_NODELIST": "node[01-02]"}
    assert provenance.slurm_ids(env) == {
        "slurm_job_id": "4711",
        "slurm_nodelist": "node[01-02]",
    }
    env = {
        "SLURM_JOB_ID": "4712",
        "SLURM_ARRAY_JOB_ID": "4700",
        "SLURM_ARRAY_TASK_ID": "3",
        "SLURM_NODELIST": "n1",
    }
    assert provenance.slurm_ids(env) == {
        "slurm_job_id": "4700_3",
        "slurm_nodelist": "n1",
    }


def test_orchestrator_fields(tmp_path: Path) -> None:
    img = tmp_path / "cpu.sif"
    img.write_bytes(b"sif")
    f = provenance.orchestrator_fields(
        campaign="default",
        point="seq-ttable-ctr-enc-1KiB-r1-t1",
        image=img,
        runtime="apptainer",
        launch_line=["apptainer", "exec", str(img), "aes-seq", "--size", "1 KiB"],
        env={"SLURM_JOB_ID": "9", "SLURM_JOB_NODELIST": "c1"},
    )
    assert f["git_rev"] == sh("git", "rev-parse", "HEAD")
    assert f["image_digest"] == "sha256:" + hashlib.sha256(b"sif").hexdigest()
    assert f["launch_line"].endswith("aes-seq --size '1 KiB'")
    assert f["slurm_job_id"] == "9" and f["slurm_nodelist"] == "c1"
    assert set(f) == set(provenance.ORCHESTRATOR_FIELDS)
    native = provenance.orchestrator_fields(campaign="c", point="p", env={})
    assert (
        native["image"] is None
        and native["image_digest"] is None
        and native["runtime"] == "none"
    )


def test_cpu_model() -> None:
    assert (
        hostfacts.cpu_model("processor\t: 0\nmodel name\t: AMD EPYC 7763\n")
        == "AMD EPYC 7763"
    )
    assert hostfacts.cpu_model("Model\t\t: Raspberry Pi 4\n") == "Raspberry Pi 4"


def test_host_facts_this_machine() -> None:
    f = hostfacts.host_facts()
    assert f["host"] == socket.gethostname()
    assert f["openssl"] == sh("openssl", "version")
    assert f["git_rev"] == sh("git", "rev-parse", "HEAD")
    assert f["cpu_cores"] >= 1
    assert f["timestamp"].endswith("Z")


def test_provenance_rows_from_measurements() -> None:
    df = pd.DataFrame(
        [
            {
                "status": "ok",
                "host": "n1",
                "cpu_model": "Xeon",
                "compiler": "gcc 12.2.0",
                "cflags": "-O3 -march=native",
                "mpi_version": "Open MPI v4.1.4",
                "openssl_version": "OpenSSL 3.0.19 27 Jan 2026",
                "git_rev": "abc",
                "image": None,
                "image_digest": None,
                "runtime": "none",
                "slurm_job_id": "12",
                "slurm_nodelist": "n1",
                "joules": None,
                "energy_source": None,
                "timestamp": "2026-01-01T00:00:02Z",
            },
            {
                "status": "ok",
                "host": "n2",
                "cpu_model": "Xeon",
                "git_rev": "abc",
                "joules": 1.5,
                "energy_source": "rapl",
                "timestamp": "2026-01-01T00:00:01Z",
            },
            {"status": "failed", "host": "bad", "timestamp": "2027-01-01T00:00:00Z"},
        ]
    )
    rows = dict(
        provenance_rows.provenance_rows(
            df, {"cpu_sockets": 2, "git_dirty": False, "host": "login"}
        )
    )
    assert rows["Hosts"] == "n1; n2"
    assert rows["CPU model"] == "Xeon"
    assert rows["Sockets"] == "2"
    assert rows["Compiler flags"] == "-O3 -march=native"
    assert rows["Project git revision"] == "abc"
    assert rows["Image digest"] == "none (native binaries)"
    assert rows["Slurm job ids"] == "12"
    assert rows["Energy sources"].startswith("rapl; none for some points")
    assert rows["First / last record"] == "2026-01-01T00:00:01Z / 2026-01-01T00:00:02Z"
    assert rows["GPU model"] == "none found"


def test_provenance_rows_same_from_a_frame_and_from_dicts() -> None:
    """A campaign's measurements hold a record per repetition (tens of thousands, each
    with its own timestamp): the rows are read column by column, the same from the
    tidy DataFrame as from the records, failed repetitions left out."""
    recs = [
        {
            "status": "ok" if i % 7 else "failed",
            "host": f"node{i % 3}",
            "slurm_job_id": i // 100,
            "joules": None if i == 5 else 1.0,
            "energy_source": "rapl",
            "timestamp": f"2026-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
        }
        for i in range(1, 20001)
    ]
    from_dicts = provenance_rows.provenance_rows(recs, {})
    from_frame = provenance_rows.provenance_rows(pd.DataFrame(recs), {})
    assert from_frame == from_dicts
    rows = dict(from_frame)
    assert rows["Hosts"] == "node1; node2; node0"
    assert rows["First / last record"] == "2026-01-01T00:00:01Z / 2026-01-01T05:33:20Z"
    assert rows["Slurm job ids"] == "0; 1; 2; 3; 4; 5; +195 more"
    assert rows["Energy sources"].startswith("rapl; none for some points")


@pytest.mark.parametrize("n", [1, 8])
def test_provenance_rows_many_values(n: int) -> None:
    recs = [{"host": f"node{i}", "timestamp": "t"} for i in range(n)]
    hosts = dict(provenance_rows.provenance_rows(recs, max_values=6))["Hosts"]
    assert hosts.count("node") == min(n, 6)
    assert ("+2 more" in hosts) == (n == 8)


def test_gpu_state_rows() -> None:
    recs = [
        {
            "gpu_power_limit_w": 700.0,
            "gpu_sm_clock_mhz_start": 1980.0,
            "gpu_sm_clock_mhz_end": 1755.0,
            "gpu_temp_c_start": 38.0,
            "gpu_temp_c_end": 61.0,
        },
        {
            "gpu_power_limit_w": 700.0,
            "gpu_sm_clock_mhz_start": 1980.0,
            "gpu_sm_clock_mhz_end": 1980.0,
            "gpu_temp_c_start": None,
            "gpu_temp_c_end": 45.0,
        },
    ]
    rows = dict(provenance_rows.provenance_rows(recs))
    assert rows["GPU power limit [W]"] == "700"
    assert rows["GPU SM clock [MHz]"] == "1755 .. 1980 (start and end of the points)"
    assert rows["GPU temperature [°C]"].startswith("38 .. 61")
    assert rows["GPU memory clock [MHz]"] == "not read (no GPU, or no NVML)"


def test_energy_sources_row() -> None:
    rows = dict(
        provenance_rows.provenance_rows([{"joules": None}, {"joules": float("nan")}])
    )
    assert rows["Energy sources"] == "none (see the energy table's notes)"
    rows = dict(
        provenance_rows.provenance_rows([{"joules": 1.0, "energy_source": "likwid"}])
    )
    assert rows["Energy sources"] == "likwid"
