"""The results history: the SQLite store (schema version, appends from two processes at
once, idempotent runs), campaign directories as runs, import and export, regressions
judged through the intervals, machines kept apart, the trend plot."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ciphersweep.analysis.history import (
    outputs,
    regress,
    runs,
    schema,
    store,
    trends,
)
from ciphersweep.core import stats
from ciphersweep.plan import config
from ciphersweep.verdict import records
from support import ROOT, make_point


def _cell(point: str, est: float, low: float, high: float, **over: Any) -> dict:
    backend = point.split("-")[0]
    cell = {
        "point": point,
        "backend": backend,
        "impl": "ttable",
        "bytes": 1024,
        "size_label": "1KiB",
        "machine": "m1",
        "status": "ok",
        "estimate": est,
        "ci_low": low,
        "ci_high": high,
        "ci_level": 0.95,
        "n": 6,
    }
    cell.update(over)
    return cell


def _run(rid: str, time: str, rev: str = "abc") -> dict:
    return {
        "run_id": rid,
        "campaign": "c",
        "run_time": time,
        "git_rev": rev,
        "git_dirty": 0,
        "statistic": "median",
        "source": "x",
        "appended": time,
    }


# ------------------------------------------------------------------ store


def test_new_store_has_schema_version_and_view(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "h.sqlite"
    assert store.schema_version(path) == 0
    assert store.append(path, _run("r1", "2026-01-01"), [_cell("seq-a", 1, 0.9, 1.1)])
    assert store.schema_version(path) == store.SCHEMA_VERSION == 2
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT run_id, point, estimate FROM history").fetchall()
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    assert rows == [("r1", "seq-a", 1.0)]
    assert mode == "wal"


def test_store_of_a_newer_release_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    store.append(path, _run("r1", "2026-01-01"), [])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(store.StoreError, match=r"schema version 99 is newer"):
        store.read(path)


def test_not_an_sqlite_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    path.write_text("this is not a database, just some text " * 20)
    with pytest.raises(store.StoreError) as exc:
        store.append(path, _run("r1", "t"), [])
    assert str(path) in str(exc.value) and "\n" not in str(exc.value)


def test_same_run_is_appended_once(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    cells = [_cell("seq-a", 1, 0.9, 1.1), _cell("omp-a", 2, 1.9, 2.1)]
    assert store.append(path, _run("r1", "t1"), cells)
    assert not store.append(path, _run("r1", "t1"), cells)
    assert len(store.read(path)) == 2
    assert list(store.runs(path)["cells"]) == [2]


def _append_many(path: str, tag: str, count: int) -> None:
    for i in range(count):
        est = 1.0 + i + (0.5 if tag == "b" else 0.0)  # two campaigns: two results
        cells = [_cell(f"seq-{j}", est, est - 0.1, est + 0.1) for j in range(20)]
        store.append(path, _run(f"{tag}{i}", f"2026-01-01T00:00:{i:02d}Z"), cells)


def test_two_processes_append_at_once(tmp_path: Path) -> None:
    """Two campaigns finishing at the same time: every run of both is kept whole."""
    path = str(tmp_path / "h.sqlite")
    ctx = multiprocessing.get_context("spawn")
    procs = [
        ctx.Process(target=_append_many, args=(path, tag, 25)) for tag in ("a", "b")
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    frame = store.read(path)
    assert frame["run_id"].nunique() == 50
    assert (frame.groupby("run_id").size() == 20).all()


# ------------------------------------------------------------------ regressions


def _est(v: float, lo: float, hi: float) -> stats.Estimate:
    return stats.Estimate(v, lo, hi, 0.95, 6)


def test_verdicts_through_the_intervals() -> None:
    """The one judgement rule on the factor new / old: overlapping intervals are not
    "no change" but inconclusive, since their factor reaches both sides of 1."""
    old = _est(1.0, 0.9, 1.1)
    assert regress.verdict(_est(1.05, 1.0, 1.2), old) == regress.INCONCLUSIVE
    assert regress.verdict(_est(1.3, 1.11, 1.5), old) == regress.REGRESSION
    assert regress.verdict(_est(0.7, 0.6, 0.89), old) == regress.IMPROVEMENT
    # touching intervals: the factor interval reaches 1, the data cannot tell
    assert regress.verdict(_est(1.2, 1.1, 1.3), old) == regress.INCONCLUSIVE
    # no change only where the whole factor interval lies inside the band
    assert regress.verdict(_est(1.0, 0.99, 1.01), _est(1.0, 0.99, 1.01), 0.05) == (
        regress.NO_CHANGE
    )
    # the issue's -O0 cell: 1.30 [0.86..2.22] is inconclusive, not "no change"
    slow = _est(1.30, 1.2, 1.4)
    base = _est(1.0, 0.63, 1.4)
    assert regress.verdict(slow, base, 0.1) == regress.INCONCLUSIVE


def test_min_change_keeps_drift_between_runs_out() -> None:
    """Disjoint intervals closer than history.min_change are drift, not a change; a
    step beyond it is still found in both directions."""
    old = _est(1.0, 0.99, 1.01)
    drift_up, drift_down = _est(1.05, 1.04, 1.06), _est(0.95, 0.94, 0.96)
    assert regress.verdict(drift_up, old) == regress.REGRESSION
    assert regress.verdict(drift_up, old, 0.1) == regress.NO_CHANGE
    assert regress.verdict(drift_down, old, 0.1) == regress.NO_CHANGE
    assert regress.verdict(_est(1.2, 1.15, 1.25), old, 0.1) == regress.REGRESSION
    assert regress.verdict(_est(0.8, 0.75, 0.85), old, 0.1) == regress.IMPROVEMENT


def _frame(runs_cells: list[tuple[dict, list[dict]]]) -> pd.DataFrame:
    rows = [{**run, **cell} for run, cells in runs_cells for cell in cells]
    return pd.DataFrame(rows)


def test_latest_run_against_the_previous_one_with_factor_interval() -> None:
    frame = _frame(
        [
            (_run("r1", "2026-01-01", "rev1"), [_cell("seq-a", 9.0, 8.0, 10.0)]),
            (
                _run("r2", "2026-01-02", "rev2"),
                [
                    _cell("seq-a", 1.0, 0.9, 1.1),
                    _cell("omp-a", 1.0, 0.9, 1.1),
                ],
            ),
            (
                _run("r3", "2026-01-03", "rev3"),
                [
                    _cell("seq-a", 2.0, 1.8, 2.2),  # vs r2 (the previous), not r1
                    _cell("omp-a", 1.05, 0.95, 1.15),
                    _cell("mpi-a", 1.0, 0.9, 1.1),
                ],
            ),
        ]
    )
    rows = {r["point"]: r for r in regress.regressions(frame)}
    seq = rows["seq-a"]
    assert seq["verdict"] == regress.REGRESSION
    assert seq["baseline_run_id"] == "r2" and seq["baseline_git_rev"] == "rev2"
    assert seq["factor"] == pytest.approx(2.0)
    assert seq["factor_low"] == pytest.approx(1.8 / 1.1)
    assert seq["factor_high"] == pytest.approx(2.2 / 0.9)
    assert rows["omp-a"]["verdict"] == regress.INCONCLUSIVE
    assert rows["omp-a"]["factor_low"] < 1 < rows["omp-a"]["factor_high"]
    assert rows["mpi-a"]["verdict"] == regress.NA
    assert rows["mpi-a"]["note"] == "no earlier run on machine m1"
    lines = regress.regressed_lines(list(rows.values()))
    assert len(lines) == 1 and lines[0].startswith(
        "seq-a on m1: 2x slower [1.64..2.44]"
    )


def test_improvement_and_failed_cells() -> None:
    frame = _frame(
        [
            (
                _run("r1", "t1"),
                [_cell("seq-a", 2.0, 1.9, 2.1), _cell("omp-a", 1.0, 0.9, 1.1)],
            ),
            (
                _run("r2", "t2"),
                [
                    _cell("seq-a", 1.0, 0.95, 1.05),
                    _cell("omp-a", None, None, None, status="failed"),
                ],
            ),
        ]
    )
    rows = {r["point"]: r for r in regress.regressions(frame)}
    assert rows["seq-a"]["verdict"] == regress.IMPROVEMENT
    assert rows["seq-a"]["factor_high"] == pytest.approx(1.05 / 1.9)
    assert rows["omp-a"]["verdict"] == regress.NA
    assert rows["omp-a"]["note"] == "failed in this run"


def test_machines_are_kept_apart_unless_asked() -> None:
    fast = _cell("seq-a", 1.0, 0.9, 1.1, machine="fast")
    slow = _cell("seq-a", 3.0, 2.8, 3.2, machine="slow")
    frame = _frame([(_run("r1", "t1"), [fast]), (_run("r2", "t2"), [slow])])
    (apart,) = regress.regressions(frame)
    assert apart["verdict"] == regress.NA
    assert apart["note"] == "no earlier run on machine slow"
    (together,) = regress.regressions(frame, compare_machines=True)
    assert together["verdict"] == regress.REGRESSION
    assert together["baseline_machine"] == "fast"
    # a later run on the fast machine is compared with the fast one only
    later = _cell("seq-a", 1.0, 0.92, 1.08, machine="fast")
    frame = _frame(
        [
            (_run("r1", "t1"), [fast]),
            (_run("r2", "t2"), [slow]),
            (_run("r3", "t3"), [later]),
        ]
    )
    (row,) = regress.regressions(frame)
    assert row["verdict"] == regress.INCONCLUSIVE and row["baseline_run_id"] == "r1"


# ------------------------------------------------------------------ campaign directories


def _campaign_dir(path: Path, scale: float = 1.0, host: str = "box") -> Path:
    """A finished campaign's summary and measurements, made by ciphersweep.core.stats."""
    path.mkdir(parents=True)
    rows, meas = [], []
    for point, base in (
        ("seq-ttable-ctr-enc-1KiB-r1-t1", 1e-3),
        ("openssl-aes-128-ctr-enc-1KiB-r1-t1", 1e-4),
    ):
        times = [base * scale * (1 + 0.01 * i) for i in range(6)]
        backend = point.split("-")[0]
        row = {
            "point": point,
            "backend": backend,
            "cfg_impl": "ttable" if backend == "seq" else "evp",
            "mode": "ctr",
            "op": "encrypt",
            "cipher": "aes-128-ctr",
            "input_name": "1KiB",
            "size_label": "1KiB",
            "bytes": 1024,
            "ranks": 1,
            "threads": 1,
            "gpus": 0,
            "status": "ok",
            "n": 6,
            "host": host,
            "git_rev": "0123456789abcdef",
            **stats.summarize(times, "t_total", list(range(6))),
        }
        rows.append(row)
        meas += [
            {
                "campaign": "c",
                "point": point,
                "t_total": t,
                "cpu_model": "Some CPU",
                "cflags": "-O3",
                "timestamp": f"2026-01-0{int(scale)}T00:00:0{i}Z",
            }
            for i, t in enumerate(times)
        ]
    pd.DataFrame(rows).to_csv(path / "summary.csv", index=False)
    pd.DataFrame(meas).to_parquet(path / "measurements.parquet")
    return path


