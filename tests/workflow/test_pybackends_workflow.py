"""A small campaign of the Python-side kernels end to end: a generated file set, the
PyCryptodome runner (Blowfish with a 64-bit key), real `openssl enc` processes through
the command backend (single DES via the legacy provider), a program writing wrong bytes
(a failed point with its reason, a failed cell, no time), and a layout averaging over
the set."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from support import KERNELS, base_config, run_snakemake

ARGS = ["-K", "{key}", "-iv", "{iv}", "-in", "{input}", "-out", "{output}"]
LEGACY = ["openssl", "enc", "-provider", "legacy", "-provider", "default", "-{cipher}"]


def _campaign() -> dict:
    return base_config(
        campaign="py",
        sizes=[],
        inputs=[
            {"name": "texts", "generate": {"count": 2, "min": "20B", "max": "300B"}}
        ],
        ops=["encrypt", "decrypt"],
        reps=2,
        warmup=0,
        key_bits={"bf-cbc": [64]},
        backends={
            "pycryptodome": {"ciphers": ["bf-cbc"]},
            "command": {
                "programs": [
                    {
                        "name": "openssl-enc",
                        "ciphers": ["des-ofb"],
                        "encrypt": LEGACY + ["-e"] + ARGS,
                        "decrypt": LEGACY + ["-d"] + ARGS,
                    },
                    {
                        "name": "copy",
                        "ciphers": ["aes-128-ecb"],
                        "encrypt": ["cp", "{input}", "{output}"],
                        "decrypt": ["cp", "{input}", "{output}"],
                    },
                ]
            },
        },
        tables=[
            {
                "name": "set_speed",
                "value": "throughput",
                "unit": "B/s",
                "aggregate": "mean",
                "rows": ["label"],
                "columns": ["set"],
                "where": {"op": "encrypt"},
            }
        ],
        build={"dir": str(KERNELS)},
        platform={"energy": "none"},
    )


def test_python_kernels_campaign(tmp_path: Path) -> None:
    proc = run_snakemake(tmp_path, _campaign(), timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = tmp_path / "results" / "py"
    recs = {
        f.stem: [json.loads(x) for x in f.read_text().splitlines()]
        for f in (res / "raw").glob("*.jsonl")
    }
    assert len(recs) == 12  # 3 programs/ciphers x 2 files x 2 ops
    ok = recs["pycryptodome-bf-cbc-k64-enc-texts.001-r1-t1"]
    assert len(ok) == 2 and all(r["verified"] and r["key_bits"] == 64 for r in ok)
    des = recs["command-openssl-enc-des-ofb-dec-texts.002-r1-t1"]
    assert des[0]["status"] == "ok" and des[0]["verified"] is True
    assert "cpu_peak_pct" in des[0]  # sampled by the bench job (null if too short)
    bad = recs["command-copy-aes-128-ecb-enc-texts.001-r1-t1"]
    assert len(bad) == 1 and bad[0]["status"] == "failed" and bad[0]["t_total"] is None
    assert "verification FAILED" in bad[0]["reason"]
    table = pd.read_csv(res / "tables" / "set_speed.csv", index_col=0)
    assert table.loc["copy aes-128-ecb", "texts"] == "failed"
    speed = float(table.loc["pycryptodome bf-cbc (64-bit key)", "texts"])
    summ = pd.read_csv(res / "summary.csv").set_index("point")
    per_file = [
        summ.loc[f"pycryptodome-bf-cbc-k64-enc-texts.00{i}-r1-t1"] for i in (1, 2)
    ]
    mean = sum(r["bytes"] / r["t_total_median"] for r in per_file) / 2
    assert abs(speed - mean) <= 1e-6 * mean
    md = (res / "tables" / "set_speed.md").read_text()
    assert "mean over 2 inputs" in md and "verification FAILED" in md
