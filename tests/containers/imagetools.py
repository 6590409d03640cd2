"""Helpers of the container tests (image cache key, prerequisites, ch-run)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONTAINERS = ROOT / "containers"
# Built test images are kept per user, not per checkout: every clone on the machine
# reuses an image whose key (below) it shares. CIPHERSWEEP_IMAGE_CACHE puts them elsewhere.
IMAGES = Path(
    os.environ.get("CIPHERSWEEP_IMAGE_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "ciphersweep"
    / "images"
)
KEEP_IMAGES = 3  # the images of the last keys used (other checkouts, other commits)
NATIVE = ROOT / "build" / "kernels"
CPU_KERNELS = ["aes-seq", "aes-omp", "aes-mpi", "aes-openssl"]

for p in (CONTAINERS, ROOT / "workflow"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))


def image_inputs(recipe: str = "cpu") -> list[Path]:
    """Every file whose content goes into the image (the cache key's inputs)."""
    files = [CONTAINERS / f"{recipe}.def"]
    files += sorted(
        f for f in CONTAINERS.iterdir() if f.is_file() and f.suffix != ".def"
    )
    files.append(ROOT / "scripts" / "build-kernels.sh")
    files += sorted(
        f
        for f in (ROOT / "kernels").rglob("*")
        if f.is_file() and "__pycache__" not in f.parts and f.suffix != ".pyc"
    )
    return files


def image_key(recipe: str = "cpu") -> str:
    h = hashlib.sha256()
    for f in image_inputs(recipe):
        h.update(str(f.relative_to(ROOT)).encode() + b"\0")
        h.update(f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def missing_prerequisites() -> str | None:
    if os.geteuid() != 0:
        return "the registry-free image build needs root (mmdebstrap root mode)"
    for tool in ("mmdebstrap", "bwrap", "mksquashfs", "ch-run"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/setup.sh test installs it)"
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse: ch-run cannot mount SquashFS images"
    return None


def cached_cpu_image() -> Path:
    """The CPU image (SquashFS) built through the registry-free path, cached by key in
    :data:`IMAGES` (skips the calling test without the prerequisites)."""
    why = missing_prerequisites()
    if why:
        pytest.skip(why)
    IMAGES.mkdir(parents=True, exist_ok=True)
    key = image_key("cpu")
    image = IMAGES / f"cpu-{key}.sqfs"
    with open(IMAGES / ".lock", "w") as lock:
        fcntl.flock(
            lock, fcntl.LOCK_EX
        )  # one build at a time, others wait and reuse it
        if not (image.exists() and Path(f"{image}.sha256").exists()):
            log = image.with_suffix(".log")
            with open(log, "w") as fh:
                proc = subprocess.run(
                    [
                        str(CONTAINERS / "build-image.sh"),
                        "--builder",
                        "mmdebstrap",
                        # %test is the kernel ctest that %post (provision.sh) has just run
                        "--no-test",
                        "cpu",
                        str(image),
                    ],
                    cwd=ROOT,
                    stdout=fh,
                    stderr=subprocess.STDOUT,
                    timeout=1200,
                    check=False,
                )
            if proc.returncode != 0:
                tail = "".join(log.read_text().splitlines(keepends=True)[-40:])
                pytest.fail(
                    f"image build failed (rc {proc.returncode}); {log}:\n{tail}"
                )
        os.utime(image)  # the most recently used
        _drop_old_images()
    return image


def _drop_old_images() -> None:
    """Keep the :data:`KEEP_IMAGES` images used last (with their digest and log)."""
    images = sorted(IMAGES.glob("cpu-*.sqfs"), key=lambda f: -f.stat().st_mtime)
    for old in images[KEEP_IMAGES:]:
        for f in (old, Path(f"{old}.sha256"), old.with_suffix(".log")):
            f.unlink(missing_ok=True)


def stage_image(image: Path, results: Path, recipe: str = "cpu") -> str:
    """Put a cached image where a campaign's rule build_image writes it
    (``results/images/<recipe>.sqfs`` + ``.sha256``, fresh mtime) so that the workflow
    does not build it again; returns its sha256 hex digest."""
    (results / "images").mkdir(parents=True, exist_ok=True)
    staged = results / "images" / f"{recipe}.sqfs"
    try:
        os.link(image, staged)
    except OSError:
        shutil.copyfile(image, staged)
    os.utime(staged)
    digest = hashlib.sha256(image.read_bytes()).hexdigest()
    (results / "images" / f"{recipe}.sqfs.sha256").write_text(
        f"{digest}  {recipe}.sqfs\n"
    )
    return digest


def ch_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("USER", "root")
    return env


def ch_run(
    image: Path, workdir: Path, *argv: str, **kw
) -> subprocess.CompletedProcess[str]:
    """``ch-run -b WORKDIR:/mnt -c /mnt IMAGE -- ARGV`` (as the workflow launches kernels)."""
    cmd = ["ch-run", "-b", f"{workdir}:/mnt", "-c", "/mnt", str(image), "--", *argv]
    return subprocess.run(
        cmd,
        check=False,
        env=ch_env(),
        capture_output=True,
        text=True,
        timeout=300,
        **kw,
    )
