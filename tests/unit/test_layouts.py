"""Table layouts as data (config key `tables`), the baseline naming an impl, nopad."""

from __future__ import annotations

import pandas as pd
import pytest
from ciphersweep.analysis.tables import formulas, generic, layout_tables, layouts
from ciphersweep.analysis.tables import model as tables
from ciphersweep.job import launch
from ciphersweep.plan import config, sweep
from ciphersweep.plan.sweep import Point
from support import base_config, make_point, summary_context


def _ctx(cfg: dict, rows: list[tuple[Point, dict]]) -> tables.Context:
    summary = pd.DataFrame([{"point": p.id, "status": "ok", **v} for p, v in rows])
    return tables.Context(cfg, [p for p, _ in rows], summary)


POUSA_ROWS = {"seq, 1": "Secuencial", "mpi, 8": "MPI (8 cores)", "omp, 8": "OMP"}


def _pousa_ctx(**extra) -> tables.Context:
    seq = make_point(size="1KiB", backend="seq", impl="ref", cipher="aes-128-ecb")
    seq_tt = make_point(size="1KiB", backend="seq", impl="ttable", cipher="aes-128-ecb")
    mpi = make_point(
        size="1KiB", backend="mpi", impl="ref", cipher="aes-128-ecb", ranks=8
    )
    cfg = {
        "baseline": {"backend": "seq", "impl": "ref"},
        "tables": [
            {
                "name": "study_time",
                "value": "t_total",
                "unit": "ms",
                "rows": ["backend", "p"],
                "rename": POUSA_ROWS,
            },
            {
                "name": "study_speedup_compute",
                "value": "speedup",
                "time": "t_compute",
                "rows": ["backend", "p"],
                "where": {"backend": ["mpi", "omp"]},
                "rename": POUSA_ROWS,
            },
        ],
        **extra,
    }
    return _ctx(
        cfg,
        [
            (seq, {"t_total_median": 2.0, "t_compute_median": 1.8}),
            (seq_tt, {"t_total_median": 0.5, "t_compute_median": 0.4}),
            (mpi, {"t_total_median": 0.5, "t_compute_median": 0.2}),
        ],
    )


def test_layout_grid_rows_renamed_units_converted() -> None:
    ctx = _pousa_ctx()
    assert layouts.table_names(ctx.cfg, ctx.points) == [
        "study_time",
        "study_speedup_compute",
    ]
    built = {t.name: t for t in layout_tables.build(ctx)}
    t = built["study_time"]
    assert t.columns == ["1KiB"]
    # two seq impls share one row: the cell says so instead of picking one
    assert t.value("Secuencial", "1KiB") == tables.NA
    assert "more than one point" in t.notes[("Secuencial", "1KiB")]
    assert t.value("MPI (8 cores)", "1KiB") == pytest.approx(500.0)  # 0.5 s in ms
    sp = built["study_speedup_compute"]
    assert sp.rows == ["MPI (8 cores)"]
    assert sp.value("MPI (8 cores)", "1KiB") == pytest.approx(1.8 / 0.2)


def test_baseline_names_an_impl_for_every_speedup() -> None:
    ctx = _pousa_ctx()
    sp = generic.build_speedup(ctx)
    # seq ttable is not the baseline: it gets a speedup against seq ref, as MPI does
    assert sp.value("seq [ttable]", "1KiB") == pytest.approx(2.0 / 0.5)
    assert sp.value("mpi (8 ranks) [ref]", "1KiB") == pytest.approx(2.0 / 0.5)
    # without the named impl each point compares with its own impl family
    plain = _pousa_ctx(baseline={"backend": "seq"})
    sp2 = generic.build_speedup(plain)
    assert sp2.rows == ["mpi (8 ranks)"]  # one impl left in the table: no suffix


