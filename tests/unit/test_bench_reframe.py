"""The pure parts of the ReFrame side-by-side benchmark (tests/bench_reframe.py): the
ratio, slope and table arithmetic and the generated ReFrame cases. Nothing here runs
ReFrame, a kernel or the network."""

from __future__ import annotations

import ast
import json
import math
import os
import sys
from pathlib import Path

import bench_reframe as br
import bench_table as bt
import pytest
import reframe_cases as rc
from bench_dryrun import synthetic
from ciphersweep.job import launch_env

KERNELS = Path("/k")


def test_slope_is_the_overhead_per_extra_point() -> None:
    # overhead = 7 s fixed + 0.25 s per point, measured at 20 and 80 points
    assert bt.slope([20, 80], [12.0, 27.0]) == pytest.approx(0.25)
    # more than one run per size: the least-squares line through all of them
    assert bt.slope([20, 20, 80, 80], [11.0, 13.0, 26.0, 28.0]) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="two sizes"):
        bt.slope([20, 20], [1.0, 2.0])


def test_overhead_and_fixed_cost() -> None:
    wall, kernel = 14.0, 3.0
    assert bt.overhead(wall, kernel) == pytest.approx(11.0)
    # 20 points at 0.2 s each leave 7 s of fixed cost
    assert bt.fixed_cost(wall, kernel, 20, 0.2) == pytest.approx(7.0)


def test_ratios_are_per_pair_and_refuse_unpaired_series() -> None:
    assert bt.ratios([2.0, 4.0], [1.0, 6.0]) == pytest.approx([0.5, 1.5])
    assert bt.ratios([0.0, 4.0], [1.0, 2.0]) == pytest.approx([0.5])
    assert bt.ratios([2.0, 4.0], [-1.0, 2.0]) == pytest.approx([0.5])
    with pytest.raises(ValueError, match="unpaired"):
        bt.ratios([1.0, 2.0], [1.0])


def test_row_summarises_each_side_and_judges_every_repetition() -> None:
    r = bt.row("dry run", [40.0, 50.0, 32.0], [4.0, 8.0, 4.0], 0.15)
    assert (r.reframe.median, r.reframe.low, r.reframe.high) == (40.0, 32.0, 50.0)
    assert r.ratio.n == 3
    assert r.ratio.low == pytest.approx(0.1)
    assert r.ratio.high == pytest.approx(0.16)
    assert r.verdict == "MIXED"  # 0.1 and 0.125 meet 0.15, 0.16 does not
    assert bt.row("x", [10.0, 10.0], [1.0, 1.4], 0.15).verdict == "PASS"
    assert bt.row("x", [10.0, 10.0], [2.0, 1.6], 0.15).verdict == "MISS"
    assert bt.row("x", [10.0], [2.0], None).verdict == "—"


def test_markdown_table_shows_median_range_target_and_verdict() -> None:
    rows = [
        bt.row("end to end", [6.5, 7.2], [12.9, 14.0], 1.0),
        bt.row("kernels", [2.0], [2.0], None),
    ]
    lines = bt.markdown(rows).splitlines()
    assert lines[0] == "| work | ReFrame | ciphersweep | ratio | target | verdict |"
    assert lines[2] == (
        "| end to end | 6.85 s [6.50–7.20] | 13.45 s [12.90–14.00] | "
        "1.96 [1.94–1.98] | ≤ 1× | MISS |"
    )
    assert lines[3] == "| kernels | 2.00 s | 2.00 s | 1.00 | — | — |"
    negative = bt.markdown([bt.row("fixed", [1.0, 2.0], [-1.0, 3.0], None)])
    assert "| 1.50 (1 of 2 pairs > 0) | — | — |" in negative


def test_json_has_no_nan_where_nothing_was_measured() -> None:
    rows = [bt.row("nothing", [], [], 0.5), bt.row("one", [2.0], [1.0], 0.5)]
    doc = json.loads(bt.as_json(rows, {"repeats": 1}))
    assert doc["rows"][0]["ratio"]["median"] is None
    assert doc["rows"][0]["verdict"] == "—"
    assert doc["rows"][1]["ratio"]["median"] == 0.5
    assert doc["rows"][1]["verdict"] == "PASS"
    assert bt.spread([]).text() == "n/a"
    assert math.isnan(bt.spread([]).median)


def test_listing_sweep_has_as_many_cases_as_the_dry_run_plans() -> None:
    cases = rc.cases(synthetic(5000), KERNELS)
    assert len(cases) == 5016
    assert len({c.name for c in cases}) == 5016


