"""The default campaign with ``platform.container.runtime: charliecloud`` end to end
through the workflow (local profile), in a scratch working directory. Every bench job
runs its kernel with ``ch-run IMAGE --``; every record carries the image's digest."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from imagetools import ROOT, stage_image

SNAKEMAKE = ROOT / ".venv" / "bin" / "snakemake"


def test_default_campaign_runs_in_charliecloud_image(
    cpu_image: Path, tmp_path: Path
) -> None:
    if not SNAKEMAKE.exists():
        pytest.fail("no .venv/bin/snakemake: run scripts/setup.sh test")
    campaign = "ch"
    res = tmp_path / "results" / campaign
    # The image is an output of the DAG (rule build_image); hand it the cached one so that
    # the test does not build it a second time.
    digest = stage_image(cpu_image, res)

    config = {
        "campaign": campaign,
        "sizes": ["1KiB", "64KiB"],
        "reps": 2,
        "platform": {
            "container": {"runtime": "charliecloud", "recipe": "cpu"},
            "energy": "none",
        },
    }
    cmd = [
        str(SNAKEMAKE),
        "-s",
        str(ROOT / "Snakefile"),
        "--directory",
        str(tmp_path),
        "--profile",
        str(ROOT / "profiles" / "local"),
        "--printshellcmds",  # Snakemake's per-job output: the rules that ran are named
        "--configfile",
        str(ROOT / "config" / "config.yaml"),
        "--config",
        *(f"{k}={json.dumps(v)}" for k, v in config.items()),
    ]
    env = dict(os.environ)
    env.setdefault("USER", "root")
    r = subprocess.run(
        cmd,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    log = r.stdout + r.stderr
    assert r.returncode == 0, log[-6000:]
    assert "rule build_image" not in log, "the cached image was rebuilt"

    raw = sorted((res / "raw").glob("*.jsonl"))
    assert raw, log[-3000:]
    backends = set()
    for f in raw:
        for line in f.read_text().splitlines():
            rec = json.loads(line)
            assert rec["status"] == "ok", (f.name, rec.get("reason"))
            assert rec["runtime"] == "charliecloud"
            assert rec["image_digest"] == f"sha256:{digest}"
            assert rec["launch_line"] and "ch-run" in rec["launch_line"]
            if rec["backend"] == "mpi":
                # the host launcher sits outside the container
                assert rec["launch_line"].index("mpirun") < rec["launch_line"].index(
                    "ch-run"
                )
            backends.add(rec["backend"])
    assert backends == {"seq", "omp", "mpi", "openssl"}
    for bench_log in (res / "logs").rglob("mpi-*.log"):
        text = bench_log.read_text()
        assert "ch-run" in text and "ORTE_ERROR_LOG" not in text, text
    assert (res / "measurements.csv").exists()
