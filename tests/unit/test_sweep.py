"""Sweep expansion, resources and packing."""

from __future__ import annotations

from pathlib import Path

import yaml
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import resources, sweep
from support import ROOT, base_config, make_point


def _points(cfg: dict) -> list[sweep.Point]:
    return sweep.expand(cs_config.validate(cfg, root=ROOT, workdir=ROOT))


def test_expansion_counts_and_ids() -> None:
    pts = _points(base_config())
    # 2 sizes x (seq 1 + omp 1 + mpi 2 + openssl 1)
    assert len(pts) == 10
    ids = {p.id for p in pts}
    assert len(ids) == 10
    assert "seq-ttable-ctr-enc-1KiB-r1-t1" in ids
    assert "omp-ttable-ctr-enc-64KiB-r1-t2" in ids
    assert "mpi-ttable-ctr-enc-1KiB-r2-t1" in ids
    assert "openssl-aes-128-ctr-enc-64KiB-r1-t1" in ids
    mpi2 = next(p for p in pts if p.id == "mpi-ttable-ctr-enc-1KiB-r2-t1")
    assert (mpi2.ranks, mpi2.threads, mpi2.p, mpi2.size_bytes, mpi2.reps) == (
        2,
        1,
        2,
        1024,
        3,
    )
    for p in pts:
        assert all(c.isalnum() or c in "-_.+" for c in p.id)


def test_pousa2011_matches_the_study() -> None:
    cfg = yaml.safe_load((ROOT / "config/campaigns/pousa2011.yaml").read_text())
    pts = _points(cfg)
    # binary sizes: the study's 512KB run takes 0.49998 of its 1MB run
    assert sorted({p.size_bytes for p in pts}) == [
        s * 2**10 for s in (1, 512, 1024, 15 * 1024, 128 * 1024, 255 * 1024)
    ]
    assert all(p.nopad and p.mode == "ecb" and p.op == "encrypt" for p in pts)
    assert {p.impl for p in pts if p.backend != "cuda"} == {"ref"}
    assert {(p.backend, p.p) for p in pts} == {
        ("seq", 1),
        ("omp", 8),
        ("mpi", 8),
        ("mpi", 16),
        ("mpi", 32),
        ("cuda", 1),
    }
    assert {p.block_threads for p in pts if p.backend == "cuda"} == {256}
    assert len(pts) == 6 * 6


def test_modes_ops_ciphers_and_inputs(tmp_path: Path) -> None:
    f = tmp_path / "d.bin"
    f.write_bytes(b"a" * 33)
    cfg = base_config(
        modes=["ecb", "ctr"],
        ops=["encrypt", "decrypt"],
        inputs=[{"name": "mine", "path": str(f)}],
        backends={
            "seq": {"impls": ["ref", "ttable"]},
            "openssl": {"ciphers": ["aes-256-cbc"]},
        },
    )
    pts = sweep.expand(cs_config.validate(cfg, root=ROOT, workdir=tmp_path))
    # 3 inputs x 2 ops x (2 modes x 2 impls + 1 cipher)
    assert len(pts) == 3 * 2 * 5
    ossl = [p for p in pts if p.backend == "openssl"]
    assert {p.mode for p in ossl} == {"cbc"}
    mine = [p for p in pts if p.input_name == "mine"]
    assert mine and all(p.input_path == str(f) and p.size_bytes == 33 for p in mine)


def test_resources_from_the_point() -> None:
    cluster = {"cores_per_node": 8, "exclusive": True}
    p = make_point(size="255MB", backend="mpi", cipher="aes-128-ecb", ranks=32)
    r = resources.resources(p, cluster)
    assert (
        r["tasks"] == 32
        and r["nodes"] == 4
        and r["cpus_per_task"] == 1
        and r["gpu"] == 0
    )
    # whole nodes, and a job whose node fails is submitted again, never requeued
    assert r["bench"] == 1 and r["slurm_extra"] == "--exclusive --no-requeue"
    shared = resources.resources(p, {**cluster, "exclusive": False})
    assert shared["slurm_extra"] == "--no-requeue"
    assert r["runtime"] >= 2 and r["mem_mb"] > 255
    c = make_point(
        size="1KB", backend="cuda", cipher="aes-128-ecb", gpus=1, block_threads=256
    )
    assert resources.resources(c, cluster)["gpu"] == 1
    o = make_point(size="1KB", backend="omp", threads=8)
    ro = resources.resources(o, cluster)
    assert ro["cpus_per_task"] == 8 and ro["tasks"] == 1 and ro["nodes"] == 1
    big = make_point(size="255MB", impl="ref", reps=5)
    small = make_point(size="1KB", impl="ref", reps=5)
    assert (
        resources.resources(big, cluster)["runtime"]
        > resources.resources(small, cluster)["runtime"]
    )
    assert (
        resources.kernel_timeout(small, cluster)
        < resources.resources(small, cluster)["runtime"] * 60
    )


