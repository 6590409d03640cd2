"""Energy, CPU-utilisation and provenance tables (listed in ciphersweep.analysis.tables.registry)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from ciphersweep.analysis import render
from ciphersweep.analysis.tables import energy, provenance, registry
from ciphersweep.analysis.tables import model as tables
from ciphersweep.plan.sweep import Point
from support import make_point

MB = 10**6


SEQ_1 = make_point(backend="seq", size="1MB")
SEQ_16 = make_point(backend="seq", size="16MB")
OMP_1 = make_point(backend="omp", size="1MB", threads=2)
OMP_16 = make_point(backend="omp", size="16MB", threads=2)
MPI_1 = make_point(backend="mpi", size="1MB", ranks=2)
POINTS = [SEQ_1, SEQ_16, OMP_1, OMP_16, MPI_1]
NOTE = "likwid: unsupported CPU (Unsupported AMD Zen Processor); powercap not present"


def rec(
    p: Point,
    rep: int,
    t: float,
    joules: float | None,
    util: float | None = 0.98,
    **kw: object,
) -> dict:
    return {
        "point": p.id,
        "status": "ok",
        "rep": rep,
        "t_total": t,
        "joules": joules,
        "energy_source": None if joules is None else "rapl",
        "energy_note": NOTE if joules is None else None,
        "cpu_util": util,
        **kw,
    }


def context() -> tables.Context:
    meas = pd.DataFrame(
        [
            # seq 1 MB: 3 reps with energy; medians by hand below
            rec(SEQ_1, 0, 0.50, 10.0),
            rec(SEQ_1, 1, 0.40, 9.0),
            rec(SEQ_1, 2, 0.45, 12.0),
            # seq 16 MB: no source (null joules) -> n/a + note, never 0
            rec(SEQ_16, 0, 8.0, None),
            rec(SEQ_16, 1, 8.2, None),
            # omp 1 MB: counter did not move (0 J) -> n/a "too short"
            rec(OMP_1, 0, 0.001, 0.0, util=1.9 / 2),
            rec(OMP_1, 1, 0.001, 0.0, util=1.7 / 2),
            # omp 16 MB: energy, but CPU times missing
            rec(OMP_16, 0, 4.0, 100.0, util=None),
            rec(OMP_16, 1, 5.0, 150.0, util=None),
        ]
    )
    summary = pd.DataFrame(
        [
            {"point": SEQ_1.id, "status": "ok", "reason": None, "t_total_median": 0.45},
            {"point": SEQ_16.id, "status": "ok", "reason": None, "t_total_median": 8.1},
            {
                "point": OMP_1.id,
                "status": "ok",
                "reason": None,
                "t_total_median": 0.001,
            },
            {"point": OMP_16.id, "status": "ok", "reason": None, "t_total_median": 4.5},
            {
                "point": MPI_1.id,
                "status": "failed",
                "reason": "timeout after 60 s",
                "t_total_median": None,
            },
        ]
    )
    return tables.Context({"baseline": {"backend": "seq"}}, POINTS, summary, meas)


def test_energy_cells_by_hand() -> None:
    reps = [
        {"joules": 10.0, "t_total": 0.5},
        {"joules": 9.0, "t_total": 0.4},
        {"joules": 12.0, "t_total": 0.45},
    ]
    c = energy.energy_cells(reps, 1 * MB)
    assert c["J per run"] == pytest.approx(10.0)  # median of 9, 10, 12
    assert c["J/MB"] == pytest.approx(10.0)
    # W per rep: 20, 22.5, 26.667 -> median 22.5
    assert c["mean W"] == pytest.approx(22.5)
    c = energy.energy_cells(
        [{"joules": 100.0, "t_total": 4.0}, {"joules": 150.0, "t_total": 5.0}], 16 * MB
    )
    assert c["J per run"] == pytest.approx(125.0)
    assert c["J/MB"] == pytest.approx(125.0 / 16)
    assert c["mean W"] == pytest.approx((25.0 + 30.0) / 2)


def test_energy_cells_without_source() -> None:
    assert (
        energy.energy_cells([{"joules": None, "energy_note": NOTE}], MB)
        == f"no energy measurement: {NOTE}"
    )
    assert (
        energy.energy_cells([{"joules": float("nan")}], MB) == "no energy measurement"
    )
    assert (
        energy.energy_cells([{"joules": 0.0, "t_total": 1e-4}], MB) == energy.TOO_SHORT
    )


def test_energy_table(tmp_path: Path) -> None:
    t = energy.build_energy_table(context())
    assert t.name == "energy"
    assert t.columns == ["1MB", "16MB"]
    assert t.rows[:3] == ["seq: J per run", "seq: J/MB", "seq: mean W"]
    assert t.value("seq: J per run", "1MB") == pytest.approx(10.0)
    assert t.value("seq: mean W", "1MB") == pytest.approx(22.5)
    assert t.value("omp (2 threads): J/MB", "16MB") == pytest.approx(125.0 / 16)
    for part in energy.ENERGY_PARTS:
        assert t.value(f"seq: {part}", "16MB") == "n/a"
        assert t.notes[(f"seq: {part}", "16MB")] == f"no energy measurement: {NOTE}"
        assert t.value(f"omp (2 threads): {part}", "1MB") == "n/a"
        assert t.notes[(f"omp (2 threads): {part}", "1MB")] == energy.TOO_SHORT
        assert t.value(f"mpi (2 ranks): {part}", "1MB") == "failed"
        assert t.notes[(f"mpi (2 ranks): {part}", "1MB")] == "timeout after 60 s"
    assert not any(v == 0 for v in t.cells.values())
    files = render.write_table(t, tmp_path)
    md = (tmp_path / "energy.md").read_text()
    assert "n/a [1]" in md and f"[1] no energy measurement: {NOTE}" in md
    assert "| 0.0000 " not in md
    csv = pd.read_csv(tmp_path / "energy.csv", index_col=0, keep_default_na=False)
    assert csv.loc["seq: J per run", "16MB"] == "n/a"
    assert float(csv.loc["seq: J per run", "1MB"]) == pytest.approx(10.0)
    assert (tmp_path / "energy.tex").read_text().count("n/a") >= 3
    assert {f.suffix for f in files} == {".csv", ".md", ".tex"}


def test_cpu_util_table() -> None:
    t = energy.build_cpu_util_table(context())
    assert t.value("seq", "1MB") == pytest.approx(98.0)
    assert t.value("omp (2 threads)", "1MB") == pytest.approx(
        90.0
    )  # median of 95 %, 85 %
    assert t.value("omp (2 threads)", "16MB") == "n/a"
    assert (
        t.notes[("omp (2 threads)", "16MB")]
        == "no CPU times (getrusage) in the records"
    )
    assert t.value("mpi (2 ranks)", "1MB") == "failed"
    # omp 1 MB ran for 1 ms: the value stays, with a footnote that it is coarse
    assert t.notes[("omp (2 threads)", "1MB")] == energy.COARSE_CPU
    assert ("seq", "1MB") not in t.notes


def test_short_region_energy_is_marked_coarse() -> None:
    ctx = context()
    ctx.measurements.loc[ctx.measurements["point"] == SEQ_1.id, "t_total"] = 0.002
    t = energy.build_energy_table(ctx)
    assert t.value("seq: J per run", "1MB") == pytest.approx(10.0)
    assert t.notes[("seq: J per run", "1MB")] == energy.COARSE_ENERGY
    assert t.value("seq: mean W", "1MB") == pytest.approx(10.0 / 0.002)


def test_energy_from_a_long_window_of_short_repetitions_is_not_coarse() -> None:
    """aes-cuda's NVML windows: a 1 KiB repetition takes 50 us, its energy is that of a
    window of >= 1 s of whole repetitions divided by their count (as an H100 gave it:
    22100 repetitions in 1.1 s, NVML updating every 100 ms); no coarse footnote."""
    ctx = context()
    m = ctx.measurements
    m.loc[m["point"] == SEQ_1.id, "t_total"] = 5e-5
    m.loc[m["point"] == SEQ_1.id, "energy_window_s"] = 1.1
    t = energy.build_energy_table(ctx)
    assert t.value("seq: J per run", "1MB") == pytest.approx(10.0)
    assert ("seq: J per run", "1MB") not in t.notes
    # a window shorter than the threshold is as coarse as the repetition itself
    ctx = context()
    m = ctx.measurements
    m.loc[m["point"] == SEQ_1.id, "t_total"] = 5e-5
    m.loc[m["point"] == SEQ_1.id, "energy_window_s"] = 0.004
    t = energy.build_energy_table(ctx)
    assert t.notes[("seq: J per run", "1MB")] == energy.COARSE_ENERGY


def test_tables_without_measurements_use_summary() -> None:
    ctx = context()
    ctx.measurements = None
    ctx.by_point[SEQ_1.id]["joules_median"] = 10.0
    ctx.by_point[SEQ_1.id]["cpu_util_median"] = 0.5
    t = energy.build_energy_table(ctx)
    assert t.value("seq: J per run", "1MB") == pytest.approx(10.0)
    assert t.value("seq: mean W", "1MB") == pytest.approx(10.0 / 0.45)
    assert t.value("seq: J per run", "16MB") == "n/a"
    assert energy.build_cpu_util_table(ctx).value("seq", "1MB") == pytest.approx(50.0)


def test_registered_through_the_hook() -> None:
    names = registry.table_names({"baseline": {"backend": "seq"}}, POINTS)
    assert {"energy", "cpu_util", "provenance"} <= set(names)


def test_provenance_table(tmp_path: Path) -> None:
    ctx = context()
    ctx.measurements["host"] = "node1"
    ctx.measurements["openssl_version"] = "OpenSSL 3.0.19 27 Jan 2026"
    ctx.measurements["git_rev"] = "0123abc"
    ctx.measurements["timestamp"] = "2026-01-01T00:00:00Z"
    ctx.facts = {"cpu_sockets": 1}
    t = provenance.build_provenance_table(ctx)
    assert t.name == "provenance" and t.columns == ["value"]
    assert t.value("Hosts", "value") == "node1"
    assert t.value("OpenSSL", "value") == "OpenSSL 3.0.19 27 Jan 2026"
    assert t.value("Project git revision", "value") == "0123abc"
    render.write_table(t, tmp_path)
    md = (tmp_path / "provenance.md").read_text()
    assert "| Project git revision" in md and "0123abc" in md
    assert r"\begin{tabular}" in (tmp_path / "provenance.tex").read_text()
