"""A command program that floods its stdout: what is kept of its output is capped
(its first and last KEEP bytes, with a note of what was left out), and the message of
a failing program is still its last line."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from ciphersweep.job import kernel_command, pykernel

FLOOD = 20_000_000  # bytes the program writes, 150 times what is kept


def test_flooded_output_is_capped(tmp_path: Path) -> None:
    log = tmp_path / "program.log"
    script = (
        f"head -c {FLOOD} /dev/zero | tr '\\0' x; echo; echo last words >&2; exit 3"
    )
    rc, wall, _ = kernel_command._spawn(["sh", "-c", script], str(log))
    assert rc == 3 and wall > 0
    size = log.stat().st_size
    assert 2 * kernel_command.KEEP <= size <= 2 * kernel_command.KEEP + 200
    text = log.read_text()
    left_out = FLOOD + 1 + len("last words\n") - 2 * kernel_command.KEEP
    assert f"[... {left_out} bytes of output left out ...]" in text
    assert text.startswith("x" * 1000)
    assert kernel_command._last_line(str(log)) == "last words"


def test_small_output_is_kept_whole(tmp_path: Path) -> None:
    log = tmp_path / "program.log"
    rc, _, _ = kernel_command._spawn(["sh", "-c", "echo one; echo two >&2"], str(log))
    assert rc == 0
    assert log.read_text() == "one\ntwo\n"


def test_a_program_that_cannot_start_leaves_no_thread(tmp_path: Path) -> None:
    before = threading.active_count()
    with pytest.raises(pykernel.KernelError, match="cannot start"):
        kernel_command._spawn(["/nonexistent/prog"], str(tmp_path / "log"))
    assert threading.active_count() == before
