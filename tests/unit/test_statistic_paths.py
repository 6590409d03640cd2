"""``statistic:`` (median or mean) from the config to every cell: each table, the
layouts, the energy and CPU-utilisation tables, the plots' y values and the report's
headline speedups. The data are skewed so that mean and median differ: each path is
checked for both statistics against the value computed by hand."""

from __future__ import annotations

from statistics import mean, median

import pandas as pd
import pytest
from ciphersweep.analysis import report
from ciphersweep.analysis.plots import parts, timing
from ciphersweep.analysis.tables import energy, generic, layout_tables
from ciphersweep.analysis.tables.model import Context
from ciphersweep.core import stats
from ciphersweep.plan.sweep import Point

MB = 10**6
# one slow repetition each: mean and median differ by far
SEQ = [4.0, 4.0, 4.0, 4.2, 12.0]
MPI = [1.0, 1.0, 1.1, 1.0, 6.0]
CUDA = [0.5, 0.5, 0.5, 0.6, 3.0]
JOULES = [10.0, 10.0, 11.0, 10.0, 50.0]
CPU = [0.9, 0.9, 0.95, 0.9, 0.2]
STATS = {"median": median, "mean": mean}


def _pt(backend: str, **kw) -> Point:
    pid = f"{backend}-1MB-r{kw.get('ranks', 1)}"
    return Point(
        backend, "ttable", "ctr", "encrypt", "aes-128-ctr", MB, "1MB", "1MB", None,
        id=pid, **kw,
    )  # fmt: skip


SEQ_P, MPI_P = _pt("seq"), _pt("mpi", ranks=2)
CUDA_P = _pt("cuda", gpus=1, block_threads=256)
TIMES = {SEQ_P.id: SEQ, MPI_P.id: MPI, CUDA_P.id: CUDA}


def _summary_row(p: Point, ts: list[float]) -> dict:
    row = {"point": p.id, "status": "ok", "n": len(ts), **stats.summarize(ts)}
    for col, xs in (
        ("joules", JOULES),
        ("cpu_util", CPU),
        ("t_h2d", [t * 0.25 for t in ts]),
        ("t_d2h", [t * 0.25 for t in ts]),
        ("t_compute", [t * 0.5 for t in ts]),
    ):
        est = stats.summarize(xs, col)
        row.update({f"{col}_{k}": est[f"{col}_{k}"] for k in ("median", "mean")})
    return row


def _measurements() -> pd.DataFrame:
    rows = [
        {
            "point": pid,
            "status": "ok",
            "rep": i,
            "t_total": t,
            "joules": JOULES[i],
            "cpu_util": CPU[i],
        }
        for pid, ts in TIMES.items()
        for i, t in enumerate(ts)
    ]
    return pd.DataFrame(rows)


def _ctx(statistic: str, **cfg) -> Context:
    points = [SEQ_P, MPI_P, CUDA_P]
    summary = pd.DataFrame([_summary_row(p, TIMES[p.id]) for p in points])
    full = {"baseline": {"backend": "seq"}, "statistic": statistic, **cfg}
    return Context(full, points, summary, _measurements())


@pytest.fixture(params=["median", "mean"])
def statistic(request: pytest.FixtureRequest) -> str:
    return request.param


def test_data_tell_the_statistics_apart() -> None:
    for xs in (SEQ, MPI, CUDA, JOULES, CPU):
        assert mean(xs) != pytest.approx(median(xs), rel=0.05)


def test_generic_tables(statistic: str) -> None:
    f = STATS[statistic]
    ctx = _ctx(statistic)
    row = ctx.row_of[MPI_P.id]
    assert generic.build_time(ctx).value(row, "1MB") == pytest.approx(f(MPI))
    speedup = generic.build_speedup(ctx).value(row, "1MB")
    assert speedup == pytest.approx(f(SEQ) / f(MPI))
    eff = generic.build_efficiency(ctx).value(row, "1MB")
    assert eff == pytest.approx(f(SEQ) / f(MPI) / 2)
    tput = generic.build_throughput(ctx).value(row, "1MB")
    assert tput == pytest.approx(1.0 / f(MPI))
    assert statistic in generic.build_time(ctx).caption


