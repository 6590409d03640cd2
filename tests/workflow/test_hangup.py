"""A closed terminal: Snakemake runs on a pseudo-terminal of its own (its controlling
terminal), a point is held in progress, and the terminal is closed. The kernel sends
SIGHUP to Snakemake, its session leader; Snakemake passes it on to the held kernel,
which stops at once (an interrupted point, not one run on to its time limit); the run
ends as after Ctrl-C, leaves no lock, and the same command then finishes the
campaign."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import termios
import threading
import time

import pandas as pd
import pytest
import yaml
from support import ROOT, SNAKEMAKE, default_signals, run_snakemake, with_plugin
from test_integrity import SSL, _cfg, _hold, _kernels, _unhold


def _take_terminal() -> None:
    """In the child, after setsid: the pty on stdin becomes its controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _drain(fd: int, out: list[bytes], stop: threading.Event) -> None:
    """Read the terminal until told to stop. It never blocks in a read: an fd closed
    while another thread reads it is released (and the terminal hung up) only when that
    read returns, that is when Snakemake next prints."""
    while not stop.is_set():
        if not select.select([fd], [], [], 0.05)[0]:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return
        if not chunk:
            return
        out.append(chunk)


def test_closed_terminal_ends_the_run_and_the_same_command_continues(
    tmp_path,
) -> None:
    kbin = _kernels(tmp_path)
    cfg = _cfg(kbin)
    started, release = _hold(kbin, "aes-openssl")
    (tmp_path / "campaign.yaml").write_text(yaml.safe_dump(cfg))
    cmd = [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path)]
    cmd += ["--configfile", str(tmp_path / "campaign.yaml")]
    cmd += ["--profile", str(ROOT / "profiles" / "local")]
    master, slave = pty.openpty()
    env = with_plugin(dict(os.environ, USER=os.environ.get("USER", "root")))
    with default_signals():
        proc = subprocess.Popen(
            cmd,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=tmp_path,
            env=env,
            start_new_session=True,
            preexec_fn=_take_terminal,  # noqa: PLW1509 - only an ioctl, no threads used
        )
    os.close(slave)
    out: list[bytes] = []
    stop = threading.Event()
    reader = threading.Thread(target=_drain, args=(master, out, stop), daemon=True)
    reader.start()
    deadline = time.monotonic() + 180
    while not started.exists():
        assert proc.poll() is None, b"".join(out).decode(errors="replace")[-3000:]
        assert time.monotonic() < deadline, "the point never started"
        time.sleep(0.05)
    stop.set()
    reader.join(timeout=30)
    os.close(master)  # the terminal goes away: SIGHUP, now
    try:
        rc = proc.wait(timeout=300)
    finally:
        release.touch()
    assert rc != 0
    assert not list((tmp_path / ".snakemake" / "locks").glob("*"))
    # the hang-up reached the held kernel: it stopped at once, an interrupted point
    # (no record), not one that ran on to its time limit and failed
    log = (tmp_path / "results" / "trust" / "logs" / "bench" / f"{SSL}.log").read_text()
    assert "INTERRUPTED: the kernel was stopped by SIGHUP" in log, log
    assert not (tmp_path / "results" / "trust" / "raw" / f"{SSL}.jsonl").exists()
    _unhold(kbin, "aes-openssl")
    again = run_snakemake(tmp_path, cfg)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "IncompleteFilesException" not in again.stderr
    summary = pd.read_csv(tmp_path / "results" / "trust" / "summary.csv")
    row = summary.set_index("point").loc[SSL]
    assert row["status"] == "ok" and row["n"] == 2


pytestmark = pytest.mark.skipif(
    not hasattr(termios, "TIOCSCTTY"), reason="no TIOCSCTTY"
)
