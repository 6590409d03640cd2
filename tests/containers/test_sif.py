"""SIF images without Apptainer: the registry-free SquashFS wrapped into a SIF file with
Debian's siftool (containers/sif-wrap.sh, what build-image.sh does for OUT.sif), laid
out as `apptainer build` lays it out. Apptainer itself is not run here (not installed):
the checks are the descriptors siftool reads back, the partition's bytes, and the root
file system in it run with ch-run."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from imagetools import CONTAINERS, ch_run
from support import make_point

RECIPE = CONTAINERS / "cpu.def"


@pytest.fixture(scope="module")
def sif(cpu_image: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("siftool") is None:
        pytest.skip("siftool is not installed (scripts/setup.sh test installs it)")
    d = tmp_path_factory.mktemp("sif")
    labels = d / "labels.json"
    labels.write_text(
        subprocess.run(
            [
                "python3",
                str(CONTAINERS / "deffile.py"),
                "--build-arg",
                "VERSION=9.8.7",
                "--build-arg",
                "GIT_REVISION=abc123def456",
                str(RECIPE),
                "labels",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    out = d / "cpu.sif"
    p = subprocess.run(
        [
            str(CONTAINERS / "sif-wrap.sh"),
            str(cpu_image),
            str(RECIPE),
            str(labels),
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    return out


def siftool(*args: str) -> str:
    p = subprocess.run(["siftool", *args], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_sif_descriptors_as_apptainer_writes_them(sif: Path) -> None:
    """siftool list: the definition file, the labels (JSON) and one primary system
    partition: SquashFS, amd64 (Apptainer's PartPrimSys / FsSquash / arch)."""
    rows = [
        [c.strip() for c in line.split("|")]
        for line in siftool("list", str(sif)).splitlines()
        if line[:1].isdigit()
    ]
    types = [r[-1] for r in rows]
    assert types == ["Def.FILE", "JSON.Generic", "FS (Squashfs/*System/amd64)"], rows
    info = siftool("info", "3", str(sif))
    assert "Filesystem Type:  Squashfs" in info, info
    assert "Partition Type:   *System" in info, info  # * marks the primary partition
    assert "Architecture:     amd64" in info, info
    assert "Primary Architecture: amd64" in siftool("header", str(sif))


def test_sif_data_objects_hold_recipe_and_labels(sif: Path) -> None:
    assert siftool("dump", "1", str(sif)) == RECIPE.read_text()
    labels = json.loads(siftool("dump", "2", str(sif)))
    assert labels["org.opencontainers.image.version"] == "9.8.7", labels
    assert labels["org.opencontainers.image.revision"] == "abc123def456", labels
    assert "labels.json" in siftool("info", "2", str(sif))


def test_partition_is_the_squashfs_and_runs_under_ch_run(
    sif: Path, cpu_image: Path, native_dir: Path, tmp_path: Path
) -> None:
    """The partition extracted from the .sif is byte-identical to the SquashFS, and
    aes-seq run from it with ch-run writes the same ciphertext as the native kernel."""
    part = tmp_path / "part.sqfs"
    with open(part, "wb") as fh:
        subprocess.run(["siftool", "dump", "3", str(sif)], stdout=fh, check=True)
    assert part.stat().st_size == cpu_image.stat().st_size
    assert (
        hashlib.sha256(part.read_bytes()).digest()
        == hashlib.sha256(cpu_image.read_bytes()).digest()
    )
    work = tmp_path / "w"
    work.mkdir()
    subprocess.run(
        [
            str(native_dir / "aes-seq"),
            "--gen-input",
            str(work / "in.bin"),
            "--size",
            "100KiB",
        ],
        check=True,
    )
    args = ["--impl", "ttable", "--mode", "ctr", "--input", "in.bin", "--reps", "1"]
    args += ["--warmup", "0", "--energy", "none"]
    native = subprocess.run(
        [str(native_dir / "aes-seq"), *args, "--output", "n.bin", "--json", "n.jsonl"],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    assert native.returncode == 0, native.stderr
    inside = ch_run(
        part, work, "aes-seq", *args, "--output", "i.bin", "--json", "i.jsonl"
    )
    assert inside.returncode == 0, inside.stderr
    assert (work / "i.bin").read_bytes() == (work / "n.bin").read_bytes()
    assert (
        json.loads((work / "i.jsonl").read_text().splitlines()[0])["verified"] is True
    )


def test_sif_digest_goes_into_the_records(sif: Path, tmp_path: Path) -> None:
    """A point of a `runtime: apptainer` campaign records the .sif's digest (here its
    launch fails: Apptainer is not installed, and the record says so)."""
    from ciphersweep.job import runner

    digest = hashlib.sha256(sif.read_bytes()).hexdigest()
    (tmp_path / "cpu.sif.sha256").write_text(f"{digest}  cpu.sif\n")
    point = make_point(size="16B")
    spec = runner.RunSpec(
        campaign="sif",
        input_path=str(tmp_path / "in.bin"),
        out_path=str(tmp_path / "raw.jsonl"),
        log_path=str(tmp_path / "bench.log"),
        kernel_dir="",
        runtime="apptainer",
        image=str(sif),
        image_digest_file=str(tmp_path / "cpu.sif.sha256"),
        energy="none",
        cwd=str(tmp_path),
    )
    runner.run_point(point, spec)
    rec = json.loads((tmp_path / "raw.jsonl").read_text().splitlines()[0])
    assert rec["image_digest"] == f"sha256:{digest}", rec
    assert rec["launch_line"].startswith(f"apptainer exec {sif}"), rec["launch_line"]
    if shutil.which("apptainer") is None:
        assert rec["status"] == "failed" and "apptainer" in rec["reason"], rec
