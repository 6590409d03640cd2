"""A results directory that fills up or turns read-only during a run: the step that
cannot write ends with ONE line naming the file (or directory) and the system's reason,
no traceback and no "Cannot restore ... no backup found" lines, and every result
written before is kept byte for byte.

The faults are real: a full tmpfs and a read-only bind mount, in a mount namespace of
the run's own (root only); the read-only one is applied while a point is held in
progress, after the start-up checks passed."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from support import (
    KERNELS,
    ROOT,
    SNAKEMAKE,
    base_config,
    default_signals,
    run_snakemake,
    with_plugin,
)

POINT = "seq-ttable-ctr-enc-1KiB-r1-t1"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="mount namespaces need root and unshare(1)",
)


def _setup(tmp_path: Path) -> tuple[dict, Path]:
    kbin = tmp_path / "kbin"
    kbin.mkdir()
    if not (KERNELS / "aes-seq").exists():
        pytest.fail("kernels not built (run scripts/build-kernels.sh build/kernels)")
    shutil.copy(KERNELS / "aes-seq", kbin / "aes-seq")
    cfg = base_config(
        campaign="faults",
        sizes=["1KiB"],
        reps=2,
        warmup=0,
        backends={"seq": {"impls": ["ttable"]}},
        build={"dir": str(kbin)},
        platform={"energy": "none"},
    )
    first = run_snakemake(tmp_path, cfg)
    assert first.returncode == 0, first.stderr[-3000:]
    (tmp_path / "campaign.yaml").write_text(yaml.safe_dump(cfg))
    return cfg, kbin


def _damage(tmp_path: Path) -> None:
    """Cut the point's raw file short: the same command measures it again."""
    raw = tmp_path / "results" / "faults" / "raw" / f"{POINT}.jsonl"
    raw.write_text(raw.read_text()[:20])


def _digests(folder: Path) -> dict[str, str]:
    return {
        f.name: hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(folder.iterdir())
        if f.is_file()
    }


def _start(tmp_path: Path, script: str) -> subprocess.Popen[str]:
    """``script`` (sh) in a mount namespace of its own; it ends by running Snakemake."""
    cmd = [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path)]
    cmd += ["--configfile", str(tmp_path / "campaign.yaml")]
    cmd += ["--profile", str(ROOT / "profiles" / "local")]
    env = with_plugin(dict(os.environ, USER=os.environ.get("USER", "root")))
    with default_signals():
        return subprocess.Popen(
            [
                "unshare",
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                script,
                "sh",
                *cmd,
            ],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        )


def _one_line(out: str, reason: str, where: str) -> None:
    assert "Traceback" not in out and 'File "' not in out, out[-3000:]
    assert "Cannot restore" not in out, out[-3000:]
    lines = [
        ln for ln in out.splitlines() if ln.startswith("ciphersweep: cannot write")
    ]
    # one line per step that could not write (the tables and the history may be
    # written at the same time), each naming its place and the reason
    assert 1 <= len(lines) <= 2, out[-3000:]
    assert all(reason in ln for ln in lines), lines
    assert any(where in ln for ln in lines), lines


def test_full_disk_is_one_line_and_keeps_the_tables(tmp_path: Path) -> None:
    _, _ = _setup(tmp_path)
    tables = tmp_path / "results" / "faults" / "tables"
    before = _digests(tables)
    _damage(tmp_path)
    saved = tmp_path / "saved"
    shutil.copytree(tables, saved)
    after = tmp_path / "after"
    # a tmpfs over tables/ holding the same tables, then filled to the last byte
    script = (
        f"mount -t tmpfs -o size=256k tmpfs '{tables}' && cp -a '{saved}/.' '{tables}/'"
        f" && (dd if=/dev/zero of='{tables}/.fill' bs=4k 2>/dev/null; true)"
        f" && \"$@\"; rc=$?; rm -f '{tables}/.fill'; cp -a '{tables}' '{after}'; "
        "exit $rc"
    )
    proc = _start(tmp_path, script)
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode != 0, out[-3000:]
    _one_line(out, "No space left on device", "results/faults/tables")
    assert _digests(after) == before


def test_read_only_mid_run_is_one_line_and_keeps_the_tables(tmp_path: Path) -> None:
    _, kbin = _setup(tmp_path)
    tables = tmp_path / "results" / "faults" / "tables"
    before = _digests(tables)
    # the point runs again, held in progress until the directory is read-only
    started, release = kbin / "started", kbin / "release"
    real = kbin / "aes-seq.real"
    os.replace(kbin / "aes-seq", real)
    (kbin / "aes-seq").write_text(
        "#!/bin/sh\n"
        f'case "$*" in *--gen-input*) exec \'{real}\' "$@";; esac\n'
        f"touch '{started}'\n"
        f"while [ ! -e '{release}' ]; do sleep 0.05; done\n"
        f"exec '{real}' \"$@\"\n"
    )
    (kbin / "aes-seq").chmod(0o755)
    st = real.stat()
    os.utime(kbin / "aes-seq", ns=(st.st_atime_ns, st.st_mtime_ns))
    _damage(tmp_path)
    proc = _start(tmp_path, f"mount --bind '{tables}' '{tables}' && exec \"$@\"")
    deadline = time.monotonic() + 180
    while not started.exists():
        assert proc.poll() is None, proc.communicate()[0][-3000:]
        assert time.monotonic() < deadline, "the point never started"
        time.sleep(0.05)
    subprocess.run(
        ["nsenter", "-t", str(proc.pid), "-m", "mount", "-o", "remount,bind,ro"]
        + [str(tables)],
        check=True,
    )
    release.touch()
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode != 0, out[-3000:]
    _one_line(out, "read-only", "results/faults/tables/")
    assert _digests(tables) == before
    summary = (tmp_path / "results" / "faults" / "summary.csv").read_text()
    assert POINT in summary  # the point itself was measured and gathered