def test_default_campaign_cases_run_the_workflows_launch_lines() -> None:
    cfg = br.campaign(br.SIZES_20, shipped_reps=False)
    cases = {c.name: c for c in rc.cases(cfg, KERNELS, cores=2, is_root=True)}
    assert len(cases) == 20
    mpi = cases["mpi-ttable-r2-ctr-enc-1MiB"].command
    assert mpi.startswith("mpirun -np 2 --allow-run-as-root --mca pml ob1 /k/aes-mpi ")
    # the environment the workflow's one-node mpirun adds
    assert cases["mpi-ttable-r2-ctr-enc-1MiB"].env == {
        **launch_env.mpi_local_env({}),
        **launch_env.mpi_topology_env({}),
    }
    assert "--reps 5 --warmup 1 --energy auto" in mpi
    assert "--target-ci" not in mpi
    omp = cases["omp-ttable-t2-ctr-enc-16MiB"]
    assert "--threads 2" in omp.command
    assert omp.env == {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}
    ssl = cases["openssl-aes-128-ctr-enc-1KiB"].command
    assert ssl.startswith(
        "/k/aes-openssl --cipher aes-128-ctr --op encrypt --size 1KiB"
    )
    assert cases["seq-ttable-ctr-enc-64KiB"].records == 5


def test_shipped_repetitions_run_every_kernel_process() -> None:
    cfg = br.campaign(br.SIZES_20, shipped_reps=True)
    case = rc.cases(cfg, KERNELS, cores=1)[0]
    assert case.command.startswith(f"for p in $(seq {cfg['processes']}); do /k/aes-")
    assert "--target-ci 0.02" in case.command
    assert case.records == cfg["processes"] * cfg["reps"]
    # more ranks than cores: oversubscribed, as the workflow launches it
    mpi = next(c for c in rc.cases(cfg, KERNELS, cores=1) if "-r2-" in c.name)
    assert "mpirun -np 2 --oversubscribe --mca pml ob1" in mpi.command


def test_unknown_backend_is_named() -> None:
    cfg = {"sizes": ["1KiB"], "backends": {"pycryptodome": {}}}
    with pytest.raises(ValueError, match=r"backends\.pycryptodome: not mirrored"):
        rc.cases(cfg, KERNELS)


def test_generated_reframe_files_are_python(tmp_path: Path) -> None:
    cases = rc.cases(br.campaign(br.SIZES_20, shipped_reps=False), KERNELS)
    test = rc.write_suite(tmp_path / "suite", cases)
    compile(test.read_text(), str(test), "exec")
    head, literal = (test.parent / "settings.py").read_text().split("=", 1)
    assert head.strip() == "site_configuration"
    part = ast.literal_eval(literal.strip())["systems"][0]["partitions"][0]
    assert (part["scheduler"], part["launcher"], part["max_jobs"]) == (
        "local",
        "local",
        1,
    )
    stored = json.loads((test.parent / "cases.json").read_text())
    assert [c["name"] for c in stored] == [c.name for c in cases]


def test_options_are_checked_before_anything_runs() -> None:
    a = br.parse_args(["--quick"])
    assert (a.repeats, a.points) == (1, 500)
    assert br.parse_args([]).repeats == 3
    with pytest.raises(SystemExit):
        br.parse_args(["--out", "table.txt"])
    with pytest.raises(SystemExit):
        br.parse_args(["--repeats", "0"])
    assert br.parse_args([]).warmup == 1
    with pytest.raises(SystemExit):
        br.parse_args(["--warmup", "-1"])


def test_warm_up_runs_both_sides_on_the_smaller_campaign_uncounted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = []

    def fake(side: str):
        def run(*a: object, **_k: object) -> br.Run:
            cfg = a[-2]
            ran.append((side, tuple(cfg["sizes"])))
            return br.Run(1.0, 0.1, 20, 0.5)

        return run

    monkeypatch.setattr(br, "rf_run", fake("rf"))
    monkeypatch.setattr(br, "cs_run", fake("cs"))
    br.warm_up(Path("reframe"), br.parse_args(["--warmup", "2"]))
    small = tuple(br.run_sizes(False)[0])
    assert ran == [("rf", small), ("cs", small)] * 2
    assert capsys.readouterr().out.count("(not counted)") == 4
    ran.clear()
    br.warm_up(Path("reframe"), br.parse_args(["--warmup", "0"]))
    assert ran == []