def test_campaign_dir_as_a_run(tmp_path: Path) -> None:
    d = _campaign_dir(tmp_path / "c")
    run = runs.from_campaign(d, build_digests={"": "sha256:b"}, git_dirty=True)
    assert run.info["campaign"] == "c" and run.info["git_dirty"] == 1
    assert run.info["run_time"] == "2026-01-01T00:00:05Z"
    seq = next(c for c in run.cells if c["backend"] == "seq")
    est = stats.median_ci([1e-3 * (1 + 0.01 * i) for i in range(6)])
    assert (seq["estimate"], seq["ci_low"], seq["ci_high"]) == pytest.approx(
        (est.value, est.low, est.high)
    )
    assert seq["machine"] == "box" and seq["cpu_model"] == "Some CPU"
    assert seq["build_digest"] == "sha256:b" and seq["variant"] == ""
    # another machine name: another run id; the same one: the same id
    assert runs.from_campaign(d, machine="other").run_id != run.run_id
    assert runs.from_campaign(d).run_id == run.run_id


def test_two_appends_of_one_run_time_keep_their_order(tmp_path: Path) -> None:
    """Two campaign directories whose records end in the same second, appended within
    a second: both runs have the same run time, and the later append comes later."""
    path = tmp_path / "h.sqlite"
    filed = []
    for name, scale in (("c", 1.0), ("d", 1.5)):
        run = runs.from_campaign(_campaign_dir(tmp_path / name, scale))
        store.append(path, run.info, run.cells)
        filed.append(run.run_id)
    frame = store.read(path)
    assert frame["run_time"].nunique() == 1
    assert regress.run_order(frame) == filed


