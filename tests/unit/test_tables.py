"""Speedup/efficiency maths, records gathering and the table layout."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from ciphersweep.analysis.tables import formulas, generic, registry
from ciphersweep.analysis.tables import model as tables
from ciphersweep.core import units
from ciphersweep.plan.sweep import Point
from ciphersweep.verdict import records
from support import make_point


def test_formulas_by_hand() -> None:
    assert formulas.speedup(2.266163, 0.286033) == pytest.approx(
        7.922732, rel=1e-5
    )  # the study's MPI 8, 1MB
    assert formulas.speedup(33.99241, 1.073768) == pytest.approx(31.657127, rel=1e-5)
    assert formulas.efficiency(8.0, 8) == 1.0
    assert formulas.efficiency(formulas.speedup(10.0, 4.0), 4) == pytest.approx(0.625)
    assert formulas.speedup(1.0, 0.0) is None
    assert formulas.speedup(None, 1.0) is None
    assert units.rate(2_000_000, 0.5) == 4.0  # MB/s, MB = 10^6 bytes
    assert units.rate(2**21, 0.5, 2.0**20) == 4.0  # MiB/s
    assert units.rate(1, 0.0) is None and units.rate(1, float("nan")) is None
    assert units.per_mb(3.0, 2_000_000) == 1.5  # J/MB
    assert tables.impl_family("gpu-ttable") == "ttable"


def _rec(p: Point, rep: int, t: float, **kw) -> dict:
    r = {
        "schema": 1,
        "status": "ok",
        "backend": p.backend,
        "impl": p.impl,
        "cipher": p.cipher,
        "mode": p.mode,
        "op": p.op,
        "bytes": p.size_bytes,
        "ranks": p.ranks,
        "threads": p.threads,
        "gpu": p.gpus,
        "rep": rep,
        "t_total": t,
        "t_compute": t * 0.9,
        "verified": True,
        "joules": None,
        "energy_source": None,
        "timestamp": "2026-01-01T00:00:00Z",
        "host": "h",
        "point": p.id,
    }
    r.update(kw)
    return r


@pytest.fixture
def campaign(tmp_path: Path):
    pts = [
        make_point(backend="seq", size="1KiB"),
        make_point(backend="seq", size="2KiB"),
        make_point(backend="mpi", size="1KiB", ranks=2),
        make_point(backend="mpi", size="2KiB", ranks=2),
        make_point(backend="omp", size="1KiB", threads=4),
        make_point(backend="omp", size="2KiB", threads=4),
    ]
    times = {
        pts[0].id: [4.0, 2.0, 3.0],  # median 3
        pts[1].id: [6.0, 6.0, 9.0],  # median 6
        pts[2].id: [1.0, 2.0, 1.5],  # median 1.5 -> S = 2, E = 1
        pts[3].id: [4.0, 5.0, 3.0],  # median 4 -> S = 1.5, E = 0.75
        pts[4].id: [1.0, 1.0, 1.0],  # S = 3, E = 0.75
    }
    files = []
    raw = tmp_path / "raw"
    raw.mkdir()
    for p in pts:
        f = raw / f"{p.id}.jsonl"
        if p.id in times:
            f.write_text(
                "".join(
                    json.dumps(_rec(p, i, t)) + "\n" for i, t in enumerate(times[p.id])
                )
            )
        else:
            fail = {
                "schema": 1,
                "status": "failed",
                "reason": "exit 1: verification FAILED: first differing block 3",
                "point": p.id,
            }
            f.write_text(json.dumps(fail) + "\n")
        files.append(str(f))
    out = SimpleNamespace(
        csv=str(tmp_path / "measurements.csv"),
        parquet=str(tmp_path / "measurements.parquet"),
        failures=str(tmp_path / "failures.csv"),
        summary=str(tmp_path / "summary.csv"),
    )
    records.gather_files(files, pts, out)
    cfg = {"baseline": {"backend": "seq"}}
    ins = SimpleNamespace(
        summary=out.summary, measurements=out.parquet, failures=out.failures
    )
    tabs = registry.write_tables(cfg, pts, ins, str(tmp_path / "tables"))
    return SimpleNamespace(
        points=pts, out=out, tables={t.name: t for t in tabs}, dir=tmp_path
    )


def test_gather_is_tidy(campaign) -> None:
    meas = pd.read_csv(campaign.out.csv)
    assert len(meas) == 15  # 5 ok points x 3 reps
    assert {"t_total", "rep", "point", "size_label", "verified"} <= set(meas.columns)
    pq = pd.read_parquet(campaign.out.parquet)
    assert len(pq) == 15
    fails = pd.read_csv(campaign.out.failures)
    assert list(fails["point"]) == [campaign.points[5].id]
    assert "verification FAILED" in fails["reason"][0]
    summ = pd.read_csv(campaign.out.summary).set_index("point")
    assert summ.loc[campaign.points[0].id, "t_total_median"] == 3.0
    assert summ.loc[campaign.points[0].id, "t_total_min"] == 2.0
    assert summ.loc[campaign.points[0].id, "t_total_max"] == 4.0
    assert summ.loc[campaign.points[0].id, "t_total_q1"] == 2.5
    assert summ.loc[campaign.points[5].id, "status"] == "failed"


def test_time_speedup_efficiency_tables(campaign) -> None:
    t = campaign.tables
    assert t["time"].rows == ["seq", "mpi (2 ranks)", "omp (4 threads)"]
    assert t["time"].columns == ["1KiB", "2KiB"]
    assert t["time"].value("seq", "2KiB") == 6.0
    sp = t["speedup"]
    assert "seq" not in sp.rows
    assert sp.value("mpi (2 ranks)", "1KiB") == pytest.approx(3.0 / 1.5)
    assert sp.value("mpi (2 ranks)", "2KiB") == pytest.approx(6.0 / 4.0)
    assert sp.value("omp (4 threads)", "1KiB") == pytest.approx(3.0)
    assert sp.value("omp (4 threads)", "2KiB") == "failed"
    ef = t["efficiency"]
    assert ef.value("mpi (2 ranks)", "2KiB") == pytest.approx(0.75)
    assert ef.value("omp (4 threads)", "1KiB") == pytest.approx(0.75)
    th = t["throughput"]
    assert th.value("seq", "1KiB") == pytest.approx(1024 / 1e6 / 3.0)


def test_rendered_failed_cell_has_reason_footnote(campaign) -> None:
    md = (campaign.dir / "tables" / "speedup.md").read_text()
    # 3 repetitions are too few for a 95% interval: those cells are flagged first
    notes = [ln for ln in md.splitlines() if ln.startswith("[")]
    reason = "exit 1: verification FAILED: first differing block 3"
    i = next(ln.split("]")[0] + "]" for ln in notes if reason in ln)
    assert f"failed {i}" in md
    tex = (campaign.dir / "tables" / "speedup.tex").read_text()
    assert r"\begin{tabular}" in tex and f"failed {i}" in tex
    csv = pd.read_csv(campaign.dir / "tables" / "speedup.csv", index_col=0)
    assert csv.loc["omp (4 threads)", "2KiB"] == "failed"
    assert float(csv.loc["mpi (2 ranks)", "1KiB"]) == pytest.approx(2.0)


def test_cuda_copy_table() -> None:
    p = make_point(size="1KB", backend="cuda", gpus=1, block_threads=256, id="cu")
    summary = pd.DataFrame(
        [
            {
                "point": "cu",
                "status": "ok",
                "t_total_median": 0.000168,
                "t_h2d_median": 7e-6,
                "t_d2h_median": 1.6e-5,
                "t_compute_median": 0.000145,
            }
        ]
    )
    ctx = tables.Context({"baseline": {"backend": "seq"}}, [p], summary)
    t = generic.build_cuda_copy(ctx)
    other = formulas.UNTIMED
    assert t.rows == ["copy host-device", "copy device-host", "kernel", other, "total"]
    assert t.value("kernel", "1KB") == 0.000145
    assert t.value("total", "1KB") == 0.000168
    # the parts add up to the total here: nothing left over, shown as 0, not n/a
    assert t.value(other, "1KB") == pytest.approx(0.0, abs=1e-12)


def test_extra_builders_plug_in() -> None:
    names = registry.table_names(
        {"baseline": {"backend": "seq"}}, [make_point(backend="seq", size="1B")]
    )
    assert names[0] == "time" and "throughput" in names
    assert "cuda_copy" not in names


def test_the_tables_and_the_report_share_the_runs_host_facts(
    campaign, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given the run's host facts, the tables and the report take none of their own
    (eight programs asked for their versions, a few hundredths of a second before the
    report) and show the same provenance."""
    from ciphersweep.analysis import report
    from ciphersweep.analysis.tables import provenance

    asked: list[int] = []
    monkeypatch.setattr(provenance, "host_facts", lambda: asked.append(1) or {})
    facts = {"cpu_sockets": 7, "likwid": "likwid-perfctr -- Version 9.9"}
    cfg = {"baseline": {"backend": "seq"}}
    out = campaign.out
    ins = SimpleNamespace(
        summary=out.summary, measurements=out.parquet, failures=out.failures
    )
    where = campaign.dir / "shared"
    tabs = registry.write_tables(cfg, campaign.points, ins, str(where), None, facts)
    page = where / "report.html"
    report.write_report(cfg, campaign.points, ins, str(page), None, facts)
    assert not asked
    [prov] = [t for t in tabs if t.name == "provenance"]
    assert prov.cells[("Sockets", "value")] == "7"
    assert "likwid-perfctr -- Version 9.9" in page.read_text()
    registry.write_tables(cfg, campaign.points, ins, str(where))
    assert asked == [1]  # without them: taken where the provenance table is built