def test_packing_deals_small_points_of_one_shape_into_packs() -> None:
    cfg = base_config(sizes=[f"{k}KiB" for k in range(1, 41)])
    full = cs_config.validate(cfg, root=ROOT, workdir=ROOT)
    pts = sweep.expand(full)
    packs = resources.packs(pts, full["cluster"])
    # every point in exactly one pack, all small: none alone
    assert sorted(pid for m in packs.values() for pid in m) == sorted(p.id for p in pts)
    assert all(name.startswith("pack-") for name in packs)
    # seq/openssl/mpi-1 share r1-c1 (120 points: 4 packs of 30); omp c2 and mpi r2
    # (40 points each: 2 packs of 20)
    sizes = sorted(len(m) for m in packs.values())
    assert sizes == [20, 20, 20, 20, 30, 30, 30, 30]
    for name, members in packs.items():
        shapes = {resources.shape(p, full["cluster"]) for p in pts if p.id in members}
        assert len(shapes) == 1 and name.startswith(f"pack-{shapes.pop()}-")
    order = [p.id for p in pts]  # each pack is a run of the sweep order of its shape
    for members in packs.values():
        assert members == sorted(members, key=order.index)
    # without packing, or packs of one: every point is a pack of its own, by its id
    off = dict(full["cluster"], pack=False)
    assert resources.packs(pts, off) == {p.id: [p.id] for p in pts}
    alone = dict(full["cluster"], pack_size=1)
    assert resources.packs(pts, alone) == {p.id: [p.id] for p in pts}
    # the points' resources handed in (the campaign has them): the same packs
    each = {p.id: resources.resources(p, full["cluster"]) for p in pts}
    assert resources.packs(pts, full["cluster"], each) == packs


def test_a_time_limit_lengthens_a_points_runtime_only() -> None:
    """resources(..., timeout_s) is timed(resources(...), timeout_s): the runtime at
    least the limit and two minutes, nothing else changed."""
    cluster = {"cores_per_node": 8}
    p = make_point(size="1KB", impl="ref", reps=5)
    free = resources.resources(p, cluster)
    assert resources.timed(free, None) == free
    for limit in (30, 600, 3600):
        limited = resources.resources(p, cluster, limit)
        assert limited == resources.timed(free, limit)
        assert limited == {**free, "runtime": max(free["runtime"], -(-limit // 60) + 2)}


def test_pack_resources_add_runtimes_and_keep_the_shape() -> None:
    cluster = {"cores_per_node": 8, "exclusive": True}
    a = resources.resources(make_point(size="1KB", backend="omp", threads=4), cluster)
    b = resources.resources(make_point(size="8MB", backend="omp", threads=4), cluster)
    r = resources.pack_resources([a, b])
    assert r["runtime"] == a["runtime"] + b["runtime"]
    assert r["mem_mb"] == max(a["mem_mb"], b["mem_mb"]) > a["mem_mb"]
    assert (
        r["cpus_per_task"] == 4
        and r["tasks"] == 1
        and r["slurm_extra"] == a["slurm_extra"]
    )


def test_inject_fault_glob() -> None:
    cfg = base_config(debug={"inject_fault": ["mpi-*-64KiB-r2-*"]})
    pts = _points(cfg)
    faulty = [p.id for p in pts if p.inject_fault]
    assert faulty == ["mpi-ttable-ctr-enc-64KiB-r2-t1"]


def test_cuda_streams_are_rows_of_their_own() -> None:
    from ciphersweep.analysis.tables import model as tables
    from ciphersweep.job import launch

    cfg = base_config()
    cfg["cluster"] = {**cfg.get("cluster", {}), "gpus_per_node": 1}
    cfg["backends"] = {"cuda": {"impls": ["gpu-lanes"], "streams": [1, 4]}}
    pts = [p for p in _points(cfg) if p.backend == "cuda"]
    assert sorted({p.streams for p in pts}) == [1, 4]
    serial = next(p for p in pts if p.streams == 1 and p.size_label == "1KiB")
    over = next(p for p in pts if p.streams == 4 and p.size_label == "1KiB")
    # the serial point keeps the id it always had; the overlapped one gets its own
    assert serial.id == "cuda-gpu-lanes-ctr-enc-1KiB-r1-t1-g1-b256"
    assert over.id == serial.id + "-s4"
    labels = tables.row_labels(pts)
    assert labels[serial.id] == "cuda (256 threads/block)"
    assert labels[over.id] == "cuda (256 threads/block, 4 streams)"
    args = launch.kernel_args(over, input_path="i", json_path="j")
    assert args[args.index("--streams") + 1] == "4"
    assert "--streams" not in launch.kernel_args(serial, input_path="i", json_path="j")
