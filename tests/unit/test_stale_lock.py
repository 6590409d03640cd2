"""The lock of a run killed outright (kill -9): released by the next run where its
process is known to be gone, never where it lives or cannot be told about."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, replace
from pathlib import Path

import pytest
from ciphersweep.campaign import lock


def _locked(tmp: Path) -> Path:
    """A folder holding Snakemake's lock files, as a run leaves it."""
    locks = tmp / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.input.lock").write_text("results/x\n")
    (locks / "0.output.lock").write_text("results/y\n")
    return locks


def _owned_by(locks: Path, owner: lock.Owner) -> None:
    (locks / lock.OWNER).write_text(json.dumps(asdict(owner)))


def _gone() -> lock.Owner:
    """This machine's identity for a process that has ended."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return replace(lock.this_process(), pid=proc.pid)


def test_a_live_run_keeps_its_lock(tmp_path: Path) -> None:
    locks = _locked(tmp_path)
    assert lock.claim(locks) == locks / lock.OWNER
    assert lock.stale(locks) is None
    assert lock.release_stale(locks) is None
    assert sorted(f.name for f in locks.iterdir()) == [
        "0.input.lock",
        "0.output.lock",
        lock.OWNER,
    ]


def test_the_lock_of_a_killed_run_is_released(tmp_path: Path) -> None:
    locks = _locked(tmp_path)
    owner = _gone()
    _owned_by(locks, owner)
    assert lock.stale(locks) == owner
    line = lock.release_stale(locks)
    assert line is not None and f"pid {owner.pid}" in line
    assert not locks.exists()  # as `snakemake --unlock` leaves it


def test_a_reused_pid_or_a_reboot_is_told_apart(tmp_path: Path) -> None:
    me = lock.this_process()
    locks = _locked(tmp_path)
    _owned_by(locks, replace(me, started=me.started - 3600))  # another process
    assert lock.stale(locks) is not None
    _owned_by(locks, replace(me, boot=me.boot - 3600))  # before this boot
    assert lock.stale(locks) is not None


def test_a_lock_it_cannot_tell_about_is_left_alone(tmp_path: Path) -> None:
    locks = _locked(tmp_path)
    assert lock.stale(locks) is None  # nobody named: another tool's, or too early
    _owned_by(locks, replace(_gone(), host="elsewhere"))
    assert lock.stale(locks) is None  # another machine
    _owned_by(locks, replace(_gone(), pidns="pid:[1]"))
    assert lock.stale(locks) is None  # another process namespace
    (locks / lock.OWNER).write_text("{not json")
    assert lock.release_stale(locks) is None
    assert (locks / "0.input.lock").exists()
    unlocked = tmp_path / "free"
    unlocked.mkdir()
    _owned_by(unlocked, _gone())
    assert lock.stale(unlocked) is None  # no lock files: nothing to release


def _left_by_a_killed_run(
    tmp_path: Path, seconds: str
) -> tuple[Path, lock.Owner, subprocess.Popen[bytes]]:
    """A lock of a killed run, and a process of that run (``sleep seconds``) still
    running: the lock folder, the run's owner record and the process."""
    locks = _locked(tmp_path)
    owner = replace(_gone(), run="12345:678.9")
    _owned_by(locks, owner)
    env = dict(os.environ, **{lock.RUN_VAR: owner.run})
    return locks, owner, subprocess.Popen(["sleep", seconds], env=env)


def test_the_lock_stays_while_a_process_of_the_killed_run_runs(tmp_path: Path) -> None:
    """A kernel outlives its Snakemake killed alone: the next run names it and keeps
    the lock until it ends, rather than measure beside it."""
    locks, _, kernel = _left_by_a_killed_run(tmp_path, "60")
    try:
        line = lock.release_stale(locks)
        assert line is not None and f"{kernel.pid} sleep" in line, line
        assert "its lock stays" in line and (locks / "0.input.lock").exists()
    finally:
        kernel.kill()
        kernel.wait()
    assert "is released" in (lock.release_stale(locks) or "")
    assert not locks.exists()


def test_a_run_names_itself_in_the_environment_of_what_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(lock.RUN_VAR, raising=False)
    run = lock.mark_run()
    assert lock.this_process().run == run
    child = subprocess.run(
        [sys.executable, "-c", f"import os; print(os.environ['{lock.RUN_VAR}'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout.strip() == run


def test_a_process_of_the_killed_run_that_ends_soon_is_waited_for(
    tmp_path: Path,
) -> None:
    """A process of the killed run that ends within a moment (its drawing process
    finishing its start, then finding its run gone) does not keep the lock: the next
    run waits for it and releases the lock."""
    locks, owner, ending = _left_by_a_killed_run(tmp_path, "2")
    try:
        assert lock.survivors(owner)
        assert "is released" in (lock.release_stale(locks) or "")
        assert not locks.exists()
    finally:
        ending.kill()
        ending.wait()
