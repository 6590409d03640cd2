"""What the energy tests share: the kernels scripts/build-kernels.sh builds."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "build" / "kernels"


@pytest.fixture(scope="module")
def kernels() -> Path:
    """build/kernels, built first where it is not there yet."""
    if not (KERNELS / "aes-seq").exists():
        subprocess.run(
            [str(ROOT / "scripts" / "build-kernels.sh"), str(KERNELS)],
            cwd=ROOT,
            check=True,
        )
    return KERNELS
