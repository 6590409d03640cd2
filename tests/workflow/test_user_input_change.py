"""A user's input file replaced by other bytes re-measures its points in the same run,
also when the new file's modification time is older than the records or kept as it was (Snakemake by
itself re-runs a job only for a newer input)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from support import KERNELS, base_config, run_snakemake


def _campaign() -> dict:
    return base_config(
        campaign="user",
        sizes=[],
        inputs=[{"name": "msg", "path": "msg.bin"}],
        ops=["encrypt"],
        reps=2,
        warmup=0,
        backends={"pycryptodome": {"ciphers": ["aes-128-cbc"]}},
        platform={"energy": "none"},
        build={"dir": str(KERNELS)},
    )


# The campaign up to its gathered summary: the records are what these tests read.
SUMMARY = "results/user/summary.csv"


def _raw(workdir: Path) -> Path:
    (raw,) = (workdir / "results" / "user" / "raw").glob("pycryptodome-*.jsonl")
    return raw


def _digests(workdir: Path) -> set[str]:
    lines = _raw(workdir).read_text().splitlines()
    return {json.loads(line)["fingerprint"]["input_sha256"] for line in lines}


def test_replaced_file_with_an_older_time_is_measured_again(tmp_path: Path) -> None:
    msg = tmp_path / "msg.bin"
    first, second = os.urandom(4096), os.urandom(4096)
    msg.write_bytes(first)
    proc = run_snakemake(tmp_path, _campaign(), SUMMARY)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert _digests(tmp_path) == {hashlib.sha256(first).hexdigest()}
    raw_time = _raw(tmp_path).stat().st_mtime

    # the same size, other bytes, a time an hour before the records were written
    msg.write_bytes(second)
    os.utime(msg, (raw_time - 3600, raw_time - 3600))
    plan = run_snakemake(tmp_path, _campaign(), SUMMARY, "-n", "--verbose")
    assert plan.returncode == 0 and "rule bench" in plan.stdout, plan.stdout[-3000:]
    proc = run_snakemake(tmp_path, _campaign(), SUMMARY)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert _digests(tmp_path) == {hashlib.sha256(second).hexdigest()}

    # other bytes again, the modification time kept exactly (touch -r)
    kept = msg.stat()
    third = os.urandom(4096)
    msg.write_bytes(third)
    os.utime(msg, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    proc = run_snakemake(tmp_path, _campaign(), SUMMARY)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert _digests(tmp_path) == {hashlib.sha256(third).hexdigest()}

    # nothing changed since: nothing runs again
    again = run_snakemake(tmp_path, _campaign(), SUMMARY, "-n", "--verbose")
    assert again.returncode == 0 and "rule bench" not in again.stdout, again.stdout


def test_generated_input_replaced_with_its_time_kept_is_measured_again(
    tmp_path: Path,
) -> None:
    """A generated input (results/<campaign>/inputs) overwritten by other bytes with
    its modification time put back (touch -r): the points that read it are measured
    again in the same run, on the bytes now there, and say so in their records; before,
    the `.sha256` beside it was trusted for its newer time and nothing ran."""
    cfg = {**_campaign(), "sizes": ["4KiB"], "inputs": []}
    proc = run_snakemake(tmp_path, cfg, SUMMARY)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    data = tmp_path / "results" / "user" / "inputs" / "4KiB.bin"
    original = hashlib.sha256(data.read_bytes()).hexdigest()
    assert _digests(tmp_path) == {original}

    kept = data.stat()
    other = os.urandom(kept.st_size)
    data.write_bytes(other)
    os.utime(data, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    plan = run_snakemake(tmp_path, cfg, SUMMARY, "-n", "--verbose")
    assert plan.returncode == 0 and "rule bench" in plan.stdout, plan.stdout[-3000:]
    proc = run_snakemake(tmp_path, cfg, SUMMARY)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert _digests(tmp_path) == {hashlib.sha256(other).hexdigest()}
    summary = (tmp_path / "results" / "user" / "summary.csv").read_text()
    assert "failed" not in summary, summary

    # nothing changed since: nothing runs again
    again = run_snakemake(tmp_path, cfg, SUMMARY, "-n", "--verbose")
    assert again.returncode == 0 and "rule bench" not in again.stdout, again.stdout
