"""The CPU image built through the registry-free path (mmdebstrap + bwrap + mksquashfs),
run with Charliecloud's ch-run: what is inside, and kernels whose output is byte-identical
to the native kernels' and to ``openssl enc``; MPI with the host launcher outside."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import deffile
import pytest
from imagetools import CONTAINERS, CPU_KERNELS, ch_env, ch_run

KEY = "000102030405060708090a0b0c0d0e0f"
IV = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
SIZE = "200KiB"  # not a multiple of the 64 KiB chunk sizes kernels like to use


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory, native_dir: Path) -> Path:
    """A directory bound at /mnt in the container holding the generated input."""
    d = tmp_path_factory.mktemp("ch")
    subprocess.run(
        [
            str(native_dir / "aes-seq"),
            "--gen-input",
            str(d / "in.bin"),
            "--size",
            SIZE,
            "--seed",
            "7",
        ],
        check=True,
    )
    return d


def openssl_enc(src: Path, mode: str) -> bytes:
    cmd = ["openssl", "enc", f"-aes-128-{mode}", "-K", KEY, "-in", str(src)]
    if mode != "ecb":
        cmd += ["-iv", IV]
    return subprocess.run(cmd, check=True, capture_output=True).stdout


def test_image_file_and_digest(cpu_image: Path) -> None:
    digest_line = Path(f"{cpu_image}.sha256").read_text().split()
    assert digest_line[1] == cpu_image.name
    assert digest_line[0] == hashlib.sha256(cpu_image.read_bytes()).hexdigest()
    assert cpu_image.read_bytes()[:4] == b"hsqs"  # SquashFS magic
    size_mb = cpu_image.stat().st_size / 1e6
    assert 50 < size_mb < 400, f"image is {size_mb:.0f} MB"


def test_build_ran_the_recipes_provisioning_script(
    cpu_image: Path, tmp_path: Path
) -> None:
    """The provisioning script in the image (the one %post ran) is byte-identical to the
    one both recipes reference, and so are the other %files."""
    for recipe in ("cpu", "cuda"):
        d = deffile.parse(CONTAINERS / f"{recipe}.def")
        for src, dst in d.files():
            if src == "kernels":
                continue
            r = subprocess.run(
                ["ch-run", str(cpu_image), "--", "cat", dst],
                env=ch_env(),
                capture_output=True,
                check=True,
            )
            assert r.stdout == (CONTAINERS.parent / src).read_bytes(), (
                f"{recipe}.def: {dst} differs"
            )
    info = json.loads(
        ch_run(cpu_image, tmp_path, "cat", "/opt/ciphersweep/image.json").stdout
    )
    assert info["recipe"] == "cpu"
    assert info["os"].startswith("Debian GNU/Linux 12")
    assert info["openmpi"].startswith("4.1")
    assert info["pmix"]
    assert sorted(info["kernels"]) == sorted(CPU_KERNELS)
    labels = json.loads(
        ch_run(cpu_image, tmp_path, "cat", "/.singularity.d/labels.json").stdout
    )
    assert labels["ciphersweep.recipe"] == "cpu"
    assert labels["org.opencontainers.image.revision"] == info["git_revision"]


def test_image_has_no_device_nodes_or_caches(cpu_image: Path, tmp_path: Path) -> None:
    r = ch_run(
        cpu_image,
        tmp_path,
        "sh",
        "-c",
        "ls /var/lib/apt/lists | wc -l; ls /usr/share/doc | wc -l",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "0"]
    listing = subprocess.run(
        ["unsquashfs", "-lls", str(cpu_image), "dev"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert not [ln for ln in listing.splitlines() if ln[:1] in ("c", "b")], (
        "device nodes in image"
    )


def ompi_family(ompi_info_output: str) -> str:
    """'4.1' from ``ompi_info --parsable`` (line ``ompi:version:full:4.1.4``)."""
    for line in ompi_info_output.splitlines():
        if line.startswith("ompi:version:full:"):
            return ".".join(line.rsplit(":", 1)[1].split(".")[:2])
    raise AssertionError(f"no ompi:version:full in {ompi_info_output[:200]!r}")


def test_open_mpi_matches_host_family(cpu_image: Path, tmp_path: Path) -> None:
    inside = ch_run(cpu_image, tmp_path, "ompi_info", "--parsable")
    assert inside.returncode == 0, inside.stderr
    assert ompi_family(inside.stdout) == "4.1"
    assert "pmix" in inside.stdout.lower()
    if shutil.which("ompi_info") is None:
        pytest.skip("no host Open MPI to compare with")
    host = subprocess.run(
        ["ompi_info", "--parsable"], capture_output=True, text=True, check=True
    )
    assert ompi_family(inside.stdout) == ompi_family(host.stdout)


CASES = [
    ("aes-seq", ["--impl", "ttable"], "ctr"),
    ("aes-seq", ["--impl", "ref"], "ecb"),
    ("aes-omp", ["--impl", "ttable", "--threads", "2"], "ctr"),
    ("aes-openssl", [], "ctr"),
    ("aes-mpi", ["--impl", "ttable"], "ctr"),
]


@pytest.mark.parametrize(
    ("kernel", "extra", "mode"), CASES, ids=[f"{k}-{m}" for k, _, m in CASES]
)
def test_kernel_output_identical_in_image_natively_and_openssl(
    cpu_image: Path,
    native_dir: Path,
    work: Path,
    kernel: str,
    extra: list[str],
    mode: str,
) -> None:
    tag = f"{kernel}-{mode}-{'-'.join(extra) or 'x'}"
    if kernel == "aes-openssl":
        extra = ["--cipher", f"aes-128-{mode}"]
    args = [
        *extra,
        "--mode",
        mode,
        "--input",
        "in.bin",
        "--reps",
        "2",
        "--warmup",
        "0",
        "--energy",
        "none",
    ]
    native = subprocess.run(
        [
            str(native_dir / kernel),
            *args,
            "--output",
            f"{tag}.native",
            "--json",
            f"{tag}.native.jsonl",
        ],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    assert native.returncode == 0, native.stderr
    inside = ch_run(
        cpu_image,
        work,
        kernel,
        *args,
        "--output",
        f"{tag}.img",
        "--json",
        f"{tag}.img.jsonl",
    )
    assert inside.returncode == 0, inside.stderr
    got = (work / f"{tag}.img").read_bytes()
    assert got == (work / f"{tag}.native").read_bytes()
    assert got == openssl_enc(work / "in.bin", mode)
    recs = records(work / f"{tag}.img.jsonl")
    assert len(recs) == 2
    for rec in recs:
        assert rec["backend"] == kernel.removeprefix("aes-")
        assert rec["verified"] is True
        assert rec["mode"] == mode


@pytest.mark.parametrize("ranks", [2, 4])
def test_mpi_with_host_launcher_outside_the_image(
    cpu_image: Path, native_dir: Path, work: Path, ranks: int
) -> None:
    """mpirun on the host starts R ch-run processes; Open MPI's PMIx environment and the
    socket directories under /tmp reach aes-mpi inside the image."""
    if shutil.which("mpirun") is None:
        pytest.fail("mpirun (openmpi-bin) is not installed on the host")
    out = f"mpi{ranks}.bin"
    cmd = ["mpirun", "-np", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += ["ch-run", "-b", f"{work}:/mnt", "-c", "/mnt", str(cpu_image), "--"]
    cmd += [
        "aes-mpi",
        "--impl",
        "ttable",
        "--input",
        "in.bin",
        "--reps",
        "1",
        "--warmup",
        "0",
    ]
    cmd += ["--energy", "none", "--output", out, "--json", f"mpi{ranks}.jsonl"]
    env = ch_env()
    # CMA single-copy cannot cross the per-rank user namespaces ch-run makes
    env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
    r = subprocess.run(
        cmd, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert (work / out).read_bytes() == openssl_enc(work / "in.bin", "ctr")
    recs = records(work / f"mpi{ranks}.jsonl")
    assert recs and all(
        rec["ranks"] == ranks and rec["verified"] is True for rec in recs
    )


def test_kernel_verification_failure_inside_image(cpu_image: Path, work: Path) -> None:
    r = ch_run(
        cpu_image,
        work,
        "aes-seq",
        "--input",
        "in.bin",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--energy",
        "none",
        "--inject-fault",
        "corrupt",
        "--json",
        "fault.jsonl",
    )
    assert r.returncode == 1
    assert "verification FAILED" in r.stderr
    assert (
        not (work / "fault.jsonl").exists()
        or not (work / "fault.jsonl").read_text().strip()
    )
