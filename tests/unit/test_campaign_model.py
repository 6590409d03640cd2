"""The campaign object (ciphersweep.campaign.model.Campaign) outside Snakemake: built
from a validated config, it names the files, the packs, what each point expects, which
points run and why, and what the run makes; nothing is read before it is asked."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from ciphersweep.campaign import model
from ciphersweep.core import digest, paths
from ciphersweep.plan import config as cs_config
from ciphersweep.verdict import admission
from support import KERNELS, ROOT, base_config


def _campaign(
    tmp: Path, said: list | None = None, main: bool = True, **over: Any
) -> model.Campaign:
    cfg = cs_config.validate(
        base_config(build={"dir": str(KERNELS)}, **over), root=ROOT, workdir=tmp
    )
    place = model.Place(ROOT, tmp, dict(os.environ), sys.executable)

    def say(level: str, message: str, extra: dict) -> None:
        if said is not None:
            said.append((level, message, extra))

    return model.Campaign(cfg, place, say=say, main=main)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # the campaign's results are relative to it
    return tmp_path


def test_files_packs_and_targets(here: Path) -> None:
    c = _campaign(here)
    assert len(c.point_list) == 2 * 5  # 2 sizes x (seq, omp, mpi 1 and 2, openssl)
    assert c.raw_files == [f"results/t/raw/{p}.jsonl" for p in c.points]
    assert sorted(c.pack_of) == sorted(c.points)
    assert c.pack_files == [f"results/t/packs/{n}.txt" for n in c.packs]
    every = c.targets()
    assert "results/t/report.html" in every and "results/t/measurements.csv" in every
    assert "results/t/tables/speedup.csv" in every
    assert set(c.plot_files()) <= set(every)
    # every file a step writes is a target: one that goes missing is made again
    for name in ("measurements.parquet", "failures.csv", "summary.csv"):
        assert f"results/t/{name}" in every, name
    assert set(c.plot_files("pdf") + c.plot_files("svg")) <= set(every)
    assert c.size_files() and set(c.size_files()) <= set(every)
    assert c.history_marker in every  # history on by default
    assert c.native_backends == ["mpi", "omp", "openssl", "seq"]
    assert c.image is None and c.image_file.endswith("images/cpu.sqfs")
    assert not (here / "results").exists()  # nothing written, nothing read


def test_a_new_campaign_measures_every_point_and_says_so(here: Path) -> None:
    said: list = []
    c = _campaign(here, said)
    assert all(c.pending(p) == admission.NO_RECORDS for p in c.points)
    token = c.judged()
    assert token == c.judged() and len(token) == 64  # kept: judged and said once
    counts = [x for x in said if x[2].get("ciphersweep") == "plan"]
    assert counts == [
        ("info", "ciphersweep: 10 benchmark points to measure", counts[0][2])
    ]
    assert counts[0][2]["points"] == 10
    # a line per point (the --verbose list), in one record
    (pending,) = [x for x in said if x[2].get("ciphersweep") == "pending"]
    lines = pending[1].splitlines()
    assert sorted(lines) == sorted(
        f"ciphersweep: to measure: {p} ({admission.NO_RECORDS})" for p in c.points
    )


def test_pack_inputs_plain_while_points_run_and_the_generator(here: Path) -> None:
    c = _campaign(here)
    pack = c.pack_of[next(p for p in c.points if p.startswith("seq"))]
    plain, aged = c.pack_inputs(pack)
    # nothing measured yet: the input generator is a plain input (the pack runs when
    # a build runs above it); each point's binary is compared by its fingerprint
    assert c.generator_binary() in plain
    binaries = {c.kernel_binary(c.points[p].backend) for p in c.packs[pack]}
    assert binaries - {c.generator_binary()} <= set(aged)
    assert not any(f.startswith("results/t/inputs/") for f in plain)  # made by the job
    spec = c.run_spec(c.points[c.packs[pack][0]])
    assert spec.generator and spec.generator[-1].endswith("aes-seq")
    assert spec.input_path.startswith("results/t/inputs/")
    assert spec.attempt == c.attempt(c.packs[pack][0])
    with pytest.raises(KeyError):
        c.pack_inputs("no-such-pack")


def test_a_raw_file_removed_after_its_pack_listed_it_runs_again(here: Path) -> None:
    c = _campaign(here)
    pid = next(iter(c.points))
    listing = here / c.pack_file(c.pack_of[pid])
    listing.parent.mkdir(parents=True)
    listing.write_text("".join(f"{p}\n" for p in c.packs[c.pack_of[pid]]))
    token, why = c.replan(pid)
    assert why is not None and "its records are gone" in why
    assert token == f"lost {listing.stat().st_mtime_ns}"
    assert c.pending(pid) == why
    # a point its pack never listed is new, not lost
    other = next(p for p in c.points if c.pack_of[p] != c.pack_of[pid])
    assert c.replan(other)[1] is None


def test_the_run_lists_the_raw_folder_once_and_judges_as_a_job_does(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run process plans every point: it lists the raw folder once instead of
    looking up each point's file, and finds what a job process (which looks up its
    pack's files one by one) finds: records damaged, records gone after their pack
    listed them, never measured."""
    run = _campaign(here)
    pids = list(run.points)
    damaged, gone = (
        pids[0],
        next(p for p in pids if run.pack_of[p] != run.pack_of[pids[0]]),
    )
    raw = here / run.raw_file(damaged)
    raw.parent.mkdir(parents=True)
    raw.write_text("not a record\n")
    listing = here / run.pack_file(run.pack_of[gone])
    listing.parent.mkdir(parents=True)
    listing.write_text("".join(f"{p}\n" for p in run.packs[run.pack_of[gone]]))
    looked_up: list[str] = []
    exists = os.path.exists

    def counted(path: Any) -> bool:
        looked_up.append(os.fspath(path))
        return exists(path)

    monkeypatch.setattr(os.path, "exists", counted)
    planned = {p: (run.replan(p), run.pending(p)) for p in pids}
    # one listing; a file is looked up only where a list says it was measured
    listed = {run.raw_file(p) for p in run.packs[run.pack_of[gone]]}
    assert {f for f in looked_up if "/raw/" in f} <= listed
    assert run.raw_listing() == {f"{damaged}.jsonl"}
    job = _campaign(here, main=False)
    assert job.raw_listing() is None
    assert {p: (job.replan(p), job.pending(p)) for p in pids} == planned
    assert planned[damaged][1] is not None and planned[gone][1] is not None
    assert "its records are gone" in planned[gone][1]
    fresh = [p for p in pids if run.pack_of[p] != run.pack_of[gone] and p != damaged]
    assert fresh and all(
        planned[p] == ((admission.FIRST, None), admission.NO_RECORDS) for p in fresh
    )


