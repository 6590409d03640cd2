"""pytest set-up shared by every test folder; the helpers themselves live in support.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import ROOT


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(autouse=True)
def _no_slurm_probe_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where Slurm's clients are installed but no Slurm is configured (this suite's
    machines, outside the Slurm tests), the Slurm executor plugin runs
    `scontrol show config` whenever Snakemake starts and waits up to 10 s for it.
    An empty SLURM_CONF makes scontrol fail at once; runs with the local profile never
    use Slurm. The Slurm tests install /etc/slurm/slurm.conf first and are unaffected."""
    if "SLURM_CONF" not in os.environ and not Path("/etc/slurm/slurm.conf").exists():
        monkeypatch.setenv("SLURM_CONF", "/dev/null")
