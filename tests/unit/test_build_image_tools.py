"""containers/build-image.sh on a machine without mmdebstrap: as root it installs the
missing packages with apt-get (as scripts/setup.sh does); as another user it stops with
the exact command to run."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import ROOT

SCRIPT = ROOT / "containers" / "build-image.sh"
BIN_DIRS = (
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
)


def _path_without(tmp_path: Path, *tools: str) -> str:
    """A PATH of one directory that has every command of this machine but ``tools``."""
    shadow = tmp_path / "bin"
    shadow.mkdir()
    for d in BIN_DIRS:
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            if name in tools or (shadow / name).exists():
                continue
            (shadow / name).symlink_to(os.path.join(d, name))
    return str(shadow)


def _build(tmp_path: Path, path: str, *prefix: str) -> subprocess.CompletedProcess[str]:
    out = tmp_path / "out"
    out.mkdir(mode=0o777)
    out.chmod(0o777)
    env = {"PATH": path, "HOME": str(tmp_path), "LANG": "C"}
    argv = [*prefix, "bash", str(SCRIPT), "--builder", "mmdebstrap", "--no-test"]
    argv += ["--version", "0", "--git-revision", "x", "cpu", str(out / "cpu.sqfs")]
    return subprocess.run(
        argv, capture_output=True, text=True, env=env, timeout=300, check=False
    )


needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="needs root (apt-get, setpriv)"
)


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory another user can enter (pytest's own are private to root)."""
    with tempfile.TemporaryDirectory(prefix="cs-image-") as d:
        os.chmod(d, 0o755)
        yield Path(d)


@needs_root
def test_as_another_user_it_prints_the_exact_command(open_dir: Path) -> None:
    tmp_path = open_dir
    path = _path_without(tmp_path, "mmdebstrap", "mksquashfs")
    proc = _build(
        tmp_path, path, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].endswith(
        "sudo apt-get install -y --no-install-recommends mmdebstrap squashfs-tools"
    )


@needs_root
def test_as_root_it_installs_what_is_missing(tmp_path: Path) -> None:
    # the package is installed here, only hidden from PATH: apt-get is really asked
    # for it (and has nothing to do), then the script says the command is still missing
    path = _path_without(tmp_path, "mmdebstrap")
    proc = _build(tmp_path, path)
    assert "installing mmdebstrap" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert "mmdebstrap is still not on PATH after installing mmdebstrap" in proc.stderr
    assert "is not installed (apt-get install" not in proc.stderr