def test_cuda_copy_table(statistic: str) -> None:
    f = STATS[statistic]
    t = generic.build_cuda_copy(_ctx(statistic))
    assert t.value("total", "1MB") == pytest.approx(f(CUDA))
    assert t.value("copy host-device", "1MB") == pytest.approx(f(CUDA) * 0.25)
    assert t.value("kernel", "1MB") == pytest.approx(f(CUDA) * 0.5)
    assert statistic in t.title


def test_layouts_follow_the_campaign(statistic: str) -> None:
    """A layout without its own statistic shows the campaign's."""
    f = STATS[statistic]
    layouts_cfg = [
        {"name": "lt", "value": "t_total", "unit": "ms", "rows": ["backend"]},
        {"name": "ls", "value": "speedup", "rows": ["backend"]},
        {"name": "lj", "value": "joules", "rows": ["backend"]},
    ]
    ctx = _ctx(statistic, tables=layouts_cfg)
    built = {t.name: t for t in layout_tables.build(ctx)}
    assert built["lt"].value("mpi", "1MB") == pytest.approx(1e3 * f(MPI))
    assert built["ls"].value("mpi", "1MB") == pytest.approx(f(SEQ) / f(MPI))
    assert built["lj"].value("mpi", "1MB") == pytest.approx(f(JOULES))


def test_energy_table(statistic: str) -> None:
    f = STATS[statistic]
    ctx = _ctx(statistic)
    t = energy.build_energy_table(ctx)
    row = ctx.row_of[MPI_P.id]
    assert t.value(f"{row}: J per run", "1MB") == pytest.approx(f(JOULES))
    assert t.value(f"{row}: J/MB", "1MB") == pytest.approx(f(JOULES))
    watts = [j / s for j, s in zip(JOULES, MPI)]
    assert t.value(f"{row}: mean W", "1MB") == pytest.approx(f(watts))
    assert f"J per run ({statistic})" in t.title and statistic in t.caption


def test_energy_table_from_the_summary(statistic: str) -> None:
    """Without the per-repetition records the summary's column of the statistic."""
    f = STATS[statistic]
    ctx = _ctx(statistic)
    ctx.measurements = None
    t = energy.build_energy_table(ctx)
    row = ctx.row_of[MPI_P.id]
    assert t.value(f"{row}: J per run", "1MB") == pytest.approx(f(JOULES))


def test_cpu_util_table(statistic: str) -> None:
    f = STATS[statistic]
    ctx = _ctx(statistic)
    t = energy.build_cpu_util_table(ctx)
    expect = f([100 * c for c in CPU])
    assert t.value(ctx.row_of[MPI_P.id], "1MB") == pytest.approx(expect)
    assert statistic in t.title


def test_plots_draw_the_statistic(statistic: str) -> None:
    f = STATS[statistic]
    ctx = _ctx(statistic)
    ax = timing.plot_time(ctx).axes[0]
    bars = {c.get_label(): list(c.lines[0].get_ydata()) for c in ax.containers}
    assert bars[ctx.row_of[MPI_P.id]] == [pytest.approx(f(MPI))]
    ax = timing.plot_throughput(ctx).axes[0]
    lines = {ln.get_label(): list(ln.get_ydata()) for ln in ax.get_lines()}
    assert lines[ctx.row_of[MPI_P.id]] == [pytest.approx(1.0 / f(MPI))]
    ax = parts.plot_energy(ctx).axes[0]
    lines = {ln.get_label(): list(ln.get_ydata()) for ln in ax.get_lines()}
    assert lines[ctx.row_of[MPI_P.id]] == [pytest.approx(f(JOULES))]
    ax = parts.plot_cuda_copy(ctx).axes[0]
    (h2d, *_) = [b for b in ax.containers if b.get_label() == "copy host-device"]
    assert [r.get_height() for r in h2d] == [pytest.approx(25.0)]
    shown = [t.get_text() for t in ax.texts]
    assert f"{f(CUDA):.3g} s" in shown


def test_report_headline_speedups(statistic: str) -> None:
    f = STATS[statistic]
    ctx = _ctx(statistic)
    lines = report.headline_speedups([generic.build_speedup(ctx)])
    (line,) = [x for x in lines if x.startswith(f"{ctx.row_of[MPI_P.id]}: ")]
    shown = float(line.split(": ")[1].split("x")[0])
    assert shown == pytest.approx(f(SEQ) / f(MPI), rel=1e-2)