def test_variant_from_point_id() -> None:
    assert runs.variant_of("seq-ttable-ctr-enc-1KiB-r1-t1-vO2") == "O2"
    assert runs.variant_of("cuda-gpu-lanes-ctr-enc-1KiB-r1-t1-g1-b256-s4-vO0") == "O0"
    assert runs.variant_of("seq-ttable-ctr-enc-1KiB-r1-t1") == ""


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ciphersweep.analysis.history", *args],
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT / "workflow"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_import_and_export(tmp_path: Path) -> None:
    a = _campaign_dir(tmp_path / "a", 1.0)
    b = _campaign_dir(tmp_path / "b", 2.0)
    st = tmp_path / "h.sqlite"
    imp = _cli("import", str(a), str(b), "--store", str(st), cwd=tmp_path)
    assert imp.returncode == 0, imp.stderr
    assert imp.stdout.count("added") == 2
    again = _cli("import", str(a), "--store", str(st), cwd=tmp_path)
    assert "already in the store" in again.stdout
    # another machine's run of the same day, filed under m2 (a's own results filed
    # again under m2 would be refused: test_history_guard)
    m2 = _campaign_dir(tmp_path / "m2", 1.1)
    other = _cli("import", str(m2), "--store", str(st), "--machine", "m2", cwd=tmp_path)
    assert other.returncode == 0 and "added" in other.stdout
    out = tmp_path / "export.csv"
    exp = _cli("export", "--store", str(st), "-o", str(out), cwd=tmp_path)
    assert exp.returncode == 0, exp.stderr
    frame = pd.read_csv(out)
    assert len(frame) == 6 and frame["run_id"].nunique() == 3
    assert sorted(frame["machine"].unique()) == ["box", "m2"]
    # b (twice a's times, the latest run) against a on the same machine, never
    # against the later run filed under m2
    rows = regress.regressions(store.read(st))
    assert [r["verdict"] for r in rows] == [regress.REGRESSION] * 2
    assert {(r["machine"], r["baseline_machine"]) for r in rows} == {("box", "box")}
    assert all(r["factor"] == pytest.approx(2.0) for r in rows)