def test_a_users_file_has_no_generator_and_a_stamp(here: Path) -> None:
    (here / "msg.bin").write_bytes(b"m" * 100)
    c = _campaign(here, sizes=[], inputs=[{"name": "msg", "path": "msg.bin"}])
    point = c.point_list[0]
    assert c.generated_input(point) is None
    assert c.run_spec(point).generator == []
    st = os.stat(here / "msg.bin")
    assert c.input_stamp(point) == f"100:{st.st_mtime_ns}:{st.st_ctime_ns}"


def test_the_code_that_admits_records_keys_gather(here: Path) -> None:
    """gather's `judge_code` parameter hashes the files that admit records (a fix
    there re-judges the raw files already in place)."""
    c = _campaign(here)
    files = [str(f) for f in paths.verdict_sources()]
    assert c.judge_code() == digest.files_digest(files, root=ROOT)


def test_expected_fingerprint_of_a_native_point(here: Path) -> None:
    c = _campaign(here)
    pid = next(p for p in c.points if p.startswith("seq"))
    exp = c.expected(pid)
    assert exp.binary == f"{KERNELS}/aes-seq"
    assert exp.input_path == f"results/t/inputs/{c.points[pid].input_name}.bin"
    assert exp.input_digest == exp.input_path + ".sha256"
    info = KERNELS / "build-info.json"
    if info.exists() and json.loads(info.read_text()).get("build_key"):
        assert exp.build_key == c.kernel_digest("")
    else:  # built by the build script alone: no key to compare
        assert exp.build_key is None


def test_verdict_lines_without_a_comparison(here: Path, tmp_path: Path) -> None:
    c = _campaign(here)
    assert c.reference_warnings(str(tmp_path / "none.csv")) == []
    assert not c.reference_check and c.compare_files == []


def test_a_change_to_the_kernels_tests_keeps_their_build_key(here: Path) -> None:
    """The build key (every native point's: a new one re-measures them all) follows
    what builds the kernels: a change to a kernel's source or to a CMake file, the
    tests' own included, changes it; one to a test's source, script or data does not."""
    project = here / "project"
    files = {
        "kernels/CMakeLists.txt": "project(k)\n",
        "kernels/src/aes_seq.c": "int a;\n",
        "kernels/tests/CMakeLists.txt": "add_test()\n",
        "kernels/tests/cross.cmake": "set(X 1)\n",
        "kernels/tests/test_vectors.c": "int t;\n",
        "kernels/tests/crosscheck.py": "x = 1\n",
        "kernels/tests/data/kat.txt": "00\n",
        "scripts/build-kernels.sh": "#!/bin/sh\n",
    }
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    cfg = cs_config.validate(
        base_config(build={"dir": str(KERNELS)}), root=ROOT, workdir=here
    )

    def key() -> str | None:
        place = model.Place(project, here, dict(os.environ), sys.executable)
        return model.Campaign(cfg, place, say=lambda *a: None).kernel_digest()

    first = key()
    assert first
    for rel in (
        "kernels/tests/test_vectors.c",
        "kernels/tests/crosscheck.py",
        "kernels/tests/data/kat.txt",
    ):
        (project / rel).write_text("changed\n")
        assert key() == first, rel
    for rel in (
        "kernels/src/aes_seq.c",
        "kernels/CMakeLists.txt",
        "kernels/tests/CMakeLists.txt",
        "kernels/tests/cross.cmake",
    ):
        before = key()
        (project / rel).write_text("changed\n")
        assert key() != before, rel
