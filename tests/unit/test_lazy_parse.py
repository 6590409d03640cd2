"""What parsing the workflow reads: the raw records are read and judged when the DAG
asks for them (a dry run, a run), never for a listing of the rules, and reading them
changes nothing."""

from __future__ import annotations

from pathlib import Path

from ciphersweep.plan import config as cs_config
from ciphersweep.plan import sweep
from support import ROOT, base_config, run_snakemake


def test_records_are_read_for_the_dag_only(tmp_path: Path) -> None:
    cfg = base_config()
    pid = sweep.expand(cs_config.validate(cfg, root=ROOT, workdir=tmp_path))[0].id
    raw = tmp_path / "results" / cfg["campaign"] / "raw" / f"{pid}.jsonl"
    raw.parent.mkdir(parents=True)
    raw.write_bytes(b'{"not": "a record"\n')
    listed = run_snakemake(tmp_path, cfg, "--list")
    out = listed.stdout + listed.stderr
    assert listed.returncode == 0, out[-2000:]
    assert "bench" in out and "run again" not in out
    dry = run_snakemake(tmp_path, cfg, "-n")
    out = dry.stdout + dry.stderr
    assert dry.returncode == 0, out[-2000:]
    assert f"1 failed, damaged or changed point(s) run again: {pid}" in out
    assert raw.read_bytes() == b'{"not": "a record"\n'