def test_cli_mistakes_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    bad = _cli("import", str(tmp_path / "empty"), cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and "no summary.csv" in bad.stderr
    none = _cli("export", "--store", str(tmp_path / "none.sqlite"), cwd=tmp_path)
    assert none.returncode == 2 and "--store" in none.stderr
    assert "Traceback" not in bad.stderr + none.stderr


# ------------------------------------------------------------------ outputs


def test_tables_and_trend_plot(tmp_path: Path) -> None:
    fast = _cell("seq-a", 1.0, 0.9, 1.1)
    frame = _frame(
        [
            (_run("r1", "t1", "aaaaaaaaaa"), [fast, _cell("mpi-b", 1, 0.9, 1.1)]),
            (
                _run("r2", "t2", "bbbbbbbbbb"),
                [_cell("seq-a", 2, 1.9, 2.1, machine="m2")],
            ),
        ]
    )
    hist = outputs.history_frame(frame)
    assert list(hist["run"]) == [1, 1, 2]
    table = outputs.history_table(frame)
    assert table.columns == ["1 aaaaaaa", "2 bbbbbbb"]
    assert table.intervals[("seq-a @ m1", "1 aaaaaaa")] == (0.9, 1.1)
    fig = trends.plot(frame)
    assert [ax.get_title() for ax in fig.axes] == ["mpi", "seq"]
    labels = [t.get_text() for t in fig.axes[1].get_xticklabels()]
    assert labels == ["1\naaaaaaa", "2\nbbbbbbb"]
    # a build that differs between runs is named under the revision
    frame["build_digest"] = ["sha256:111111aa", "sha256:111111aa", "sha256:222222bb"]
    assert trends.run_labels(frame) == [
        "1\naaaaaaa\nbuild 111111",
        "2\nbbbbbbb\nbuild 222222",
    ]
    # machines: two series in the seq panel, never one line
    assert len(fig.axes[1].get_legend().get_texts()) == 2
    paths = [tmp_path / f"t.{ext}" for ext in trends.FORMATS]
    trends.write(frame, paths)
    assert paths[0].read_bytes()[:4] == b"\x89PNG"
    assert b"%PDF" in paths[1].read_bytes()[:8]


def test_one_run_gives_a_note_not_a_trend(tmp_path: Path) -> None:
    """A campaign's first run has nothing to trend: the figure says so (and costs a
    fraction of the panels' drawing); the second run draws the panels."""
    one = _frame([(_run("r1", "t1", "aaaaaaaaaa"), [_cell("seq-a", 1.0, 0.9, 1.1)])])
    fig = trends.plot(one)
    assert fig.axes == []
    assert any("a trend needs two" in t.get_text() for t in fig.texts)
    paths = [tmp_path / f"t.{ext}" for ext in trends.FORMATS]
    trends.write(one, paths)
    assert paths[0].read_bytes()[:4] == b"\x89PNG"
    empty = one.iloc[0:0]
    assert any("no runs" in t.get_text() for t in trends.plot(empty).texts)
    two = _frame(
        [
            (_run("r1", "t1", "aaaaaaaaaa"), [_cell("seq-a", 1.0, 0.9, 1.1)]),
            (_run("r2", "t2", "bbbbbbbbbb"), [_cell("seq-a", 1.1, 1.0, 1.2)]),
        ]
    )
    assert [ax.get_title() for ax in trends.plot(two).axes] == ["seq"]


# ------------------------------------------------------------------ config


def test_history_config_defaults_and_mistakes() -> None:
    base = {
        "campaign": "c",
        "sizes": ["1KiB"],
        "backends": {"seq": {"impls": ["ttable"]}},
    }
    cfg = config.validate(base, root=ROOT)
    assert cfg["history"] == {
        "enabled": True,
        "path": "results/history.sqlite",
        "fail_on_regression": False,
        "inconclusive": "warn",
        "min_change": 0.1,
        "compare_machines": False,
        "machine": None,
    }
    for bad, key in (
        ({"inconclusive": "maybe"}, "history.inconclusive"),
        (
            {"enabled": False, "fail_on_regression": True},
            "history.fail_on_regression",
        ),
        ({"enabled": False, "inconclusive": "fail"}, "history.inconclusive"),
        ({"path": "results/h.csv"}, "history.path"),
        ({"fail_on_regression": "yes"}, "history.fail_on_regression"),
        ({"min_change": -0.1}, "history.min_change"),
        ({"machine": "a b"}, "history.machine"),
        ({"window": 3}, "history"),
    ):
        with pytest.raises(config.ConfigError) as exc:
            config.validate({**base, "history": bad}, root=ROOT)
        line = config.format_error(exc.value)
        assert key in line and "\n" not in line, line


# ------------------------------------------------------------------ drift between runs


def test_an_unchanged_build_is_never_a_regression() -> None:
    """Re-measuring the same binary: its factor 1.23 [1.2..1.26] lies above any band,
    but the build and image did not change, so it is drift, said in the note."""
    old = _cell("omp-a", 1.0, 0.99, 1.01, build_digest="b1")
    new = _cell("omp-a", 1.23, 1.21, 1.25, build_digest="b1")
    frame = _frame([(_run("r1", "t1"), [old]), (_run("r2", "t2"), [new])])
    (row,) = regress.regressions(frame, min_change=0.0)
    assert row["verdict"] == regress.NO_CHANGE
    assert "drift between runs" in row["note"]
    assert row["band_source"] == "unchanged code (a control cell)"
    assert regress.regressed_lines([row]) == []


def test_control_cells_set_the_band_of_a_changed_cell() -> None:
    """Cells whose build did not change moved 30 % between the two runs: a changed
    cell 1.25x slower is within that drift, one 3x slower is a regression; the row
    says the band came from the control cells."""
    old = [
        _cell("openssl-a", 1.0, 0.99, 1.01, build_digest="k"),
        _cell("openssl-b", 1.0, 0.99, 1.01, build_digest="k"),
        _cell("seq-a", 1.0, 0.99, 1.01, build_digest="v1"),
        _cell("seq-b", 1.0, 0.99, 1.01, build_digest="v1"),
    ]
    new = [
        _cell("openssl-a", 1.3, 1.29, 1.31, build_digest="k"),
        _cell("openssl-b", 1.1, 1.09, 1.11, build_digest="k"),
        _cell("seq-a", 1.25, 1.24, 1.26, build_digest="v2"),
        _cell("seq-b", 3.0, 2.97, 3.03, build_digest="v2"),
    ]
    frame = _frame([(_run("r1", "t1"), old), (_run("r2", "t2"), new)])
    rows = {r["point"]: r for r in regress.regressions(frame, min_change=0.05)}
    assert rows["seq-a"]["verdict"] == regress.NO_CHANGE
    assert rows["seq-a"]["band"] == pytest.approx(0.3)
    assert rows["seq-a"]["band_source"] == "2 cells unchanged in both runs"
    assert rows["seq-b"]["verdict"] == regress.REGRESSION
    assert "band ±30% (2 cells unchanged in both runs)" in rows["seq-b"]["note"]
    # without controls the floor decides, and says so
    lone = _frame([(_run("r1", "t1"), old[2:3]), (_run("r2", "t2"), new[2:3])])
    (row,) = regress.regressions(lone, min_change=0.05)
    assert row["verdict"] == regress.REGRESSION
    assert row["band_source"] == "history.min_change: 0.05"


def test_a_cells_own_drift_over_earlier_runs_of_one_build() -> None:
    """The cell moved 40 % between two earlier runs of one build: a new build 1.2x
    slower is not told apart from that; the band names the cell's history."""
    runs = [
        (_run("r1", "t1"), [_cell("seq-a", 1.0, 0.99, 1.01, build_digest="v1")]),
        (_run("r2", "t2"), [_cell("seq-a", 1.4, 1.39, 1.41, build_digest="v1")]),
        (_run("r3", "t3"), [_cell("seq-a", 1.68, 1.67, 1.69, build_digest="v2")]),
    ]
    (row,) = regress.regressions(_frame(runs), min_change=0.05)
    assert row["verdict"] == regress.NO_CHANGE
    assert row["band_source"] == "1 earlier pairs of runs of one build"


def test_a_factor_interval_straddling_the_band_is_inconclusive_and_gated() -> None:
    """Under load: 1.30 [0.86..2.22] reaches both sides; warned by default, a
    failing line under history.inconclusive: fail (common.smk's gate)."""
    old = _cell("omp-a", 1.0, 0.8, 1.3, build_digest="v1")
    new = _cell("omp-a", 1.3, 1.12, 1.78, build_digest="v2")
    frame = _frame([(_run("r1", "t1"), [old]), (_run("r2", "t2"), [new])])
    (row,) = regress.regressions(frame, min_change=0.1)
    assert row["verdict"] == regress.INCONCLUSIVE
    assert row["level"] == pytest.approx(0.95 * 0.95)
    assert regress.regressed_lines([row]) == []
    (line,) = regress.inconclusive_lines([row])
    assert line.startswith(
        "omp-a on m1: 1.3x inconclusive [0.862..2.23] at level 90.2%"
    )


def test_runs_of_another_statistic_are_never_compared() -> None:
    mean_run = {**_run("r1", "t1"), "statistic": "mean"}
    frame = _frame(
        [
            (mean_run, [_cell("seq-a", 1.0, 0.99, 1.01)]),
            (_run("r2", "t2"), [_cell("seq-a", 3.0, 2.9, 3.1)]),
        ]
    )
    (row,) = regress.regressions(frame)
    assert row["verdict"] == regress.NA
    assert row["note"] == (
        "earlier runs on machine m1 used the mean, never compared with the median"
    )


def test_the_regressions_caption_states_levels_bands_and_counts() -> None:
    """Three repetitions per cell: min..max at 75 %, so factors at 56.2 %; the
    caption says so instead of a typed 95 %."""
    old = _cell("omp-a", 1.0, 0.9, 1.1, ci_level=0.75, n=3, build_digest="v1")
    new = _cell("omp-a", 2.0, 1.9, 2.1, ci_level=0.75, n=3, build_digest="v2")
    frame = _frame([(_run("r1", "t1"), [old]), (_run("r2", "t2"), [new])])
    rows = regress.regressions(frame, min_change=0.1)
    caption = outputs.regressions_caption(rows)
    assert "at 56.2 %" in caption and "95" not in caption
    assert "over 3 repetitions per cell" in caption
    assert "bands ±10 %" in caption
    assert "1 regression, 0 improvement, 0 no change, 0 inconclusive" in caption
    assert "(median)" in caption


def test_history_captions_state_what_the_stored_cells_rest_on() -> None:
    """The runs table and the trend plot say the statistic, the levels and the
    repetitions the stored cells were computed with, not a typed 95 %."""
    frame = _frame(
        [
            (
                {**_run("r1", "t1"), "statistic": "mean"},
                [_cell("seq-a", 1.0, 0.9, 1.1, ci_level=0.75, n=3)],
            ),
            (
                {**_run("r2", "t2"), "statistic": "mean"},
                [_cell("seq-a", 1.0, 0.9, 1.1, n=1966)],
            ),
        ]
    )
    basis = outputs.stored_basis(frame)
    assert basis == "the mean with its 75-95 % interval, 3-1,966 repetitions per cell"
    assert basis in outputs.history_table(frame).caption
    assert basis in trends.caption(basis) and "95 % confidence" not in trends.caption(
        basis
    )


def test_a_version_1_store_is_read_as_it_is_and_upgraded_by_an_append(
    tmp_path: Path,
) -> None:
    """A store written before the code digest: reading it changes nothing; the next
    append adds the column (NULL for the old cells) and its cells carry it."""
    from ciphersweep.analysis.history import schema

    path = tmp_path / "v1.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE schema_version (version INTEGER)")
        schema.MIGRATIONS[1](db)
        db.execute("INSERT INTO schema_version (version) VALUES (1)")
    old = _cell("seq-a", 1.0, 0.9, 1.1, build_digest="b1")
    old.pop("code_digest", None)
    with sqlite3.connect(path) as db:
        cols = [c for c in schema.CELL_COLUMNS_V1 if c != "run_id"]
        db.execute(
            "INSERT INTO runs (run_id, campaign, run_time, statistic) VALUES "
            "('r1', 'c', '2026-01-01T00:00:00Z', 'median')"
        )
        db.execute(
            f"INSERT INTO cells (run_id, {', '.join(cols)}) VALUES "
            f"('r1', {', '.join('?' * len(cols))})",
            [old.get(c) for c in cols],
        )
    before = path.read_bytes()
    frame = store.read(path)
    assert path.read_bytes() == before and "code_digest" not in frame
    assert store.schema_version(path) == 1
    new = _cell("seq-a", 1.0, 0.9, 1.1, build_digest="b1", code_digest="abc")
    assert store.append(path, _run("r2", "2026-01-02T00:00:00Z"), [new])
    assert store.schema_version(path) == 2
    frame = store.read(path)
    assert frame["code_digest"].isna().tolist() == [True, False]


