"""likwid's Marker API is opened by the kernels only in marker mode (the variables
`likwid-perfctr -m` sets): a plain run does not load liblikwid at all (it cost every
kernel start about 7 ms of relocations when linked), a marker-mode run loads it and
calls likwid_markerInit. On this machine likwid has no access to the counters, so
likwid's own error says the marker API was reached; the kernel still measures."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from ciphersweep.job.energy import likwid

MARKER_MODE = {
    "LIKWID_MODE": "0",  # direct access: fails at once here, no access daemon wait
    "LIKWID_EVENTS": "PWR_PKG_ENERGY:PWR0",
    "LIKWID_THREADS": "0",
}


def _run(binary: Path, tmp_path: Path, env: dict[str, str]) -> tuple[str, Path]:
    out = tmp_path / "records.jsonl"
    proc = subprocess.run(
        [str(binary), "--impl", "ttable", "--mode", "ctr", "--op", "encrypt"]
        + ["--size", "4096B", "--reps", "3", "--warmup", "0", "--json", str(out)],
        env={**os.environ, "LD_DEBUG": "libs", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stderr, out


@pytest.fixture
def aes_seq(kernels: Path) -> Path:
    binary = kernels / "aes-seq"
    if not likwid.has_markers(binary):
        pytest.skip("kernels built without likwid (no likwid headers at build time)")
    return binary


def test_a_plain_run_never_loads_liblikwid(aes_seq: Path, tmp_path: Path) -> None:
    stderr, out = _run(aes_seq, tmp_path, {})
    assert "liblikwid" not in stderr
    assert len(out.read_text().splitlines()) == 3


def test_marker_mode_opens_liblikwid_and_calls_its_init(
    aes_seq: Path, tmp_path: Path
) -> None:
    env = {**MARKER_MODE, "LIKWID_FILEPATH": str(tmp_path / "markers.out")}
    stderr, out = _run(aes_seq, tmp_path, env)
    assert "liblikwid" in stderr  # loaded (LD_DEBUG=libs names it)
    assert "perfmon_init" in stderr  # likwid_markerInit ran, and said why it failed
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(records) == 3 and all(r["verified"] for r in records)