def test_measures_ratio_and_one_table_per_value() -> None:
    pts = []
    for cipher, te, td in (("aes-128-cbc", 2.0, 1.0), ("des-cbc", 9.0, 3.0)):
        for op, t in (("encrypt", te), ("decrypt", td)):
            pts.append(
                (
                    make_point(
                        size="10KB",
                        backend="openssl",
                        impl="evp",
                        mode="ecb",
                        op=op,
                        cipher=cipher,
                    ),
                    {"t_total_median": t, "t_total_mean": t * 1.1},
                )
            )
    cfg = {
        "baseline": {"backend": "seq"},
        "tables": [
            {
                "name": "study",
                "value": "t_total",
                "rows": ["size"],
                "per": "cipher",
                "measures": [
                    {
                        "label": "Enc (ms)",
                        "value": "t_total",
                        "unit": "ms",
                        "where": {"op": "encrypt"},
                    },
                    {
                        "label": "Dec (ms)",
                        "value": "t_total",
                        "unit": "ms",
                        "statistic": "mean",
                        "where": {"op": "decrypt"},
                    },
                    {
                        "label": "Enc MiB/s",
                        "value": "throughput",
                        "unit": "MiB/s",
                        "where": {"op": "encrypt"},
                    },
                    {"label": "ratio", "ratio": ["Enc (ms)", "Dec (ms)"]},
                    {
                        "label": "integrity",
                        "value": "verified",
                        "where": {"op": "encrypt"},
                    },
                ],
            }
        ],
    }
    ctx = _ctx(cfg, pts)
    assert layouts.table_names(cfg, ctx.points) == [
        "study_aes_128_cbc",
        "study_des_cbc",
    ]
    t = {x.name: x for x in layout_tables.build(ctx)}["study_des_cbc"]
    assert t.rows == ["10KB"]
    assert t.value("10KB", "Enc (ms)") == pytest.approx(9000.0)
    assert t.value("10KB", "Dec (ms)") == pytest.approx(3300.0)  # the mean
    assert t.value("10KB", "ratio") == pytest.approx(9000 / 3300)
    assert t.value("10KB", "Enc MiB/s") == pytest.approx(10_000 / 9.0 / 2**20)
    assert t.value("10KB", "integrity") == "OK"


def test_failed_point_in_layout_keeps_its_reason() -> None:
    p = make_point(size="1KiB", backend="seq", impl="ref", cipher="aes-128-ecb")
    summary = pd.DataFrame(
        [{"point": p.id, "status": "failed", "reason": "exit 3: timeout"}]
    )
    cfg = {
        "baseline": {"backend": "seq"},
        "tables": [{"name": "x", "value": "t_compute", "rows": ["backend"]}],
    }
    t = layout_tables.build(tables.Context(cfg, [p], summary))[0]
    assert t.value("seq", "1KiB") == tables.FAILED
    assert t.notes[("seq", "1KiB")] == "exit 3: timeout"


@pytest.mark.parametrize(
    ("tables_cfg", "message"),
    [
        (
            [{"name": "t", "value": "t_total", "colums": ["size"]}],
            "invalid config: tables[0]: unknown key 'colums' (allowed: aggregate, caption, columns, digits",
        ),
        (
            [{"name": "t", "value": "t_total", "unit": "MiB/s"}],
            "invalid config: tables[0].unit: 'MiB/s' is not a unit of t_total (allowed: 's', 'ms', 'us')",
        ),
        (
            [{"name": "t", "value": "t_total", "rows": ["rank"]}],
            "invalid config: tables[0].rows[0]: 'rank' is not allowed (allowed: label, backend",
        ),
        (
            [
                {
                    "name": "t",
                    "value": "t_total",
                    "columns": ["size"],
                    "measures": [{"label": "a", "value": "t_total"}],
                }
            ],
            "invalid config: tables[0]: give either columns (axes) or measures, not both",
        ),
        (
            [
                {
                    "name": "t",
                    "value": "t_total",
                    "measures": [{"label": "r", "ratio": ["a", "b"]}],
                }
            ],
            "invalid config: tables[0].measures[0].ratio: 'a' is not an earlier measure",
        ),
        (
            [{"name": "t", "value": "t_total"}, {"name": "t", "value": "speedup"}],
            "invalid config: tables[1].name: 't' is used twice",
        ),
        (
            [{"name": "t", "value": "t_total", "per": "size"}],
            "invalid config: tables[0].per: 'size' is already a row or column axis",
        ),
        (
            [{"name": "t", "value": "t_total", "where": {"colour": "red"}}],
            "invalid config: tables[0].where",
        ),
    ],
)
def test_bad_layout_one_clear_line(tables_cfg: list, message: str) -> None:
    with pytest.raises(config.ConfigError) as exc:
        config.validate(base_config(tables=tables_cfg))
    text = str(exc.value)
    assert "\n" not in text
    assert text.startswith(message), text


def test_baseline_impl_must_be_run() -> None:
    cfg = base_config(baseline={"backend": "seq", "impl": "ref"})
    with pytest.raises(
        config.ConfigError,
        match=r"^invalid config: baseline.impl: 'ref' is not run by backends.seq \(allowed: ttable\)$",
    ):
        config.validate(cfg)


