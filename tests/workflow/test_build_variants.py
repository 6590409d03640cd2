"""A campaign with compiler-flag variants: one build per variant, the user's -O level
is never replaced by the project's -O3, records say which build ran, and the binary
size table has one column per build."""

from __future__ import annotations

import json
from pathlib import Path

from support import base_config, run_snakemake


def test_variant_campaign_builds_and_labels_each_variant(tmp_path: Path) -> None:
    cfg = base_config(
        campaign="variants",
        sizes=["1KiB"],
        reps=2,
        warmup=1,
        backends={"seq": {"impls": ["ttable"]}},
        build={
            "dir": "build/k",
            "cmake_args": ["-DCS_WITH_LIKWID=OFF", "-DCS_WITH_CUDA=OFF"],
            "variants": [
                {"name": "O1", "cflags": "-O1"},
                {"name": "O2-native", "cflags": "-O2 -march=native"},
            ],
        },
        platform={"energy": "none"},
    )
    proc = run_snakemake(tmp_path, cfg, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = tmp_path / "results" / "variants"
    for variant, flags in (("O1", "-O1"), ("O2-native", "-O2 -march=native")):
        raw = res / "raw" / f"seq-ttable-ctr-enc-1KiB-r1-t1-v{variant}.jsonl"
        recs = [json.loads(x) for x in raw.read_text().splitlines()]
        assert len(recs) == 2
        for r in recs:
            assert r["status"] == "ok" and r["verified"] is True
            assert r["build_variant"] == variant
            assert r["cflags"].startswith(flags + " ")
            assert "-O3" not in r["cflags"].split()
        if "native" in flags:
            assert recs[0]["march_native"] not in (None, "", "native")
        else:
            assert recs[0]["march_native"] is None
        assert (tmp_path / "build" / "k" / "variants" / variant / "aes-seq").exists()
    assert not (tmp_path / "build" / "k" / "aes-seq").exists()
    sizes = (res / "tables" / "binary_size.csv").read_text().splitlines()
    assert sizes[0].split(",") == ["binary / object", "O1", "O2-native"]
    seq_row = next(r.split(",") for r in sizes if r.startswith("aes-seq,"))
    assert all(int(v) > 10_000 for v in seq_row[1:])
    time_md = (res / "tables" / "time.md").read_text()
    assert "seq [O1]" in time_md and "seq [O2-native]" in time_md
