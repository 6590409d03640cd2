"""Container tests: the registry-free CPU image, built once and cached.

The image is built with the real recipe and provisioning script through
``containers/build-image.sh --builder mmdebstrap`` and kept in
``~/.cache/ciphersweep/images/cpu-<key>.sqfs`` (``imagetools.IMAGES``), where ``<key>``
hashes everything that goes into it (recipe, provisioning script and package list, build
scripts, kernel sources). A later test run, from this checkout or another, reuses it; a
change to any of those builds a new one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from imagetools import CPU_KERNELS, NATIVE, ROOT, cached_cpu_image


@pytest.fixture(scope="session")
def cpu_image() -> Path:
    """The CPU image (SquashFS) built through the registry-free path, cached by key."""
    return cached_cpu_image()


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
