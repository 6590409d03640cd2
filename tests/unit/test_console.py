"""The console: the logger plugin's progress line and the end-of-campaign summary."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd
import pytest
from ciphersweep.campaign import console
from snakemake_interface_logger_plugins.common import LogEvent
from snakemake_logger_plugin_ciphersweep import Progress, clock
from support import console as _handler
from support import log_record as _rec


def test_progress_line_counts_points_and_failures() -> None:
    h, out = _handler()
    h.emit(_rec(None, msg="ciphersweep: 2 points", ciphersweep="plan", points=2))
    h.emit(_rec(LogEvent.RUN_INFO, stats={"bench": 1, "gather": 1, "total": 2}))
    h.emit(
        _rec(
            LogEvent.JOB_INFO,
            jobid=1,
            rule_name="bench",
            output=["packs/pack-n1-r1-c1-g0-1.txt"],
            wildcards={"pack": "pack-n1-r1-c1-g0-1"},
            input=[f"in{i}" for i in range(47)],
            shellcmd=None,
        )
    )
    h.emit(_rec(LogEvent.SHELLCMD, shellcmd=None))
    for point, failure in (("seq-1KiB", None), ("mpi-1KiB", "exit 1: boom")):
        h.emit(_rec(None, msg="m", ciphersweep="point", point=point, failure=failure))
    h.emit(_rec(LogEvent.JOB_FINISHED, job_id=1))
    h.emit(_rec(LogEvent.PROGRESS, done=2, total=2))
    h.emit(_rec(None, msg="Building DAG of jobs..."))
    h.emit(_rec(None, msg="Nothing to be done (all requested files are present)."))
    h.emit(_rec(None, level=logging.WARNING, msg="ciphersweep: re-running 1 point"))
    h.emit(_rec(None, msg="ciphersweep: campaign t finished", ciphersweep="summary"))
    text = out.getvalue()
    lines = text.splitlines()
    assert lines[0].startswith("ciphersweep: 2 benchmark points to measure (2 jobs)")
    assert "failed: mpi-1KiB: exit 1: boom" in lines
    assert any(line.startswith("[##########----------] 1/2 points") for line in lines)
    assert any("2/2 points, 1 failed" in line for line in lines)
    assert "ciphersweep: re-running 1 point" in lines
    assert "Nothing to be done (all requested files are present)." in lines
    assert lines[-1] == "ciphersweep: campaign t finished"
    for noise in ("Building DAG", "Shell command", "in46", "None", "2 points\n"):
        assert noise not in text, noise


def test_verbose_is_snakemakes_output_without_noise() -> None:
    h, out = _handler(printshellcmds=True)
    h.setFormatter(logging.Formatter("%(message)s"))
    h.emit(_rec(LogEvent.SHELLCMD, msg="Shell command: None", shellcmd=None))
    r = _rec(LogEvent.JOB_INFO, msg="rule build:", input=[f"f{i}" for i in range(47)])
    h.emit(r)
    assert out.getvalue() == "rule build:\n"
    assert r.input == ["f0", "f1", "f2", "... (44 more)"]


def test_without_progress_it_is_snakemakes_output_but_errors_are_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    h, out = _handler(progress=False)
    h.setFormatter(logging.Formatter("%(message)s"))
    h.emit(_rec(None, msg="Building DAG of jobs..."))
    report = (
        'WorkflowError in file "/x/common.smk", line 53:\n'
        "ciphersweep: invalid config: reps: 0 is too small (allowed: >= 1)\n"
        '  File "/x/common.smk", line 53, in <module>'
    )
    h.emit(_rec(LogEvent.ERROR, logging.ERROR, report, exception="WorkflowError"))
    other = "KeyError in file \"/x/common.smk\", line 9:\n'k'"
    h.emit(_rec(LogEvent.ERROR, logging.ERROR, other, exception="KeyError"))
    assert out.getvalue() == "Building DAG of jobs...\n"
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "ciphersweep: invalid config: reps: 0 is too small (allowed: >= 1)"
    assert (
        err[1:] == other.splitlines()
    )  # not the workflow's own: as Snakemake words it


def test_eta_and_clock() -> None:
    p = Progress(points_total=4, points_done=1, started=0.0, bench_started=10.0)
    assert p.eta(now=40.0) == ", ~01:30 left"
    assert "1/4 points, 0 failed, 00:40 elapsed, ~01:30 left" in p.line(now=40.0)
    assert clock(3725) == "1:02:05"


def test_summary_lines(tmp_path: Path) -> None:
    res = tmp_path / "results" / "c"
    (res / "tables").mkdir(parents=True)
    (res / "plots").mkdir()
    for f in ("time.csv", "time.md", "speedup.csv"):
        (res / "tables" / f).write_text("x")
    (res / "plots" / "throughput.png").write_bytes(b"x")
    rows = [{"point": f"p{i}", "status": "ok", "reason": None} for i in range(3)]
    rows += [
        {"point": f"f{i}", "status": "failed", "reason": f"r{i}"} for i in range(5)
    ]
    pd.DataFrame(rows).to_csv(res / "summary.csv", index=False)
    cmd = console.report_command(res / "report.html", ["campaigns/c.yaml"])
    lines = console.summary_lines(res, res / "report.html", cmd)
    assert lines[0] == "ciphersweep: campaign c finished"
    assert "  points measured: 3 of 8, 5 failed" in lines
    assert "    failed f0: r0" in lines and "    failed f3: r3" not in lines
    assert any("2 more in" in line for line in lines)
    assert "  noisy cells: 0 of 3 times" in "\n".join(lines)
    assert f"  tables: {res / 'tables'}/ (speedup, time; .csv .md .tex)" in lines
    assert any(line.startswith("  plots:") and "throughput" in line for line in lines)
    assert f"  report: not made yet ({res / 'report.html'})" in lines
    assert lines[-1].endswith(
        f"snakemake --profile profiles/local --configfile campaigns/c.yaml {res}/report.html"
    )
    # a 95 % interval of +-10 % against a +-5 % target is noisy; +-1 % is not
    rows = [
        {"point": p, "status": "ok", "t_total_median": 1.0, "t_total_ci_low": lo,
         "t_total_ci_high": hi, "t_total_ci_level": 0.96, "n": 20}
        for p, lo, hi in (("a", 0.9, 1.1), ("b", 0.99, 1.01))
    ]  # fmt: skip
    pd.DataFrame(rows).to_csv(res / "summary.csv", index=False)
    lines = console.summary_lines(
        res, res / "report.html", cmd, cfg={"precision": {"target": 0.05}}
    )
    assert any(line.startswith("  noisy cells: 1 of 2 times") for line in lines)
    assert "wider than ±5%" in "\n".join(lines)
    # the level and the repetitions those cells have, not a level typed in
    assert "(median of 20 repetitions (adaptive), 96 % CI;" in "\n".join(lines)


def test_without_a_plan_the_progress_counts_bench_jobs() -> None:
    """A run that does not gather (a pack's list as the target) or only forced packs:
    no count of points before the jobs, so the line counts jobs."""
    h, out = _handler()
    h.emit(_rec(None, msg="ciphersweep: 0 points", ciphersweep="plan", points=0))
    h.emit(_rec(LogEvent.RUN_INFO, stats={"bench": 2, "total": 3}))
    h.emit(_rec(None, msg="m", ciphersweep="point", point="seq-1KiB", failure=None))
    h.emit(_rec(LogEvent.PROGRESS, done=1, total=3))
    h.emit(_rec(LogEvent.PROGRESS, done=3, total=3))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("ciphersweep: 2 benchmark jobs to run (3 jobs)")
    assert any(line.startswith("[####################] 3/3 jobs") for line in lines)


def test_a_dry_run_is_a_summary_and_verbose_lists_every_point() -> None:
    """A dry run without --verbose shows the plan summary, Snakemake's counts once and
    its reasons per rule, not its run header, a block per job nor a line per point;
    with --verbose (or -p) it shows all of them as Snakemake words them."""
    reasons = (
        "Reasons:\n    (check individual jobs above for details)\n"
        "    output files have to be generated:\n        bench"
    )
    records = [
        _rec(LogEvent.WORKFLOW_STARTED, msg="SNAKEMAKE header"),
        _rec(None, msg="ciphersweep: why: 3 no records", ciphersweep="plan_summary"),
        _rec(
            None,
            msg="ciphersweep: to measure: seq-a (no records)",
            ciphersweep="pending",
        ),
        _rec(LogEvent.RUN_INFO, msg="Job stats: bench 1", stats={"bench": 1}),
        _rec(LogEvent.JOB_INFO, msg="rule bench:", input=["a"]),
        _rec(LogEvent.SHELLCMD, msg="Shell command: x", shellcmd="x"),
        # Snakemake counts the jobs again after listing them
        _rec(LogEvent.RUN_INFO, msg="Job stats: bench 1", stats={"bench": 1}),
        _rec(None, msg=reasons),
    ]
    texts = {}
    for flags in ({"dryrun": True}, {"dryrun": True, "verbose": True}):
        h, out = _handler(progress=False, **flags)
        h.setFormatter(logging.Formatter("%(message)s"))
        for r in records:
            h.emit(r)
        texts[len(flags)] = out.getvalue().splitlines()
    assert texts[1] == [
        "ciphersweep: why: 3 no records",
        "Job stats: bench 1",
        "Reasons:",
        "    (every job with its reason: --verbose)",
        "    output files have to be generated:",
        "        bench",
    ]
    assert texts[2] == "\n".join(r.getMessage() for r in records).splitlines()


def test_the_plan_summary_is_a_screenful_at_any_size() -> None:
    """100,000 points planned: a handful of lines counting backends, shapes and
    reasons, with the first and last point and why."""
    from ciphersweep.campaign import plan_summary
    from ciphersweep.verdict.admission import FAILED_PREFIX, NO_RECORDS
    from support import make_point

    points, todo = {}, {}
    for i in range(100_000):
        backend, ranks, threads = [("seq", 1, 1), ("mpi", 4, 1), ("omp", 1, 8)][i % 3]
        p = make_point(
            size=f"{i + 1}B", backend=backend, impl="ref", ranks=ranks, threads=threads
        )
        points[p.id] = p
        todo[p.id] = (
            NO_RECORDS
            if i % 10
            else (
                f"{FAILED_PREFIX}exit 1"
                if i % 20
                else "x.jsonl: planned with other parameters"
            )
        )
    lines = plan_summary.lines(todo, points)
    assert len(lines) == 4
    assert lines[0] == "why: 90000 no records, 5000 failed, 5000 changed"
    assert lines[1] == (
        "by backend and shape: seq 33334, mpi 4 ranks 33333, omp 8 threads 33333"
    )
    first, last = next(iter(todo)), list(todo)[-1]
    assert lines[2] == f"first: {first} (x.jsonl: planned with other parameters)"
    assert lines[3] == f"last: {last} ({NO_RECORDS})"
    shapes = {
        f"p{i}": make_point(size="1KiB", backend="mpi", impl="ref", ranks=i + 2)
        for i in range(12)
    }
    many = plan_summary.lines({k: NO_RECORDS for k in shapes}, shapes)
    assert many[1].endswith(", 4 more shapes")
    assert plan_summary.lines({}, points) == []


def test_the_summary_counts_every_verdict_inconclusive_ones_too(tmp_path: Path) -> None:
    """The end of a campaign counts the claims', references' and regressions' verdicts
    by the judgement rule's words; the history's only while the history is on."""
    res = tmp_path / "results" / "c"
    (res / "compare").mkdir(parents=True)
    (res / "tables").mkdir()
    pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "verdict": [
                "holds",
                "inconclusive: the intervals overlap in 1 of 2 cells",
                "inconclusive: its interval reaches both sides of 2 ±10%",
            ],
        }
    ).to_csv(res / "compare" / "claims.csv", index=False)
    pd.DataFrame({"point": ["p", "q"], "verdict": ["regression", "n/a"]}).to_csv(
        res / "tables" / "regressions.csv", index=False
    )
    cmd = console.report_command(res / "report.html")
    lines = console.summary_lines(res, res / "report.html", cmd)
    assert (
        f"  claims: 1 holds, 2 inconclusive ({res / 'compare' / 'claims.csv'})" in lines
    )
    assert any(
        line.startswith("  regressions: 1 n/a, 1 regression (") for line in lines
    )
    off = {"history": {"enabled": False}}
    lines = console.summary_lines(res, res / "report.html", cmd, cfg=off)
    assert not any(line.startswith("  regressions:") for line in lines)
