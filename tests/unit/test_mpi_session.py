"""A local MPI point's mpirun keeps its session files in a directory of its own, which
is gone when the point ends (job.runner._mpi_session)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from ciphersweep.job import runner
from ciphersweep.verdict import admission
from support import KERNELS, make_point, run_spec

pytestmark = pytest.mark.skipif(
    not (KERNELS / "aes-mpi").exists() or not shutil.which("mpirun"),
    reason="aes-mpi is built by the test command (scripts/test.sh)",
)


def test_a_local_mpi_point_runs_with_its_own_session_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OMPI_MCA_orte_tmpdir_base", raising=False)
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read $TMPDIR again
    point = make_point(backend="mpi", ranks=2, reps=2, size_bytes=4096)
    seen: list[tuple[str, list[str], float]] = []

    def run(argv: list[str], **kw) -> subprocess.CompletedProcess:
        base = kw["env"]["OMPI_MCA_orte_tmpdir_base"]
        os.utime(base, (0, 0))
        proc = subprocess.run(argv, check=False, **kw)
        # mpirun made its session directory in the base (its mtime moved) and removed it
        seen.append((base, sorted(os.listdir(base)), os.stat(base).st_mtime))
        return proc

    data = tmp_path / "in.bin"
    data.write_bytes(os.urandom(4096))
    spec = run_spec(tmp_path, point, data)
    result = runner.run_point(point, spec, runner=run)
    assert result["status"] == "ok", Path(spec.log_path).read_text()
    assert admission.judge(Path(spec.out_path), point).state == "ok"
    [(base, inside, mtime)] = seen
    # a fresh directory under $TMPDIR that mpirun used and emptied, removed with the
    # point
    assert Path(base).parent == tmp_path and Path(base).name.startswith("cs-mpi-")
    assert inside == [] and mtime > 0
    assert not Path(base).exists()
    seq = make_point(reps=2, size_bytes=4096)
    seen.clear()
    spec.out_path = str(tmp_path / "raw" / f"{seq.id}.jsonl")

    def run_seq(argv: list[str], **kw) -> subprocess.CompletedProcess:
        seen.append(("OMPI_MCA_orte_tmpdir_base" in kw["env"], [], 0.0))
        return subprocess.run(argv, check=False, **kw)

    assert runner.run_point(seq, spec, runner=run_seq)["status"] == "ok"
    assert seen == [(False, [], 0.0)]
