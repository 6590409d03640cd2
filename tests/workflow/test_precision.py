"""A tiny campaign with a precision block: the kernels calibrate their repetitions, the
records say how many ran and why they stopped, gather admits that count, and the
summary and tables carry the intervals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from support import KERNELS, base_config, run_snakemake


def test_precision_campaign_records_variable_reps(tmp_path: Path) -> None:
    if not (KERNELS / "aes-seq").exists():
        pytest.fail("kernels not built (run scripts/build-kernels.sh build/kernels)")
    assert shutil.which("mpirun"), "mpirun not installed (apt: openmpi-bin)"
    cfg = base_config(
        campaign="prec",
        sizes=["1KiB", "1MiB"],
        reps=6,
        warmup=1,
        # 0.01% is out of reach: 1 KiB stops at max_reps, 1 MiB (ref) at max_seconds
        precision={"target": 0.0001, "max_reps": 40, "max_seconds": 0.3},
        backends={"seq": {"impls": ["ref"]}},
        build={"dir": str(KERNELS)},
        platform={"energy": "none"},
    )
    proc = run_snakemake(tmp_path, cfg, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = tmp_path / "results" / "prec"
    raw = {}
    for f in sorted((res / "raw").glob("*.jsonl")):
        raw[f.stem] = [json.loads(x) for x in f.read_text().splitlines() if x.strip()]
    small, big = raw["seq-ref-ctr-enc-1KiB-r1-t1"], raw["seq-ref-ctr-enc-1MiB-r1-t1"]
    assert len(small) == 40 and {r["reps_run"] for r in small} == {40}
    assert {r["stop_reason"] for r in small} == {"max_reps"}
    assert 6 <= len(big) < 40 and {r["reps_run"] for r in big} == {len(big)}
    assert {r["stop_reason"] for r in big} == {"max_seconds"}
    assert [r["rep"] for r in big] == list(range(len(big)))
    summ = pd.read_csv(res / "summary.csv").set_index("point")
    for pid, recs in raw.items():
        row = summ.loc[pid]
        ts = sorted(r["t_total"] for r in recs)
        assert row["status"] == "ok" and row["n"] == len(recs)
        assert row["t_total_ci_low"] <= row["t_total_median"] <= row["t_total_ci_high"]
        assert ts[0] <= row["t_total_ci_low"] and row["t_total_ci_high"] <= ts[-1]
        assert row["t_total_rel_hw"] == pytest.approx(
            (row["t_total_ci_high"] - row["t_total_ci_low"]) / 2 / row["t_total_median"]
        )
        # the kernel's own interval is the workflow's
        assert recs[0]["ci_rel_hw"] == pytest.approx(row["t_total_rel_hw"], rel=1e-5)
    time_md = (res / "tables" / "time.md").read_text()
    assert time_md.count("wider than the ±0.01% target") == 2
