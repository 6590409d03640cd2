"""A Ctrl-C in Snakemake's own start, before the workflow is read and installs its
one-line ending: the console plugin's hook (``ciphersweep_interrupted``, started by
the .pth file scripts/setup.sh writes) makes it one line; other commands of the
environment keep Python's own hook. The whole path, Ctrl-C and all:
tests/workflow/test_interruptions.py, case ``starting-SIGINT``."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import ciphersweep_interrupted as early
import pytest
from support import ROOT

HELD = """
import sys
sys.argv[0] = {command!r}
import ciphersweep_interrupted
print(ciphersweep_interrupted.install(), flush=True)
raise KeyboardInterrupt
"""


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", HELD.format(command=command)],
        cwd=cwd,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_snakemake_interrupted_as_it_starts_says_one_line(tmp_path: Path) -> None:
    """The line is the workflow's own wording, found beside the Snakefile Snakemake
    would read; the process ends by SIGINT, as Python ends an uncaught Ctrl-C."""
    (tmp_path / "Snakefile").symlink_to(ROOT / "Snakefile")
    (tmp_path / "workflow").symlink_to(ROOT / "workflow")
    done = _run("/any/bin/snakemake", tmp_path)
    assert done.stdout.strip() == "True"
    assert done.returncode == -signal.SIGINT, done.stderr
    assert done.stderr.strip() == (
        "ciphersweep: interrupted by SIGINT as Snakemake started, before the workflow "
        "was read: what was finished is kept; the same command continues"
    )


def test_without_a_workflow_beside_the_same_words(tmp_path: Path) -> None:
    done = _run("snakemake", tmp_path)
    assert done.returncode == -signal.SIGINT
    assert done.stderr.strip().startswith(
        f"ciphersweep: interrupted by SIGINT {early.WHERE}"
    )
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", ["python", "/x/bin/pytest", "snakemake-wrapper"])
def test_other_commands_keep_pythons_own_ending(command: str, tmp_path: Path) -> None:
    done = _run(command, tmp_path)
    assert done.stdout.strip() == "False"
    assert "Traceback" in done.stderr and "KeyboardInterrupt" in done.stderr


def test_the_environment_starts_the_hook_with_snakemake_only(tmp_path: Path) -> None:
    """The .pth file is in place (scripts/setup.sh): the environment's interpreter as
    `snakemake` has the hook, as itself Python's own."""
    code = "import sys; print(getattr(sys.excepthook, 'ciphersweep_start', False))"
    plain = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True
    )
    assert plain.stdout.strip() == "False"
    snakemake = tmp_path / "snakemake"  # a command of that name, on this interpreter
    snakemake.write_text(f"#!{sys.executable}\n{code}\n")
    snakemake.chmod(0o755)
    started = subprocess.run(
        [str(snakemake)], check=False, capture_output=True, text=True
    )
    assert started.stdout.strip() == "True", started.stderr
