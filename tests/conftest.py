"""pytest set-up shared by every test folder; the helpers themselves live in support.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import ROOT


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "quiet: compares timings between runs of its own, so it runs with the machine "
        "to itself (scripts/test.sh runs these after the parallel phase, one process)",
    )


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
    "and campaigns on them (about 20 min one after another, mostly waiting for the "
    "scheduler; each of its six modules starts a cluster of its own)",
    "containers": "the registry-free image build (mmdebstrap + mksquashfs: several "
    "minutes the first time, cached in ~/.cache/ciphersweep/images) and Charliecloud runs (about 2-4 min, plus about 5 to build the image)",
}
_announced: set[str] = set()


def pytest_runtest_logstart(nodeid: str, location: tuple) -> None:
    folder = nodeid.split("/")[1] if nodeid.startswith("tests/") else ""
    if folder in FOLDERS and folder not in _announced:
        _announced.add(folder)
        print(f"\n--- tests/{folder}: {FOLDERS[folder]}", flush=True)


# Under pytest-xdist (scripts/test.sh: `--dist loadfile --no-loadscope-reorder`) each test
# module goes whole to one worker, so that a module's own test cluster or campaign run
# (module-scoped fixtures) is set up once. xdist hands the modules out in collection
# order: one to each worker, then the next one to each worker with at most two tests
# left to run (which then waits behind them), and so on. So the workers collect the
# modules longest first (about the seconds each takes alone on 2 cores, below; a module
# not named counts 1), except that the modules queued second are the shortest:
# whatever waits behind a long module waits as long. A run in one process keeps
# pytest's own order.
MODULE_SECONDS = {
    "tests/workflow/test_fresh_build.py": 40,
    "tests/slurm/test_slurm_recovery.py": 360,
    "tests/slurm/test_multinode.py": 330,
    "tests/slurm/test_slurm_cluster.py": 310,
    "tests/slurm/test_slurm_launchers.py": 240,
    "tests/slurm/test_multinode_node_loss.py": 150,
    "tests/slurm/test_user_kernel_slurm.py": 150,
    "tests/workflow/test_interruptions.py": 200,
    "tests/workflow/test_fingerprint_workflow.py": 145,
    "tests/containers/test_container_campaign.py": 150,
    "tests/workflow/test_integrity.py": 90,
    "tests/workflow/test_workflow.py": 85,
    "tests/workflow/test_codepath_workflow.py": 60,
    "tests/unit/test_purepy.py": 57,
    "tests/workflow/test_build_variants.py": 45,
    "tests/unit/test_fingerprint.py": 42,
    "tests/unit/test_command_backend.py": 40,
    "tests/unit/test_history_guard.py": 34,
    "tests/unit/test_command_line_hostile.py": 34,
    "tests/unit/test_wording.py": 26,
    "tests/unit/test_history.py": 22,
    "tests/workflow/test_user_input_change.py": 20,
    "tests/workflow/test_user_kernel.py": 17,
    "tests/workflow/test_pybackends_workflow.py": 16,
    "tests/unit/test_checks.py": 15,
    "tests/workflow/test_hangup.py": 15,
    "tests/workflow/test_history_store_workflow.py": 14,
    "tests/workflow/test_results_faults.py": 14,
    "tests/unit/test_codepath.py": 14,
    "tests/workflow/test_report_browser.py": 10,
    "tests/unit/test_record_schema.py": 10,
    "tests/workflow/test_nothing_measured_workflow.py": 9,
    "tests/unit/test_config.py": 8,
    "tests/unit/test_build.py": 8,
}


def module_order(modules: list[str], workers: int) -> list[str]:
    """The modules longest first, with the shortest ones in the second round (the
    module queued behind each of the first ``workers``)."""
    ranked = sorted(modules, key=lambda m: -MODULE_SECONDS.get(m, 1))
    first, rest = ranked[:workers], ranked[workers:]
    short = sorted(rest, key=lambda m: MODULE_SECONDS.get(m, 1))[:workers]
    return first + short + [m for m in rest if m not in short]


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    modules = list(dict.fromkeys(item.nodeid.split("::")[0] for item in items))
    rank = {m: i for i, m in enumerate(module_order(modules, workers))}
    items.sort(key=lambda item: rank[item.nodeid.split("::")[0]])  # stable
