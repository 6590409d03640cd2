"""What changes a number changes its record, through whole runs: a kernel switch
(CIPHERSWEEP_DISABLE_IMPLS), OpenSSL's capability mask, the site's cmake arguments
(CIPHERSWEEP_CMAKE_ARGS) and another PyCryptodome first on PYTHONPATH each measure
exactly the points they affect again, in the same run; an irrelevant variable
(PYTHONHASHSEED) and a neutral cmake argument (a compiler launcher) measure nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import base_config, planned_points, run_snakemake

AUTO = "seq-auto-ctr-enc-1KiB-r1-t1"
TTABLE = "seq-ttable-ctr-enc-1KiB-r1-t1"
SSL = "openssl-aes-128-ctr-enc-1KiB-r1-t1"
PY = "pycryptodome-aes-128-ctr-enc-1KiB-r1-t1"
CFG = base_config(
    campaign="cp",
    sizes=["1KiB"],
    reps=2,
    warmup=0,
    backends={
        "seq": {"impls": ["auto", "ttable"]},
        "openssl": {"ciphers": ["aes-128-ctr"]},
        "pycryptodome": {"ciphers": ["aes-128-ctr"]},
    },
    build={"dir": "build/k", "cmake_args": ["-DCS_WITH_CUDA=OFF"]},
    platform={"energy": "none"},
)
SUMMARY = "results/cp/summary.csv"
DRY = ("-n", "--verbose")  # --verbose: the points to measure, one line each


def _run(workdir: Path, *args: str) -> str:
    proc = run_snakemake(workdir, CFG, SUMMARY, *args, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    return out


def _first(workdir: Path, pid: str) -> dict:
    raw = workdir / "results" / "cp" / "raw" / f"{pid}.jsonl"
    return json.loads(raw.read_text().splitlines()[0])


def _stub_crypto(tmp_path: Path) -> str:
    pkg = tmp_path / "other" / "Crypto"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text('__version__ = "3.20.0"\n')
    return str(pkg.parent)


def test_what_changes_a_number_measures_its_points_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "w"
    for var in (
        "CIPHERSWEEP_DISABLE_IMPLS",
        "OPENSSL_ia32cap",
        "CIPHERSWEEP_CMAKE_ARGS",
    ):
        monkeypatch.delenv(var, raising=False)
    _run(work)
    assert planned_points(_run(work, *DRY)) == []

    with monkeypatch.context() as m:
        m.setenv("CIPHERSWEEP_DISABLE_IMPLS", "vaes,vaes256,aesni")
        out = _run(work, *DRY)
        assert planned_points(out) == [AUTO], out[-3000:]
        assert "code_path_env CIPHERSWEEP_DISABLE_IMPLS unset, planned" in out
    with monkeypatch.context() as m:
        m.setenv("OPENSSL_ia32cap", "~0x200000200000000")
        assert planned_points(_run(work, *DRY)) == [SSL]
    with monkeypatch.context() as m:
        m.setenv("PYTHONHASHSEED", "3")
        m.setenv("CIPHERSWEEP_CMAKE_ARGS", "-DCMAKE_C_COMPILER_LAUNCHER=ccache")
        out = _run(work, *DRY)
        assert planned_points(out) == [] and "build_kernels" not in out
    with monkeypatch.context() as m:
        m.setenv("PYTHONPATH", _stub_crypto(tmp_path))
        out = _run(work, *DRY)
        assert planned_points(out) == [PY], out[-3000:]
        assert "planned PyCryptodome=3.20.0" in out

    # the site's cmake arguments: another build, its binaries' key, the native points
    # measured again (not the Python one), and the run without them builds again
    before = _first(work, PY)
    with monkeypatch.context() as m:
        m.setenv("CIPHERSWEEP_CMAKE_ARGS", "-DCMAKE_C_FLAGS=-O0")
        out = _run(work)
        info = json.loads((work / "build" / "k" / "build-info.json").read_text())
        assert info["cmake_args"] == ["-DCMAKE_C_FLAGS=-O0", "-DCS_WITH_CUDA=OFF"]
        rec = _first(work, TTABLE)
        assert rec["fingerprint"]["build_key"] == info["build_key"]
        assert rec["cflags"].startswith("-O0") and "-O3" not in rec["cflags"]
        assert "-DCMAKE_C_FLAGS=-O0" in rec["build_settings"]
        assert _first(work, PY) == before  # not measured again
    out = _run(work, *DRY)
    assert "build_kernels" in out
    assert planned_points(out) == sorted([AUTO, TTABLE, SSL]), out[-3000:]