def test_the_code_digest_decides_what_is_unchanged() -> None:
    """Two cells of one build whose fingerprints differ (a Python library's version,
    a code-path variable) are not controls; the same digest is, whatever the build
    digest says; cells without digests fall back to build and image."""
    a = _cell("py-a", 1.0, 0.9, 1.1, build_digest="b", code_digest="x")
    assert not regress.unchanged(a, {**a, "code_digest": "y"})
    assert regress.unchanged(a, {**a, "build_digest": "other"})
    assert not regress.unchanged(a, {**a, "code_digest": None})
    legacy = _cell("seq-a", 1.0, 0.9, 1.1, build_digest="b")
    assert regress.unchanged(legacy, dict(legacy))
    assert not regress.unchanged(legacy, {**legacy, "image_digest": "i"})
    fp = {"binary_sha256": "ab", "libraries": {"pycryptodome": "3.20.0"}}
    assert runs.code_digest(fp) == runs.code_digest(json.dumps(fp, sort_keys=True))
    assert runs.code_digest(None) is None and runs.code_digest("null") is None


def test_the_point_key_is_one_list_from_the_summary_to_every_table() -> None:
    """A cell's point key (schema.POINT_KEY) is the store's, the cells a run is made
    of and the leading columns of history.csv and regressions.csv; each of its
    columns is read from the summary row gather wrote for the point."""
    key = schema.POINT_KEY
    n = len(key)
    at = schema.CELL_COLUMNS_V1.index(key[0])
    assert schema.CELL_COLUMNS_V1[at : at + n] == key
    assert regress.COLUMNS[:n] == key and regress.POINT_COLUMNS == (*key, "machine")
    at = outputs.HISTORY_COLUMNS.index(key[0])
    assert outputs.HISTORY_COLUMNS[at : at + n + 1] == (*key, "machine")
    p = make_point(backend="cuda", impl="gpu-ttable", gpus=1, block_threads=256)
    row = {**records.point_row(p), "status": "failed", "impl": "other"}
    cell = runs._cell(row, "median", "m", {}, {})
    assert [cell[k] for k in key] == [
        p.id,
        "cuda",
        "gpu-ttable",  # the planned impl (summary's cfg_impl)
        p.cipher,
        p.mode,
        p.op,
        p.size_label,
        p.size_bytes,
        p.ranks,
        p.threads,
        1,
        256,
        runs.variant_of(p.id),
    ]
