"""A campaign whose kernels are built again first measures its points in the same run.

The build's only link to what lies below it used to be the input generator read as
ancient: Snakemake looks at the jobs below a job that runs only through their plain
inputs, so a fresh campaign whose build ran again ran the build alone and said it had
finished. Now the bench jobs make their generated inputs and read the generator as a
plain input while a point of theirs is to be measured."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from support import base_config, run_snakemake


def test_a_campaign_that_builds_again_first_measures_its_points(
    tmp_path: Path,
) -> None:
    """Binaries older than their sources (another checkout's build, a clock that
    moved): the build runs again, and the new campaign's points are measured after it
    in the same run, not left out with "finished"."""
    cfg = base_config(
        campaign="fresh",
        sizes=["1KiB"],
        reps=2,
        warmup=0,
        # a Python-side backend: its packs need the build only for the input generator
        backends={"pycryptodome": {"ciphers": ["aes-128-ctr"]}},
        build={
            "dir": "build/fresh",
            "cmake_args": ["-DCS_WITH_LIKWID=OFF", "-DCS_WITH_CUDA=OFF"],
        },
        platform={"energy": "none"},
        history={"enabled": False},
    )
    first = tmp_path / "first"
    proc = run_snakemake(first, cfg, "build/fresh/aes-seq", timeout=600)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    work = tmp_path / "work"
    shutil.copytree(first / "build", work / "build", symlinks=True)
    for f in (work / "build" / "fresh").rglob("*"):  # older than every source
        os.utime(f, (1, 1), follow_symlinks=False)
    proc = run_snakemake(work, cfg, "results/fresh/summary.csv", timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    raw = sorted((work / "results" / "fresh" / "raw").glob("*.jsonl"))
    assert [f.name for f in raw] == ["pycryptodome-aes-128-ctr-enc-1KiB-r1-t1.jsonl"]
    data = work / "results" / "fresh" / "inputs" / "1KiB.bin"
    assert data.stat().st_size == 1024
    assert "points measured: 1 of 1" in out, out[-3000:]
