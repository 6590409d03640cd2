"""likwid's lasting verdicts kept across processes (job/energy/likwid_memo.py), with a
likwid-perfctr stand-in that counts how often it is asked."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from ciphersweep.job.energy import hooks, likwid_memo
from ciphersweep.job.energy.source import SourceCheck

# likwid-perfctr 5.2's output on a CPU it does not know (rc 1, the program never runs)
UNSUPPORTED = (
    "echo 'ERROR - [./src/perfmon.c:perfmon_init_maps:1427] Unsupported Processor' >&2\n"
    "exit 1\n"
)
# a failure that may be gone next time
BUSY = "echo 'ERROR - Counters are in use by another process' >&2\nexit 1\n"


def stand_in(bindir: Path, body: str) -> Path:
    """A likwid-perfctr on PATH that appends a line to ``asked`` beside it per call."""
    bindir.mkdir(exist_ok=True)
    exe = bindir / "likwid-perfctr"
    exe.write_text(f"#!/bin/sh\necho x >> '{bindir / 'asked'}'\n{body}")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def asked(bindir: Path) -> int:
    path = bindir / "asked"
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bindir = tmp_path / "bin"
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return bindir


def test_unsupported_cpu_is_asked_once_per_machine_state(machine: Path) -> None:
    exe = stand_in(machine, UNSUPPORTED)
    first = likwid_memo.checked([0, 1], 5.0)
    again = likwid_memo.checked([0, 1], 5.0)
    assert asked(machine) == 1
    assert first.reason == again.reason
    assert first.reason.startswith("likwid: unsupported CPU (Unsupported Processor)")
    assert "kept_from" in again.detail and "kept_from" not in first.detail
    # other cores: another question
    likwid_memo.checked([1], 5.0)
    assert asked(machine) == 2
    # likwid replaced (another file identity): asked again
    exe.write_text(exe.read_text() + "\n")
    os.utime(exe, ns=(1, 1))
    likwid_memo.checked([0, 1], 5.0)
    assert asked(machine) == 3


# likwid-perfctr 5.2 without the msr module loaded (rc 1)
NO_MSR = (
    "echo 'ERROR - [./src/access_x86_msr.c:access_x86_msr_init:98] Cannot get access "
    "to MSRs. Please check permissions to the MSRs' >&2\nexit 1\n"
)


def test_no_msr_access_is_kept_while_the_access_stays_the_same(
    machine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No access to the MSRs lasts as long as what decides it: the msr module loaded
    (its device appears) or its permissions changed, likwid is asked again."""
    monkeypatch.setattr(likwid_memo, "MSR_DEVICE", tmp_path / "dev-cpu-0-msr")
    stand_in(machine, NO_MSR)
    first = likwid_memo.checked([0], 5.0)
    assert first.reason.startswith("likwid: no access to MSRs")
    assert likwid_memo.checked([0], 5.0).reason == first.reason
    assert asked(machine) == 1
    device = tmp_path / "dev-cpu-0-msr"
    device.write_text("")  # modprobe msr
    likwid_memo.checked([0], 5.0)
    assert asked(machine) == 2
    device.chmod(0o666)  # a udev rule opens it to users
    likwid_memo.checked([0], 5.0)
    likwid_memo.checked([0], 5.0)
    assert asked(machine) == 3


def test_passing_failures_are_asked_every_time(machine: Path) -> None:
    stand_in(machine, BUSY)
    for _ in range(2):
        c = likwid_memo.checked([0], 5.0)
        assert not c.ok and not c.reason.startswith(likwid_memo.LASTING)
    assert asked(machine) == 2
    assert not (likwid_memo.cache_dir()).exists() or not list(
        likwid_memo.cache_dir().iterdir()
    )


def test_a_damaged_or_unwritable_cache_is_passed_over(
    machine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in(machine, UNSUPPORTED)
    likwid_memo.checked([0], 5.0)
    (kept,) = likwid_memo.cache_dir().iterdir()
    kept.write_text("{not json")
    assert likwid_memo.checked([0], 5.0).reason.startswith("likwid: unsupported CPU")
    assert asked(machine) == 2
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert likwid_memo.checked([0], 5.0).reason.startswith("likwid: unsupported CPU")
    assert asked(machine) == 3


def test_no_likwid_is_never_kept(
    machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(machine / "empty"))
    assert likwid_memo.checked([0], 5.0).reason == (
        "likwid: likwid-perfctr not installed"
    )
    assert not likwid_memo.cache_dir().exists()


def test_a_machine_wide_answer_is_asked_once_per_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No access to the MSRs holds for every core: the bench jobs of one process ask
    likwid-perfctr once, not once per set of cores; an answer about some cores (a
    timeout) is asked again for others."""
    asked: list[tuple[int, ...]] = []
    answers = {
        (0,): SourceCheck("likwid", False, "likwid: no access to MSRs (x)"),
        (5,): SourceCheck("likwid", False, "likwid: likwid-perfctr did not finish"),
    }

    def ask(cores: tuple[int, ...], timeout: float) -> SourceCheck:
        asked.append(cores)
        return answers.get(cores[:1], answers[(5,)])

    monkeypatch.setattr(hooks, "checked", ask)
    for cache in (hooks._cached_likwid_check, hooks._machine_answers):
        cache.cache_clear()
    try:
        timed_out = hooks._cached_likwid_check((5, 6), 1.0)
        assert hooks._cached_likwid_check((7,), 1.0) == timed_out  # asked again
        first = hooks._cached_likwid_check((0,), 1.0)
        assert hooks._cached_likwid_check((0, 1), 1.0) == first
        assert hooks._cached_likwid_check((2, 3), 1.0) == first
        assert asked == [(5, 6), (7,), (0,)]
    finally:
        for cache in (hooks._cached_likwid_check, hooks._machine_answers):
            cache.cache_clear()
