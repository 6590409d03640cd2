"""Admission of repetitions (ciphersweep.verdict.admission), gather on damaged raw files, the
rerun token, atomic outputs and failure reasons, on records a real kernel printed."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from ciphersweep.core import atomic
from ciphersweep.job import kernel_process, record_schema, runner
from ciphersweep.verdict import admission, records
from support import KERNELS, make_point, run_spec

POINT = make_point(reps=2)


@pytest.fixture(scope="module")
def kernel_lines() -> list[str]:
    """Two records of the real aes-seq, as the runner writes them."""
    binary = KERNELS / "aes-seq"
    if not binary.exists():
        pytest.fail("kernels not built (run scripts/build-kernels.sh build/kernels)")
    out = subprocess.run(
        [str(binary), "--impl", "ttable", "--size", "1KiB", "--reps", "2"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = []
    for line in out.splitlines():
        rec = json.loads(line)
        rec.update(point=POINT.id, status="ok", attempt="first")
        lines.append(json.dumps(rec, sort_keys=True))
    assert len(lines) == 2
    return lines


def _raw(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / f"{POINT.id}.jsonl"
    path.write_text("".join(x + "\n" for x in lines))
    return path


def test_complete_verified_file_is_admitted(tmp_path: Path, kernel_lines) -> None:
    v = admission.judge(_raw(tmp_path, kernel_lines), POINT)
    assert v.ok and len(v.records) == 2 and v.reason is None


def test_unverified_copy_is_refused_with_file_and_line(
    tmp_path: Path, kernel_lines
) -> None:
    bad = json.loads(kernel_lines[0])
    bad.update(verified=False, t_total=999)
    path = _raw(tmp_path, kernel_lines + [json.dumps(bad)])
    v = admission.judge(path, POINT)
    assert v.state == "damaged" and not v.records
    assert v.reason == f"{path}:3: verified is False (admitted: true)"


@pytest.mark.parametrize("keep", [1, 3])
def test_wrong_number_of_reps_is_refused(tmp_path: Path, kernel_lines, keep) -> None:
    lines = (kernel_lines * 2)[:keep]
    path = _raw(tmp_path, lines)
    v = admission.judge(path, POINT)
    assert v.state == "damaged"
    assert v.reason == f"{path}: expected 2 records, got {keep}"


def test_truncated_line_names_file_and_line(tmp_path: Path, kernel_lines) -> None:
    line = kernel_lines[1]
    path = _raw(tmp_path, [kernel_lines[0], line[: len(line) // 2]])
    v = admission.judge(path, POINT)
    assert v.state == "damaged"
    assert v.reason.startswith(f"{path}:2: not a complete JSON record")


@pytest.mark.parametrize(
    "change, why",
    [
        ({"status": "running"}, "status is 'running'"),
        ({"point": "seq-ref-ctr-enc-1KiB-r1-t1"}, "record of point"),
        ({"t_total": "fast"}, "does not match the record schema: t_total"),
    ],
)
def test_other_bad_records_are_refused(
    tmp_path: Path, kernel_lines, change, why
) -> None:
    rec = json.loads(kernel_lines[0])
    rec.update(change)
    path = _raw(tmp_path, [json.dumps(rec), kernel_lines[1]])
    v = admission.judge(path, POINT)
    assert v.state == "damaged" and v.reason.startswith(f"{path}:1: {why}")


def test_a_raw_file_is_schema_checked_once_while_it_stays_as_it_is(
    tmp_path: Path, kernel_lines, monkeypatch
) -> None:
    """Planning judges a raw file, the gather after it judges it again in the same
    process: the records of an unchanged file are schema-checked once, a file
    written in between is checked again, and the verdicts are the same."""
    calls: list[str] = []

    def counting(rec):
        calls.append(rec["point"])
        return record_schema.validate_record(rec)

    monkeypatch.setattr(admission, "validate_record", counting)
    path = _raw(tmp_path, kernel_lines)
    first = admission.replan(path, POINT)  # planning
    assert len(calls) == 2
    meas, fails, _ = records.collect([path], [POINT])  # the gather
    assert len(calls) == 2 and len(meas) == 2 and fails.empty
    assert admission.replan(path, POINT) == first
    # a file written since (another bench run) is another file: checked again
    bad = json.loads(kernel_lines[1])
    bad["t_total"] = "fast"
    atomic.write_text(
        path, "".join(x + "\n" for x in [kernel_lines[0], json.dumps(bad)])
    )
    v = admission.judge(path, POINT)
    assert len(calls) == 4 and v.state == "damaged"
    assert v.reason.startswith(f"{path}:2: does not match the record schema: t_total")
    assert admission.judge(path, POINT).reason == v.reason  # damaged: never skipped
    assert len(calls) == 6


def test_attempt_token_changes_only_for_failed_or_damaged(
    tmp_path: Path, kernel_lines
) -> None:
    path = tmp_path / f"{POINT.id}.jsonl"
    assert admission.attempt_token(path, POINT) == record_schema.FIRST
    _raw(tmp_path, kernel_lines)
    assert admission.attempt_token(path, POINT) == "first"
    failed = {"schema": 1, "status": "failed", "reason": "exit 1: boom"}
    path.write_text(json.dumps(failed) + "\n")
    token = admission.attempt_token(path, POINT)
    assert token.startswith("rerun ") and token == admission.attempt_token(path, POINT)
    # the re-run's records carry that token: the point is then up to date
    rerun = [json.dumps({**json.loads(x), "attempt": token}) for x in kernel_lines]
    _raw(tmp_path, rerun)
    assert admission.attempt_token(path, POINT) == token
    _raw(tmp_path, rerun[:1])
    assert admission.attempt_token(path, POINT) not in (token, "first")


def test_gather_marks_damaged_points_failed_and_keeps_the_rest(
    tmp_path: Path, kernel_lines
) -> None:
    other = make_point(impl="ref", reps=2)
    good = tmp_path / f"{other.id}.jsonl"
    good.write_text(
        "".join(
            json.dumps({**json.loads(x), "point": other.id, "impl": "ref"}) + "\n"
            for x in kernel_lines
        )
    )
    bad = _raw(tmp_path, [kernel_lines[0], kernel_lines[1][:40]])
    meas, fails, summary = records.collect([good, bad], [POINT, other])
    assert list(meas["point"]) == [other.id, other.id]
    assert list(fails["point"]) == [POINT.id]
    assert fails["reason"][0].startswith(f"{bad}:2: not a complete JSON record")
    st = summary.set_index("point")["status"].to_dict()
    assert st == {POINT.id: "failed", other.id: "ok"}


def test_failed_gather_keeps_previous_outputs(tmp_path: Path, kernel_lines) -> None:
    out = SimpleNamespace(
        **{
            k: str(tmp_path / f"{k}.x")
            for k in ("csv", "parquet", "failures", "summary")
        }
    )
    for k in vars(out).values():
        Path(k).write_text("previous\n")
    raw = _raw(tmp_path, kernel_lines)
    # the parquet file cannot be written (a directory holds its temporary name): the
    # analysis fails after the CSV was written, and nothing previous is lost
    blocker = atomic.temp_name(out.parquet)
    blocker.mkdir()
    with pytest.raises(OSError):
        records.gather_files([str(raw)], [POINT], out)
    assert all(Path(p).read_text() == "previous\n" for p in vars(out).values())
    assert [x.name for x in tmp_path.iterdir() if x.name.startswith(".")] == [
        blocker.name
    ]
    blocker.rmdir()
    records.gather_files([str(raw)], [POINT], out)
    assert len(pd.read_csv(out.csv)) == 2


def test_replacing_is_all_or_nothing(tmp_path: Path) -> None:
    a, b = tmp_path / "a.png", tmp_path / "b.csv"
    a.write_text("old a")
    with pytest.raises(RuntimeError), atomic.replacing([a, b]) as (ta, _):
        assert ta.suffix == ".png" and ta.parent == tmp_path
        ta.write_text("new a")
        raise RuntimeError("plot failed")
    assert a.read_text() == "old a" and not b.exists()
    assert [x.name for x in tmp_path.iterdir()] == ["a.png"]


def test_killed_kernel_reason_names_the_signal() -> None:
    assert (
        kernel_process.exit_reason(-signal.SIGKILL, "")
        == "killed by signal 9 (SIGKILL)"
    )
    assert (
        kernel_process.exit_reason(-15, "aes-mpi: stopped\n")
        == "killed by signal 15 (SIGTERM): aes-mpi: stopped"
    )
    assert kernel_process.exit_reason(1, "") == "exit 1: no message"


def test_bench_job_error_becomes_the_points_failure(tmp_path: Path) -> None:
    """An error of the job itself (here: a directory where the kernel's record file
    goes) fails the point, not the job: the analysis of the others still runs."""
    out = tmp_path / "raw" / f"{POINT.id}.jsonl"
    (tmp_path / "raw" / f"{POINT.id}.jsonl.kernel.tmp").mkdir(parents=True)
    spec = runner.RunSpec(
        campaign="t",
        input_path=str(tmp_path / "in.bin"),
        out_path=str(out),
        log_path=str(tmp_path / "logs" / f"{POINT.id}.log"),
        kernel_dir=str(KERNELS),
        energy="none",
        attempt="rerun 0123",
    )
    result = runner.run_point(POINT, spec)
    assert result["status"] == "failed"
    assert result["reason"].startswith("the bench job failed: IsADirectoryError")
    v = admission.judge(out, POINT)
    assert v.state == "failed" and v.reason == result["reason"]
    assert v.failure["attempt"] == "rerun 0123"
    assert admission.attempt_token(out, POINT).startswith("rerun ")


def _spec(tmp_path: Path) -> runner.RunSpec:
    return run_spec(tmp_path, POINT, tmp_path / "in.bin")


def _killed_by(sig: int):
    """A kernel runner whose kernel ends by signal ``sig`` after writing half a record."""

    def run(argv: list[str], **_: object) -> subprocess.CompletedProcess:
        json_path = argv[argv.index("--json") + 1]
        Path(json_path).write_text('{"half": ')
        return subprocess.CompletedProcess(argv, -sig, "", "")

    return run


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_interrupted_kernel_leaves_no_record_and_the_previous_file(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """scancel, Ctrl-C or a closed terminal stop the kernel from outside: nothing was
    measured, so no record is written (the job fails and Snakemake restores the
    point's previous raw file), and no scratch file is left behind."""
    spec = _spec(tmp_path)
    with pytest.raises(kernel_process.Interrupted, match=sig.name):
        runner.run_point(POINT, spec, runner=_killed_by(sig))
    assert not Path(spec.out_path).exists()
    assert list(Path(spec.out_path).parent.iterdir()) == []
    assert (
        f"INTERRUPTED: the kernel was stopped by {sig.name}"
        in Path(spec.log_path).read_text()
    )


def test_kernel_killed_by_itself_or_the_system_is_a_failure(tmp_path: Path) -> None:
    """SIGKILL (the OOM killer, the time limit's last word) or SIGSEGV end the point
    with a failure record naming the signal."""
    spec = _spec(tmp_path)
    for sig in (signal.SIGKILL, signal.SIGSEGV):
        result = runner.run_point(POINT, spec, runner=_killed_by(sig))
        assert result["reason"].startswith(f"killed by signal {int(sig)} ({sig.name})")
        v = admission.judge(Path(spec.out_path), POINT)
        assert v.state == "failed" and v.reason == result["reason"]


def test_a_per_process_figure_counts_once_per_process() -> None:
    """cpu_peak_pct is sampled once per kernel process and repeated on each of its
    records: its summary counts one value per process, so one process gives a single
    value (coverage 0) however many repetitions it ran, and two give an interval."""
    one = [{"t_total": t, "cpu_peak_pct": 50.0} for t in (1.0, 1.1, 1.2)]
    s = records._numeric_summary([{**r, "process": 0} for r in one])
    assert s["cpu_peak_pct_ci_level"] == 0.0 and s["t_total_ci_level"] > 0
    assert records._numeric_summary(one)["cpu_peak_pct_ci_level"] == 0.0
    two = [{**r, "process": 0} for r in one]
    two += [{**r, "process": 1, "cpu_peak_pct": 70.0} for r in one]
    s = records._numeric_summary(two)
    assert (s["cpu_peak_pct_ci_low"], s["cpu_peak_pct_ci_high"]) == (50.0, 70.0)
    assert s["cpu_peak_pct_median"] == 60.0


def test_a_summary_counts_only_the_numbers_a_column_holds() -> None:
    """Missing, null, NaN and non-numeric values are left out of a column's summary
    (as pandas.to_numeric(errors="coerce") drops them); numeric text counts."""
    recs = [
        {"t_total": 1.0, "t_compute": 0.5},
        {"t_total": 2.0, "t_compute": None},
        {"t_total": 3.0, "t_compute": float("nan")},
        {"t_total": 4.0, "t_compute": "n/a"},
        {"t_total": 5.0, "t_compute": "0.7"},
        {"t_total": 6.0},
    ]
    s = records._numeric_summary(recs)
    assert s["t_total_median"] == 3.5 and s["t_total_min"] == 1.0
    assert s["t_compute_median"] == pytest.approx(0.6)
    assert "t_h2d_median" not in s  # a column no record holds
