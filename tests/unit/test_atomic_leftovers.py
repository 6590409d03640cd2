"""A writer killed with SIGKILL while it writes a table leaves its hidden temporary
files; the next write of the same table removes them, and they are never taken for
outputs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from ciphersweep.analysis import render
from ciphersweep.analysis.tables.model import Table
from ciphersweep.campaign import console
from ciphersweep.core import atomic
from support import ROOT

WRITER = """
import sys
sys.path.insert(0, sys.argv[1])
from ciphersweep.core import atomic
out = sys.argv[2]
paths = [f"{out}/time.csv", f"{out}/time.md", f"{out}/time.tex"]
with atomic.replacing(paths) as tmps:
    for t in tmps:
        t.write_text("half")
    print("written", flush=True)
    sys.stdin.read()  # held here until killed
"""


def _killed_writer(out: Path) -> list[Path]:
    """Run a table writer, SIGKILL it once its temporary files exist; what it left."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(ROOT / "workflow"), str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "written\n"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    left = sorted(out.iterdir())
    assert [f.name for f in left] == [
        f".time.{proc.pid}.tmp{s}" for s in (".csv", ".md", ".tex")
    ]
    return left


def test_the_next_write_removes_what_a_killed_writer_left(tmp_path: Path) -> None:
    out = tmp_path / "tables"
    out.mkdir()
    left = _killed_writer(out)
    table = Table("time", "Time (s)", ["seq"], ["1KiB"], {("seq", "1KiB"): 1.0})
    render.write_table(table, out)
    assert sorted(f.name for f in out.iterdir()) == ["time.csv", "time.md", "time.tex"]
    assert not any(f.exists() for f in left)


def test_leftovers_are_not_outputs(tmp_path: Path) -> None:
    out = tmp_path / "tables"
    out.mkdir()
    _killed_writer(out)
    (out / "speedup.csv").write_text("x")
    assert console._names(out, ".csv") == ["speedup"]
    assert all(atomic.is_temp(f) for f in out.iterdir() if f.name.startswith("."))
    assert not atomic.is_temp(out / "speedup.csv")


def test_only_the_same_target_is_cleaned(tmp_path: Path) -> None:
    other = tmp_path / ".timer.123.tmp.csv"  # another table's temporary file
    other.write_text("x")
    keep = tmp_path / ".time.notapid.tmp.csv"  # not a name this module makes
    keep.write_text("x")
    atomic.write_text(tmp_path / "time.csv", "ok")
    assert other.exists() and keep.exists()
    assert (tmp_path / "time.csv").read_text() == "ok"