def test_nopad_needs_whole_blocks_and_reaches_the_kernel() -> None:
    bad = base_config(nopad=True, sizes=["1KiB", "1KB"], modes=["ecb"])
    with pytest.raises(
        config.ConfigError,
        match=r"^invalid config: sizes\[1\]: '1KB' is 1000 bytes, not a multiple of 16",
    ):
        config.validate(bad)
    cfg = config.validate(base_config(nopad=True, sizes=["1KiB"], modes=["ecb", "ctr"]))
    pts = sweep.expand(cfg)
    args = {
        (p.backend, p.mode): launch.kernel_args(p, input_path="i", json_path="j")
        for p in pts
    }
    assert "--nopad" in args[("seq", "ecb")]
    assert "--nopad" not in args[("seq", "ctr")]
    plain = sweep.expand(config.validate(base_config(sizes=["1KiB"], modes=["ecb"])))
    assert all(
        "--nopad" not in launch.kernel_args(p, input_path="i", json_path="j")
        for p in plain
    )


def _mean_vs_median(cfg: dict) -> tuple[tables.Context, Point]:
    """One point whose mean (3.0 s) and median (1.0 s) differ."""
    p = make_point(size="1KiB", backend="seq", impl="ref", cipher="aes-128-ecb")
    row = {
        "t_total_median": 1.0,
        "t_total_ci_low": 0.9,
        "t_total_ci_high": 1.1,
        "t_total_mean": 3.0,
        "t_total_mean_ci_low": 2.0,
        "t_total_mean_ci_high": 4.0,
    }
    return _ctx(cfg, [(p, row)]), p


def test_campaign_statistic_reaches_every_layout_and_measure() -> None:
    grid = {"name": "g", "value": "t_total", "rows": ["backend"]}
    meas = {
        "name": "m",
        "value": "t_total",
        "rows": ["backend"],
        "measures": [{"label": "T", "value": "t_total"}],
    }
    own = {**grid, "name": "own", "statistic": "median"}
    ctx, _ = _mean_vs_median({"statistic": "mean", "tables": [grid, meas, own]})
    assert [s["statistic"] for s in layouts.specs(ctx.cfg)] == [
        "mean",
        "mean",
        "median",
    ]
    got = {t.name: t for t in layout_tables.build(ctx)}
    assert got["g"].cells[("seq", "1KiB")] == pytest.approx(3.0)
    assert got["m"].cells[("seq", "T")] == pytest.approx(3.0)
    assert got["own"].cells[("seq", "1KiB")] == pytest.approx(1.0)
    ctx, _ = _mean_vs_median({"tables": [grid]})  # no campaign statistic: the median
    assert layouts.specs(ctx.cfg)[0]["statistic"] == "median"
    assert {t.name: t for t in layout_tables.build(ctx)}["g"].cells[
        ("seq", "1KiB")
    ] == pytest.approx(1.0)


def test_layout_defaults_are_the_schemas() -> None:
    """The schema's ``$defs.layout`` holds every layout default; each item of
    ``tables:`` gets them (and the campaign's statistic, the value's first unit)."""
    props = config.schema()["$defs"]["layout"]["properties"]
    written = {k: v["default"] for k, v in props.items() if "default" in v}
    assert written == layouts.defaults()
    assert {"time", "rows", "columns", "where", "rename", "digits"} <= set(written)
    cfg = config.validate(
        base_config(
            statistic="mean",
            tables=[
                {"name": "a", "value": "throughput"},
                {"name": "b", "value": "t_total", "digits": 6, "rows": ["backend"]},
            ],
        )
    )
    a, b = layouts.specs(cfg)
    assert {k: a[k] for k in written} == written
    assert (a["statistic"], a["unit"], a["title"]) == ("mean", "MB/s", "a")
    assert (b["digits"], b["rows"], b["columns"]) == (
        6,
        ["backend"],
        written["columns"],
    )


def test_a_missing_or_failed_baseline_is_worded_once_for_every_cell_engine() -> None:
    """A layout's speedup and the generic speedup table say the same n/a, with the
    same reason, for a point without a baseline and for one whose baseline failed
    (formulas.baseline_row words it)."""
    mpi = make_point(backend="mpi", impl="ref", ranks=2)
    seq = make_point(backend="seq", impl="ref")
    t = {"t_total_median": 1.0}
    for rows, why in (
        ([(mpi, t)], "no seq baseline with impl ref, mode ctr"),
        ([(mpi, t), (seq, {"status": "failed"})], f"baseline {seq.id} failed"),
    ):
        ctx = summary_context(rows)
        cell = layouts.quantity(ctx, mpi, "speedup", statistic="median")
        row = ctx.by_point[mpi.id]
        assert cell == formulas.speedup_cell(ctx, mpi, row) == ("n/a", why)
