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
    use Slurm. The Slurm tests point SLURM_CONF at their private cluster."""
    if "SLURM_CONF" not in os.environ and not Path("/etc/slurm/slurm.conf").exists():
        monkeypatch.setenv("SLURM_CONF", "/dev/null")


# What each test folder does and roughly how long it takes alone on 2 cores: printed when
# its first test starts, so that a long silent stretch says what it is (with
# CIPHERSWEEP_TEST_WORKERS=N, scripts/test.sh runs the folders side by side).
FOLDERS = {
    "unit": "unit tests of the Python package (about 3 min)",
    "energy": "energy readers, CPU utilisation and provenance (about 1 min)",
    "workflow": "dry runs of every campaign, local end-to-end campaigns, the report in "
    "headless Chromium (about 10 min)",
    "slurm": "private Slurm clusters (munge, slurmctld, slurmd, slurmdbd with MariaDB) "
    "and campaigns on them (about 19 min; its two modules each start a cluster of "
    "their own)",
    "containers": "the registry-free image build (mmdebstrap + mksquashfs: several "
    "minutes the first time, cached in build/images) and Charliecloud runs (about 2-4 min, plus about 5 to build the image)",
}
_announced: set[str] = set()


def pytest_runtest_logstart(nodeid: str, location: tuple) -> None:
    folder = nodeid.split("/")[1] if nodeid.startswith("tests/") else ""
    if folder in FOLDERS and folder not in _announced:
        _announced.add(folder)
        print(f"\n--- tests/{folder}: {FOLDERS[folder]}", flush=True)


# Under pytest-xdist (scripts/test.sh: `--dist loadfile --no-loadscope-reorder`) each test
# module goes whole to one worker, so that a module's own test cluster or campaign run
# (module-scoped fixtures) is set up once; the modules are handed out in collection
# order. The workers collect the longest folders first, so that they start at once and
# the short ones fill the gaps; a run in one process keeps pytest's own order.
LONGEST_FIRST = ["slurm", "workflow", "containers", "unit", "energy"]


def _folder_rank(item: pytest.Item) -> int:
    parts = item.nodeid.split("/")
    folder = parts[1] if len(parts) > 2 and parts[0] == "tests" else ""
    return (
        LONGEST_FIRST.index(folder) if folder in LONGEST_FIRST else len(LONGEST_FIRST)
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=_folder_rank)  # stable: each module keeps its own order
