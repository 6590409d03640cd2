"""Container tests: the registry-free CPU image, built once and cached.

The image is built with the real recipe and provisioning script through
``containers/build-image.sh --builder mmdebstrap`` and kept in
``build/images/cpu-<key>.sqfs``, where ``<key>`` hashes everything that goes into it
(recipe, provisioning script and package list, build scripts, kernel sources). A later
test run reuses it; a change to any of those builds a new one.
"""

from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from imagetools import (
    CONTAINERS,
    CPU_KERNELS,
    IMAGES,
    NATIVE,
    ROOT,
    image_key,
    missing_prerequisites,
)


@pytest.fixture(scope="session")
def cpu_image() -> Path:
    """The CPU image (SquashFS) built through the registry-free path, cached by key."""
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
            # older images of this recipe are stale now
            for old in IMAGES.glob("cpu-*"):
                if not old.name.startswith(f"cpu-{key}"):
                    old.unlink(missing_ok=True)
    return image


@pytest.fixture(scope="session")
def native_dir() -> Path:
    """The native kernels (scripts/build-kernels.sh build/kernels, as scripts/test.sh does)."""
    if not all((NATIVE / k).exists() for k in CPU_KERNELS):
        subprocess.run(
            [str(ROOT / "scripts" / "build-kernels.sh"), str(NATIVE)],
            cwd=ROOT,
            check=True,
        )
    return NATIVE
