"""Generated inputs are made by the bench job that first needs one
(ciphersweep.job.runner.ensure_input): with aes-seq, when the file or its digest is
missing; never over bytes already there; written whole, then put in place."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from ciphersweep.job import runner
from ciphersweep.job.spec import RunSpec
from ciphersweep.plan import fingerprint as cs_fp
from support import KERNELS, make_point

POINT = make_point("3000B", impl="ref", seed=7)


def _spec(tmp: Path, generator: list[str]) -> RunSpec:
    return RunSpec(
        campaign="c",
        input_path=str(tmp / "inputs" / "3000B.bin"),
        out_path=str(tmp / "raw" / "p.jsonl"),
        log_path=str(tmp / "logs" / "p.log"),
        generator=generator,
        generator_log=str(tmp / "logs" / "inputs" / "3000B.log"),
    )


def test_missing_input_is_generated_once_with_its_digest(tmp_path: Path) -> None:
    spec = _spec(tmp_path, [str(KERNELS / "aes-seq")])
    runner.ensure_input(POINT, spec)
    data = Path(spec.input_path)
    assert data.stat().st_size == 3000
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    assert cs_fp.read_digest(cs_fp.digest_file(data)) == digest
    assert "--seed 7" in Path(spec.generator_log).read_text()
    # nothing but the file and its digest is left beside it
    assert sorted(p.name for p in data.parent.iterdir()) == [
        "3000B.bin",
        "3000B.bin.sha256",
    ]
    # the same size and seed: the same bytes (another bench job, another run)
    data.unlink()
    runner.ensure_input(POINT, spec)
    assert hashlib.sha256(data.read_bytes()).hexdigest() == digest


def test_bytes_in_place_are_kept(tmp_path: Path) -> None:
    """Other bytes with their digest in place are measured as they are (the records
    say which; the point's input stamp re-measures it), never silently replaced."""
    spec = _spec(tmp_path, [str(KERNELS / "aes-seq")])
    data = Path(spec.input_path)
    data.parent.mkdir(parents=True)
    data.write_bytes(b"x" * 3000)
    cs_fp.write_digest(data)
    runner.ensure_input(POINT, spec)
    assert data.read_bytes() == b"x" * 3000
    # a user's own file (no generator) is never touched, even without a digest
    mine = _spec(tmp_path, [])
    Path(cs_fp.digest_file(data)).unlink()
    runner.ensure_input(POINT, mine)
    assert data.read_bytes() == b"x" * 3000


def test_a_failed_generator_leaves_nothing_half_written(tmp_path: Path) -> None:
    spec = _spec(tmp_path, ["false"])
    with pytest.raises(RuntimeError, match="false failed"):
        runner.ensure_input(POINT, spec)
    assert not list((tmp_path / "inputs").iterdir())
