"""A pack's bench job: which of its points it measures (pending ones; all of them when
Snakemake was told to run it and nothing is pending), real kernels run one after
another, and the points that hold keep their records byte for byte."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from ciphersweep.job import packs
from ciphersweep.plan import fingerprint as cs_fp
from ciphersweep.verdict import admission, records
from support import KERNELS, make_point, run_spec


def _raw(path: Path, **fields: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"status": "ok", **fields}) + "\n")
    return path


def test_pending_names_why_a_point_is_measured(tmp_path: Path) -> None:
    data = tmp_path / "in.bin"
    data.write_bytes(b"x" * 16)
    raw = tmp_path / "raw" / "p.jsonl"
    assert admission.pending(raw, None, lambda: "k1", [str(data)]) == "no records yet"
    _raw(raw, plan_key="k1")
    os.utime(data, ns=(1, 1))  # the input older than the records
    assert admission.pending(raw, None, lambda: "k1", [str(data)]) is None
    assert admission.pending(raw, "failed: exit 1", lambda: "k1", [str(data)]) == (
        "failed: exit 1"
    )
    assert "other parameters" in admission.pending(raw, None, lambda: "k2", [str(data)])
    st = raw.stat()
    os.utime(data, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # a newer input
    assert admission.pending(raw, None, lambda: "k1", [str(data)]) == (
        f"{data} is newer than {raw}"
    )
    # records from before plan keys: judged by the rest alone
    _raw(raw)
    os.utime(data, ns=(1, 1))
    assert admission.pending(raw, None, lambda: "k2", [str(data)]) is None


def test_plan_key_follows_the_point_the_input_stamp_and_the_build() -> None:
    a = make_point(size="1KiB").as_dict()
    key = cs_fp.plan_key(a, None, "b1")
    assert key == cs_fp.plan_key(dict(a), None, "b1")
    b = make_point(size="1KiB", reps=9).as_dict()
    assert len({key, cs_fp.plan_key(b, None, "b1"), cs_fp.plan_key(a, "1:2:3", "b1"),
                cs_fp.plan_key(a, None, "b2"),
                cs_fp.plan_key(a, None, "b1", {"mpirun_args": ["-x"]})}) == 5  # fmt: skip


def _members(tmp_path: Path, whys: list[str | None]) -> list[packs.Member]:
    out = []
    for k, why in enumerate(whys):
        p = make_point(size=f"{k + 1}KiB")
        out.append(packs.Member(p, run_spec(tmp_path, p, tmp_path / "in.bin"), why))
    return out


def test_chosen_measures_the_pending_points_or_all_when_forced(tmp_path: Path) -> None:
    listing = tmp_path / "packs" / "pack-x-1.txt"
    listing.parent.mkdir()
    members = _members(tmp_path, [None, "no records yet", None])
    assert [(m.point.id, w) for m, w in packs.chosen(members, listing)] == [
        (members[1].point.id, "no records yet")
    ]
    held = _members(tmp_path, [None, None, None])
    assert packs.chosen(held, listing) == []  # no list yet: a new pack, all held
    packs.write_members(listing, [m.point.id for m in held])
    forced = packs.chosen(held, listing)  # run with nothing pending, same list
    assert [m for m, _ in forced] == held and {w for _, w in forced} == {packs.FORCED}
    packs.write_members(listing, [m.point.id for m in held[:2]])
    assert packs.chosen(held, listing) == []  # the pack changed: nothing forced


def test_run_pack_measures_pending_points_and_keeps_the_others(tmp_path: Path) -> None:
    if not (KERNELS / "aes-seq").exists():
        pytest.fail(f"no kernels in {KERNELS}: scripts/build-kernels.sh builds them")
    data = tmp_path / "in.bin"
    data.write_bytes(os.urandom(4096))
    points = [
        make_point(size="4KiB", impl=impl, reps=2, warmup=0, mode=mode)
        for impl, mode in (("ttable", "ctr"), ("ref", "ecb"), ("ttable", "ecb"))
    ]
    specs = [
        run_spec(tmp_path, p, data, plan_key=f"key{k}") for k, p in enumerate(points)
    ]
    kept = _raw(Path(specs[0].out_path), plan_key="key0", note="kept")
    before = kept.read_bytes()
    pack = [
        packs.Member(points[0], specs[0], None),
        packs.Member(points[1], specs[1], "no records yet"),
        packs.Member(points[2], specs[2], "no records yet"),
    ]
    seen: list[tuple[str, str]] = []
    listing, log = tmp_path / "packs" / "p.txt", tmp_path / "logs" / "p.log"
    listing.parent.mkdir()
    log.parent.mkdir()
    packs.run_pack(pack, listing, log, lambda pid, s: seen.append((pid, s["status"])))
    assert seen == [(points[1].id, "ok"), (points[2].id, "ok")]  # in the pack's order
    assert kept.read_bytes() == before
    for p, s in zip(points[1:], specs[1:]):
        recs = [json.loads(x) for x in Path(s.out_path).read_text().splitlines()]
        assert len(recs) == 2 and {r["status"] for r in recs} == {"ok"}
        assert {r["plan_key"] for r in recs} == {s.plan_key} and recs[0][
            "point"
        ] == p.id
    assert listing.read_text().split() == [p.id for p in points]
    text = log.read_text()
    assert text.splitlines()[0] == "p: 2 of 3 point(s) to measure"
    assert f"{points[1].id}: no records yet" in text and points[0].id not in text


def test_a_lost_raw_file_gets_a_token_of_its_own(tmp_path: Path) -> None:
    raw = tmp_path / "raw" / "seq-1KiB.jsonl"
    assert admission.lost(raw, None, 0) is None  # no pack list: never measured
    assert admission.lost(raw, ["other"], 5) is None  # not in its pack's list
    assert admission.lost(raw, ["seq-1KiB", "other"], 5) == "lost 5"
    assert admission.lost(raw, ["seq-1KiB"], 6) != admission.lost(raw, ["seq-1KiB"], 5)
    _raw(raw)
    assert admission.lost(raw, ["seq-1KiB"], 5) is None  # it has its file


def test_a_lost_raw_file_whose_pack_list_is_gone_is_told_by_the_summary(
    tmp_path: Path,
) -> None:
    raw = tmp_path / "seq-1KiB.jsonl"
    summary = tmp_path / "summary.csv"
    summary.write_text("point,status,n\nseq-1KiB,ok,5\nother,failed,0\n")
    gathered = records.summarized_points(summary)
    assert gathered == {"seq-1KiB", "other"}
    assert admission.lost(raw, None, 0, gathered, 7) == "lost 7"
    assert admission.lost(raw, ["x"], 5, gathered, 7) == "lost 7"  # moved packs
    assert admission.lost(raw, ["seq-1KiB"], 5, gathered, 7) == "lost 5"  # list first
    assert admission.lost(raw, None, 0, {"other"}, 7) is None  # never measured
    raw.write_text("{}\n")
    assert admission.lost(raw, None, 0, gathered, 7) is None  # it has its file


def test_a_point_left_to_measure_gets_the_time_of_its_pack_list() -> None:
    """A point whose records do not hold carries the time its pack's list was last
    written: a run that recorded the pack's parameters without measuring it (--touch,
    an interrupted bench job, which both give the list a new time) leaves it to be
    measured by the same command; once measured it keeps the token its records
    carry, so nothing runs twice."""
    assert admission.attempt("first", None, 5) == "first"  # its records hold
    planned = admission.attempt("rerun ab12", "damaged: 3 of 4 repetitions", 5)
    assert planned == "rerun ab12 @5"
    assert admission.attempt("rerun ab12", "damaged: 3 of 4 repetitions", 6) != planned
    # measured: its records carry the planned token, which then holds as it is
    assert admission.attempt(planned, None, 6) == planned


def test_a_pack_removes_what_a_killed_bench_job_left_of_its_points(
    tmp_path: Path,
) -> None:
    """A bench job killed outright (SIGKILL, a lost node) leaves a kernel's records
    file, an aes-command's scratch folder or a raw file's temporary copy; the pack's
    next job removes them, also of its points that hold (nothing else would)."""
    listing, log = tmp_path / "packs" / "p.txt", tmp_path / "logs" / "p.log"
    listing.parent.mkdir()
    log.parent.mkdir()
    members = _members(tmp_path, [None, None])
    left = []
    for m in members:
        out = Path(m.spec.out_path)
        _raw(out, note="kept")
        left += [
            Path(f"{out}.kernel.tmp"),
            out.with_name(f".{out.stem}.999999.tmp{out.suffix}"),
        ]
        scratch = Path(f"{out}.kernel.tmp.d")
        scratch.mkdir()
        (scratch / "part").write_text("x")
        left.append(scratch)
    for f in left:
        if not f.exists():
            f.write_text("half")
    kept = {m.point.id: Path(m.spec.out_path).read_bytes() for m in members}
    packs.run_pack(members, listing, log, lambda pid, s: None)
    assert [f for f in left if f.exists()] == []
    assert {m.point.id: Path(m.spec.out_path).read_bytes() for m in members} == kept