def test_rows_derive_slope_and_fixed_cost_per_side() -> None:
    runs = {
        ("rf", 0): [br.Run(wall=10.0, kernel=2.0, points=20, cpu=7.0)],
        ("rf", 1): [br.Run(wall=25.0, kernel=5.0, points=80, cpu=20.0)],
        ("cs", 0): [br.Run(wall=12.0, kernel=2.0, points=20, cpu=9.5)],
        ("cs", 1): [br.Run(wall=18.0, kernel=5.0, points=80, cpu=14.0)],
        ("bare", 0): [br.Run(wall=4.0, kernel=2.0, points=20, cpu=3.0)],
        ("bare", 1): [br.Run(wall=10.0, kernel=5.0, points=80, cpu=7.5)],
    }
    series = br.Series({"rf": [40.0], "cs": [4.0]}, runs)
    table = br.rows(series, 5016)
    got = {r.work: r for r in table}
    assert got["list / dry-run the same 5,016 cases"].verdict == "PASS"  # 0.1
    e2e = got["the default 20 points end to end"]
    assert (e2e.ratio.median, e2e.verdict) == (pytest.approx(1.2), "MISS")
    # overheads 8 -> 20 s (ReFrame) and 10 -> 13 s (ciphersweep) over 60 extra points
    slope = got["overhead per extra point (20 → 80 points)"]
    assert slope.reframe.median == pytest.approx(0.2)
    assert slope.ciphersweep.median == pytest.approx(0.05)
    assert slope.verdict == "PASS"
    fixed = got["fixed cost of a run (wall − kernels − 20 × slope)"]
    assert fixed.reframe.median == pytest.approx(4.0)  # 10 - 2 - 20 x 0.2
    assert fixed.ciphersweep.median == pytest.approx(9.0)  # 12 - 2 - 20 x 0.05
    assert fixed.verdict == "—"
    # each side's own cost: its wall less the launch lines' alone (4 s, 10 s)
    own = got["own cost of the 20 points (wall − the launch lines alone)"]
    assert (own.reframe.median, own.ciphersweep.median) == (6.0, 8.0)
    per = got["own cost per extra point (20 → 80; wall − the launch lines alone)"]
    assert per.reframe.median == pytest.approx(0.15)  # (15 - 6) / 60
    assert per.ciphersweep.median == pytest.approx(0.0)  # (8 - 8) / 60
    assert per.verdict == "—"
    # and its own CPU time: its processes' CPU less the launch lines' alone (3 s)
    cpu = got["own CPU time of the 20 points (CPU − the launch lines' alone)"]
    assert (cpu.reframe.median, cpu.ciphersweep.median) == (4.0, 6.5)
    assert cpu.verdict == "—"
    # what the lines alone took, and the part of an extra point that is not t_total
    words = br.bare_words(series)
    assert "20 points 4.00 s (Σ t_total 2.00 s)" in words
    assert "not t_total 0.050 s" in words  # (5 - 2) / 60
    # no run without drawing: no row for it
    assert not any("without the plots" in r.work for r in table)


def test_the_run_without_drawing_is_a_row_to_read_beside_the_whole_run() -> None:
    runs = {
        (s, k): [br.Run(wall=w, kernel=2.0 * (1 + 3 * k), points=20 + 60 * k, cpu=w)]
        for (s, k), w in {
            ("rf", 0): 10.0,
            ("rf", 1): 25.0,
            ("cs", 0): 12.0,
            ("cs", 1): 18.0,
            ("bare", 0): 4.0,
            ("bare", 1): 10.0,
            ("cs-nodraw", 0): 7.0,
        }.items()
    }
    table = br.rows(br.Series({"rf": [40.0], "cs": [4.0]}, runs), 5016)
    works = [r.work for r in table]
    want = "the same 20 points without the plots and the report (--omit-from plots history)"
    assert works.index(want) == works.index("the default 20 points end to end") + 1
    row = table[works.index(want)]
    assert (row.reframe.median, row.ciphersweep.median) == (10.0, 7.0)
    assert (row.ratio.median, row.verdict) == (pytest.approx(0.7), "—")


_BURN = "import time\nwhile time.process_time() < 0.3: pass"


def test_a_command_s_cpu_time_counts_the_processes_it_started(tmp_path: Path) -> None:
    """``timed`` gives the CPU time of the whole process tree: a process the command
    started and waited for (as ReFrame's job script waits for a kernel, Snakemake for
    its drawing process) counts as the command's own does."""
    direct = br.timed([sys.executable, "-c", _BURN], tmp_path, "burn")
    assert direct.cpu >= 0.3
    nested = br.timed(
        [
            "/bin/sh",
            "-c",
            f'"{sys.executable}" -c "$BURN"; "{sys.executable}" -c "$BURN"',
        ],
        tmp_path,
        "burn twice",
        {"BURN": _BURN},
    )
    assert nested.cpu >= 0.6
    idle = br.timed(["/bin/sh", "-c", "exec sleep 0.4"], tmp_path, "sleep")
    assert idle.cpu < idle.wall  # a sleeping command's wall is not CPU


def test_the_loaded_condition_runs_its_busy_processes_and_ends_them() -> None:
    """--conditions loaded: N CPU-bound processes run while both sides are measured,
    each in a session of its own (not the bench's, which ciphersweep's kernels share),
    and none is left once the measurement ends (also when it fails)."""
    import psutil

    with br.busy(2) as procs:
        kids = [psutil.Process(p.pid) for p in procs]
        assert len(kids) == 2 and all(k.is_running() for k in kids)
        sessions = {os.getsid(p.pid) for p in procs}
        assert sessions == {p.pid for p in procs} and os.getsid(0) not in sessions
    assert all(p.poll() is not None for p in procs)  # ended and reaped
    try:
        with br.busy(1) as procs:
            raise RuntimeError("a side failed")
    except RuntimeError:
        pass
    assert procs[0].poll() is not None
    args = br.parse_args(["--conditions", "loaded", "--busy", "3"])
    assert args.conditions == ["loaded"] and args.busy == 3
    assert br.parse_args([]).conditions == ["quiet", "loaded"]
