"""What a cell says is what was measured, through whole runs: records carry the build
key of the build the workflow made; a change of the build settings re-measures the
affected point in the same run, and a removed flag does not live on in the CMake
cache; campaigns that share a build directory with other backends do not rebuild each
other's binaries, and --forcerun is honoured; a damaged raw file is measured again
once, and the next run has nothing to do."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from support import KERNELS, base_config, run_snakemake

SEQ = "seq-ttable-ctr-enc-1KiB-r1-t1"
SSL = "openssl-aes-128-ctr-enc-1KiB-r1-t1"


def _cfg(campaign: str, backends: dict, **over) -> dict:
    return base_config(
        campaign=campaign,
        sizes=["1KiB"],
        reps=2,
        warmup=0,
        backends=backends,
        platform={"energy": "none"},
        **over,
    )


def _run(workdir: Path, cfg: dict, *args: str) -> str:
    """The campaign up to its gathered summary (what these tests read; its tables,
    plots and report are other tests' business)."""
    summary = f"results/{cfg['campaign']}/summary.csv"
    proc = run_snakemake(workdir, cfg, summary, *args, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    return out


def _fingerprints(workdir: Path, campaign: str, pid: str) -> list[dict]:
    raw = workdir / "results" / campaign / "raw" / f"{pid}.jsonl"
    return [json.loads(line)["fingerprint"] for line in raw.read_text().splitlines()]


# The builds of these campaigns: a build tree of their own, no CUDA compiler looked for
# (no CUDA point; a quicker configure), and any other cmake arguments of a test.
def _build(*cmake_args: str) -> dict:
    return {"dir": "build/k", "cmake_args": ["-DCS_WITH_CUDA=OFF", *cmake_args]}


def _key(workdir: Path) -> str:
    return json.loads((workdir / "build" / "k" / "build-info.json").read_text())[
        "build_key"
    ]


def test_build_changes_remeasure_in_the_same_run(tmp_path: Path) -> None:
    seq = {"seq": {"impls": ["ttable"]}}
    both = {**seq, "openssl": {"ciphers": ["aes-128-ctr"]}}
    a = _cfg("a", seq, build=_build())
    _run(tmp_path, a)
    first = _key(tmp_path)
    assert first.startswith("sha256:")
    assert {f["build_key"] for f in _fingerprints(tmp_path, "a", SEQ)} == {first}

    # another campaign, other backends, the same build tree
    _run(tmp_path, _cfg("b", both, build=_build()))
    plan = _run(tmp_path, a, "-n")
    assert "build_kernels" not in plan, plan[-3000:]
    summary = tmp_path / "results" / "a" / "measurements.csv"
    before = summary.stat().st_mtime_ns
    _run(tmp_path, a, "--forcerun", "gather")
    assert summary.stat().st_mtime_ns != before

    # other flags: rebuilt, and the point measured again in this run
    o1 = _cfg("a", seq, build=_build("-DCMAKE_C_FLAGS=-O1"))
    _run(tmp_path, o1)
    second = _key(tmp_path)
    assert second != first
    fps = _fingerprints(tmp_path, "a", SEQ)
    assert {f["build_key"] for f in fps} == {second}
    assert all("-O1" in f["cflags"] for f in fps)
    assert _run(tmp_path, o1, "-n").count("rule bench") == 0

    # the flag removed: not kept by the CMake cache, re-measured in this run
    _run(tmp_path, a)
    fps = _fingerprints(tmp_path, "a", SEQ)
    assert {f["build_key"] for f in fps} == {_key(tmp_path)} != {second}
    assert all("-O1" not in f["cflags"] and "-O3" in f["cflags"] for f in fps)
    rows = pd.read_csv(tmp_path / "results" / "a" / "summary.csv")
    assert list(rows["status"]) == ["ok"]


def test_damaged_raw_file_is_measured_again_once(tmp_path: Path) -> None:
    kbin = tmp_path / "kbin"
    kbin.mkdir()
    for name in ("aes-seq", "aes-openssl"):
        if not (KERNELS / name).exists():
            pytest.fail(
                "kernels not built (run scripts/build-kernels.sh build/kernels)"
            )
        shutil.copy(KERNELS / name, kbin / name)
    backends = {"seq": {"impls": ["ttable"]}, "openssl": {"ciphers": ["aes-128-ctr"]}}
    a = _cfg("a", backends, build={"dir": str(kbin)})
    _run(tmp_path, a)
    raw = tmp_path / "results" / "a" / "raw" / f"{SEQ}.jsonl"
    raw.write_bytes(raw.read_bytes()[:100])
    _run(tmp_path, _cfg("b", backends, build={"dir": str(kbin)}))
    out = _run(tmp_path, a)
    assert "1 failed, damaged or changed point(s) run again" in out
    assert len(_fingerprints(tmp_path, "a", SEQ)) == 2
    rows = pd.read_csv(tmp_path / "results" / "a" / "summary.csv")
    assert set(rows["status"]) == {"ok"}
    # nothing left to do, and no point announced as running again
    again = _run(tmp_path, a)
    assert "run again" not in again
    assert "rule bench" not in _run(tmp_path, a, "-n")
