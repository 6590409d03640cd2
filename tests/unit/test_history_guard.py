"""The history store guards itself: a file that is not a whole store of a schema this
release reads is refused with one line before any job and left as it was; reads never
write; no export may overwrite the store or end in a traceback; an import that could
not have been measured, or that the store already holds under another name, is refused
with one line; runs keep the order they ran in; campaign names cannot collide with the
store's files; the end-of-run summary never lists an earlier run's history as this
one's; and the append's marker says what the store holds, also after an interrupt."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ciphersweep.analysis import report
from ciphersweep.analysis.history import guard, outputs, regress, runs, store
from ciphersweep.campaign import console, preflight
from ciphersweep.plan import config
from support import ROOT
from test_history import _campaign_dir, _cell, _cli, _run


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _listing(folder: Path) -> dict[str, str]:
    return {p.name: _digest(p) for p in sorted(folder.iterdir()) if p.is_file()}


def _one_line(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    """A refusal: exit status 2 and one line on stderr holding ``words``."""
    err = proc.stderr.strip()
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "\n" not in err and "Traceback" not in err, err
    for w in words:
        assert w in err, (w, err)
    return err


def _store(path: Path) -> Path:
    """A store with two runs of campaign c."""
    store.append(
        path, _run("r1", "2026-01-01T00:00:00Z"), [_cell("seq-a", 1, 0.9, 1.1)]
    )
    store.append(
        path, _run("r2", "2026-01-02T00:00:00Z"), [_cell("seq-a", 2, 1.9, 2.1)]
    )
    return path


def _random(path: Path) -> None:
    path.write_bytes(bytes((i * 131 + 7) % 256 for i in range(5000)))


def _truncated(path: Path) -> None:
    whole = _store(path.with_name("whole.sqlite"))
    path.write_bytes(whole.read_bytes()[:8192])
    whole.unlink()


def _sql(path: Path, *statements: str) -> None:
    """Statements run on ``path`` by another program, which then closes it."""
    with closing(sqlite3.connect(path)) as db, db:
        for sql in statements:
            db.execute(sql)


def _newer(path: Path) -> None:
    _store(path)
    _sql(path, "UPDATE schema_version SET version = 99")


def _foreign(path: Path) -> None:
    """Another program's database (its own tables, rollback journal)."""
    _sql(
        path,
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
        "INSERT INTO notes (text) VALUES ('keep me')",
    )


BAD_STORES: dict[str, tuple[Callable[[Path], None], str]] = {
    "random bytes": (_random, "not an SQLite file"),
    "truncated": (_truncated, "truncated (8192 bytes"),
    "newer schema": (_newer, "schema version 99 is newer"),
    "another program's": (
        _foreign,
        "not a ciphersweep history store (its tables: notes",
    ),
}


# ------------------------------------------------------------------ before any job


@pytest.mark.parametrize("kind", list(BAD_STORES))
def test_a_bad_store_is_one_line_before_any_job_and_left_as_it_was(
    tmp_path: Path, kind: str
) -> None:
    make, words = BAD_STORES[kind]
    folder = tmp_path / "results"
    folder.mkdir()
    path = folder / "history.sqlite"
    make(path)
    before = _listing(folder)
    cfg = {"history": {"enabled": True, "path": str(path)}}
    with pytest.raises(config.ConfigError) as exc:
        preflight.check_history_store(cfg)
    line = config.format_error(exc.value)
    assert "history.path" in line and str(path) in line and words in line, line
    assert "\n" not in line
    # nothing changed, nothing added beside it (no -wal, no -shm)
    assert _listing(folder) == before
    # the append refuses it too, and leaves it as it was
    with pytest.raises(store.StoreError, match="history store"):
        store.append(
            path, _run("r9", "2026-01-03T00:00:00Z"), [_cell("seq-a", 1, 1, 1)]
        )
    assert _listing(folder) == before


def test_a_good_store_passes_and_nothing_is_added_beside_it(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    path = folder / "history.sqlite"
    cfg = {"history": {"enabled": True, "path": str(path)}}
    preflight.check_history_store(cfg)  # no store yet: the append creates it
    assert not path.exists()
    _store(path)
    before = _listing(folder)
    assert set(before) == {"history.sqlite"}
    preflight.check_history_store(cfg)
    assert _listing(folder) == before
    # history off: the store is not the campaign's business
    _random(path)
    preflight.check_history_store({"history": {"enabled": False, "path": str(path)}})


def test_the_check_before_any_job_leaves_an_emptied_log_untouched(
    tmp_path: Path,
) -> None:
    """A run ends without closing its connections (ciphersweep.campaign.ending): the
    write-ahead log stays beside the store, emptied (checkpointed), with its index
    (-shm). The check every parse makes (a dry run too) then reads the store alone: no
    file beside it changes, its modification time included."""
    folder = tmp_path / "results"
    folder.mkdir()
    path = _store(folder / "history.sqlite")
    code = (
        "import os, sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\n"
        "db.execute('PRAGMA journal_mode=WAL').fetchall()\n"
        "db.execute('PRAGMA wal_checkpoint(TRUNCATE)').fetchall()\nos._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(path)], check=True, timeout=60)
    wal, shm = (folder / f"history.sqlite-{x}" for x in ("wal", "shm"))
    assert wal.stat().st_size == 0 and shm.exists()
    os.utime(shm, ns=(1, 1))  # any touch now shows
    before = {p.name: (p.stat().st_mtime_ns, _digest(p)) for p in folder.iterdir()}
    preflight.check_history_store({"history": {"enabled": True, "path": str(path)}})
    after = {p.name: (p.stat().st_mtime_ns, _digest(p)) for p in folder.iterdir()}
    assert after == before


def test_a_store_a_writer_is_finishing_is_not_called_truncated(
    tmp_path: Path,
) -> None:
    """Another campaign's checkpoint has written the header's new size but not yet
    the pages behind it, and has already removed its log: the file looks truncated
    for a moment. The check looks again after a pause (here the writer finishes in
    it) and finds a whole store; a file that stays short is still refused."""
    whole = _store(tmp_path / "whole.sqlite").read_bytes()
    path = tmp_path / "h.sqlite"
    path.write_bytes(whole[:4096])
    pauses: list[float] = []

    def writer_finishes(seconds: float) -> None:
        pauses.append(seconds)
        path.write_bytes(whole)

    assert guard._header_problem(path, sleep=writer_finishes) is None
    assert len(pauses) == 1
    path.write_bytes(whole[:4096])
    problem = guard._header_problem(path, sleep=pauses.append)
    assert problem is not None and problem.startswith("truncated (4096 bytes")
    assert len(pauses) == guard.LOOKS


def test_a_store_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "h.sqlite").mkdir()
    with pytest.raises(store.StoreError, match="is a directory"):
        store.check(tmp_path / "h.sqlite")


# ------------------------------------------------------------------ reads never write


def test_reads_leave_the_store_as_it_was(tmp_path: Path) -> None:
    """A store switched to a rollback journal (a copy, a user's tool): reading it
    neither switches it back to a write-ahead log nor changes a byte."""
    path = _store(tmp_path / "h.sqlite")
    _sql(path, "PRAGMA journal_mode = DELETE")
    before = _digest(path)
    assert len(store.read(path)) == 2
    assert list(store.runs(path)["run_id"]) == ["r1", "r2"]
    assert store.schema_version(path) == store.SCHEMA_VERSION
    assert _digest(path) == before
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_export_of_another_programs_file_is_refused_and_leaves_it(
    tmp_path: Path,
) -> None:
    other = tmp_path / "other.db"
    _foreign(other)
    before = _digest(other)
    exp = _cli("export", "--store", str(other), cwd=tmp_path)
    _one_line(exp, "other.db", "not a ciphersweep history store")
    imp = _cli(
        "import",
        str(_campaign_dir(tmp_path / "a")),
        "--store",
        str(other),
        cwd=tmp_path,
    )
    _one_line(imp, "other.db", "not a ciphersweep history store")
    assert _digest(other) == before
    with closing(sqlite3.connect(f"file:{other}?mode=ro", uri=True)) as db:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert names == {"notes"}


@pytest.mark.parametrize("kind", ["random bytes", "truncated", "newer schema"])
def test_export_and_import_of_a_bad_store_are_one_line(
    tmp_path: Path, kind: str
) -> None:
    make, words = BAD_STORES[kind]
    path = tmp_path / "h.sqlite"
    make(path)
    before = _digest(path)
    _one_line(_cli("export", "--store", str(path), cwd=tmp_path), words)
    a = _campaign_dir(tmp_path / "a")
    _one_line(_cli("import", str(a), "--store", str(path), cwd=tmp_path), words)
    assert _digest(path) == before


def test_a_store_on_a_read_only_mount_is_exported(tmp_path: Path) -> None:
    """The store on a read-only file system (SQLite cannot add its log's index
    there): read as immutable, exported whole."""
    src, ro = tmp_path / "src", tmp_path / "ro"
    ro.mkdir()
    _store(src / "h.sqlite")
    out = tmp_path / "out.csv"
    script = (
        f"mount --bind -o ro {src} {ro} || exit 97; "
        f"exec {sys.executable} -m ciphersweep.analysis.history export "
        f"--store {ro / 'h.sqlite'} -o {out}"
    )
    try:
        proc = subprocess.run(
            ["unshare", "-m", "sh", "-c", script],
            env={"PYTHONPATH": str(ROOT / "workflow"), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except FileNotFoundError:
        pytest.skip("no unshare command to make a read-only mount with")
    if proc.returncode == 97 or "unshare failed" in proc.stderr:
        pytest.skip(f"a read-only mount needs a mount namespace: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    assert list(pd.read_csv(out)["run_id"]) == ["r1", "r2"]


# ------------------------------------------------------------------ export's output


def test_export_never_overwrites_the_store(tmp_path: Path) -> None:
    path = _store(tmp_path / "h.sqlite")
    before = _digest(path)
    for target in ("h.sqlite", "./h.sqlite", str(path), "h.sqlite-wal", "h.sqlite-shm"):
        exp = _cli("export", "--store", "h.sqlite", "-o", target, cwd=tmp_path)
        _one_line(exp, f"-o {target}", "is the history store")
    # a link to it is the store too
    (tmp_path / "link.csv").symlink_to(path)
    exp = _cli("export", "--store", str(path), "-o", "link.csv", cwd=tmp_path)
    _one_line(exp, "is the history store")
    assert _digest(path) == before
    assert len(store.read(path)) == 2
    assert not (tmp_path / "h.sqlite-wal").is_file() or not any(
        (tmp_path / "h.sqlite-wal").read_bytes()[:4] == b"run_"
        for _ in (0,)  # the log, if SQLite left one, is no CSV either
    )


def test_export_to_an_unwritable_place_is_one_line(tmp_path: Path) -> None:
    path = _store(tmp_path / "h.sqlite")
    full = _cli("export", "--store", str(path), "-o", "/dev/full", cwd=tmp_path)
    _one_line(full, "-o /dev/full", "No space left on device")
    missing = tmp_path / "missing" / "dir" / "x.csv"
    gone = _cli("export", "--store", str(path), "-o", str(missing), cwd=tmp_path)
    _one_line(gone, f"no directory {missing.parent}")
    assert not missing.parent.exists()
    folder = _cli("export", "--store", str(path), "-o", str(tmp_path), cwd=tmp_path)
    _one_line(folder, "is a directory")
    # stdout that cannot be written
    with open("/dev/full", "w") as devfull:
        proc = subprocess.run(
            [sys.executable, "-m", "ciphersweep.analysis.history", "export"]
            + ["--store", str(path)],
            env={"PYTHONPATH": str(ROOT / "workflow"), "PATH": "/usr/bin:/bin"},
            stdout=devfull,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert proc.returncode == 2 and "No space left on device" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_failed_export_keeps_the_previous_file(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    out.write_text("the previous export\n")
    bad = tmp_path / "bad.sqlite"
    _random(bad)
    _one_line(_cli("export", "--store", str(bad), "-o", str(out), cwd=tmp_path))
    assert out.read_text() == "the previous export\n"
    good = _store(tmp_path / "h.sqlite")
    ok = _cli("export", "--store", str(good), "-o", str(out), cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert len(pd.read_csv(out)) == 2
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_export_into_a_reader_that_stops_early(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    cells = [_cell(f"seq-{i}", 1, 0.9, 1.1, cflags="-O3 " * 20) for i in range(3000)]
    store.append(path, _run("r1", "2026-01-01T00:00:00Z"), cells)
    proc = subprocess.run(
        f"{sys.executable} -m ciphersweep.analysis.history export --store {path} "
        "| head -c 100 >/dev/null; echo ${PIPESTATUS[0]}",
        shell=True,
        executable="/bin/bash",
        env={"PYTHONPATH": str(ROOT / "workflow"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.stdout.strip() == "0" and proc.stderr == "", proc.stderr


# ------------------------------------------------------------------ imports


def _edit(d: Path, change: Callable[[pd.DataFrame], pd.DataFrame]) -> Path:
    summary = d / "summary.csv"
    change(pd.read_csv(summary)).to_csv(summary, index=False)
    return d


def _set(
    column: str, value: Any, row: int = 0
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def change(frame: pd.DataFrame) -> pd.DataFrame:
        frame[column] = frame[column].astype(object)
        frame.loc[row, column] = value
        return frame

    return change


SEQ = "seq-ttable-ctr-enc-1KiB-r1-t1"
BAD_SUMMARIES: dict[str, tuple[Callable[[pd.DataFrame], pd.DataFrame], str]] = {
    "a point twice": (
        lambda f: pd.concat([f, f.iloc[[0]]], ignore_index=True),
        f"point {SEQ} is listed twice (lines 2 and 4",
    ),
    "estimate -1": (_set("t_total_median", -1.0), "t_total_median is -1.0"),
    "estimate inf": (_set("t_total_median", math.inf), "t_total_median is inf"),
    "estimate not a number": (_set("t_total_median", "fast"), "is 'fast'"),
    "no estimate for an ok cell": (_set("t_total_median", None), "no t_total_median"),
    "interval upside down": (_set("t_total_ci_low", 1.0), "outside its interval"),
    "negative interval": (_set("t_total_ci_low", -0.5), "t_total_ci_low is -0.5"),
    "ci_level 2.0": (_set("t_total_ci_level", 2.0), "t_total_ci_level is 2.0"),
    "ci_level -0.1": (_set("t_total_ci_level", -0.1), "t_total_ci_level is -0.1"),
    "n 0": (_set("t_total_n", 0), "t_total_n is 0"),
    "n 2.5": (_set("t_total_n", 2.5), "t_total_n is 2.5"),
    "bytes abc": (_set("bytes", "abc"), "bytes is 'abc'"),
    "bytes 0": (_set("bytes", 0), "bytes is 0"),
    "bytes 1.5": (_set("bytes", 1.5), "bytes is 1.5"),
    "threads -1": (_set("threads", -1), "threads is -1"),
    "empty point id": (_set("point", ""), "line 2: no point id"),
    "blank point id": (_set("point", "  "), "line 2: no point id"),
}


@pytest.mark.parametrize("kind", list(BAD_SUMMARIES))
def test_a_run_that_could_not_have_been_measured_is_refused(
    tmp_path: Path, kind: str
) -> None:
    change, words = BAD_SUMMARIES[kind]
    bad = _edit(_campaign_dir(tmp_path / "bad"), change)
    with pytest.raises(runs.RunError) as exc:
        runs.from_campaign(bad)
    line = str(exc.value)
    assert str(bad / "summary.csv") in line and words in line and "\n" not in line


@pytest.mark.parametrize("kind", ["a point twice", "estimate -1", "empty point id"])
def test_import_refuses_it_with_one_line_and_adds_nothing(
    tmp_path: Path, kind: str
) -> None:
    change, words = BAD_SUMMARIES[kind]
    good = _campaign_dir(tmp_path / "good")
    bad = _edit(_campaign_dir(tmp_path / "bad", 2.0), change)
    path = tmp_path / "h.sqlite"
    # the good directory first: nothing is added before every directory is checked
    imp = _cli("import", str(good), str(bad), "--store", str(path), cwd=tmp_path)
    _one_line(imp, "summary.csv", words)
    assert not path.exists()


def test_the_statistics_own_columns_are_checked(tmp_path: Path) -> None:
    d = _edit(_campaign_dir(tmp_path / "c"), _set("t_total_mean", -2.0))
    imp = _cli(
        "import", str(d), "--store", "h.sqlite", "--statistic", "mean", cwd=tmp_path
    )
    _one_line(imp, "t_total_mean is -2.0")
    # the median's columns are whole: importing the median is fine
    ok = _cli("import", str(d), "--store", "h.sqlite", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr


def test_a_failed_cell_needs_no_estimate(tmp_path: Path) -> None:
    d = _edit(_campaign_dir(tmp_path / "c"), _set("status", "failed"))
    d = _edit(d, _set("t_total_median", None))
    run = runs.from_campaign(d)
    seq = next(c for c in run.cells if c["point"] == SEQ)
    assert seq["status"] == "failed" and seq["estimate"] is None


def _stamps(d: Path, stamps: list[str]) -> Path:
    meas = pd.read_parquet(d / "measurements.parquet")
    meas["timestamp"] = [stamps[i % len(stamps)] for i in range(len(meas))]
    meas.to_parquet(d / "measurements.parquet")
    return d


@pytest.mark.parametrize(
    ("stamp", "words"),
    [
        ("last tuesday", "timestamp 'last tuesday' is not a time"),
        (
            "2999-01-01T00:00:00Z",
            "the run's time 2999-01-01T00:00:00Z is later than now",
        ),
    ],
)
def test_a_run_time_that_is_no_time_is_refused(
    tmp_path: Path, stamp: str, words: str
) -> None:
    d = _stamps(_campaign_dir(tmp_path / "c"), ["2026-01-01T00:00:00Z", stamp])
    imp = _cli("import", str(d), "--store", "h.sqlite", cwd=tmp_path)
    _one_line(imp, "measurements.parquet", words)


def test_runs_are_ordered_as_they_ran(tmp_path: Path) -> None:
    """Run b's records say 05:00 in UTC+9, which is 20:00 UTC the day before run a's
    records: b ran first, whatever the text of its timestamps; fractions of seconds
    are not a later time either."""
    a = _stamps(_campaign_dir(tmp_path / "a"), ["2026-01-01T00:00:00Z"])
    b = _stamps(_campaign_dir(tmp_path / "b", 2.0), ["2026-01-01T05:00:00+09:00"])
    c = _stamps(_campaign_dir(tmp_path / "c", 3.0), ["2026-01-01T00:00:00.900Z"])
    path = tmp_path / "h.sqlite"
    filed = {}
    for d in (a, c, b):
        run = runs.from_campaign(d)
        store.append(path, run.info, run.cells)
        filed[d.name] = run.run_id
    frame = store.read(path)
    times = dict(zip(frame["run_id"], frame["run_time"]))
    assert times[filed["b"]] == "2025-12-31T20:00:00Z"
    assert times[filed["a"]] == times[filed["c"]] == "2026-01-01T00:00:00Z"
    # b first; a and c ran in the same second: in the order they were appended
    assert regress.run_order(frame) == [filed["b"], filed["a"], filed["c"]]


def test_records_without_timestamps_take_the_summarys_time(tmp_path: Path) -> None:
    d = _campaign_dir(tmp_path / "c")
    (d / "measurements.parquet").unlink()
    os.utime(d / "summary.csv", (1767225600, 1767225600))  # 2026-01-01T00:00:00Z
    assert runs.from_campaign(d).info["run_time"] == "2026-01-01T00:00:00Z"


def test_a_run_already_held_under_another_name_is_refused(tmp_path: Path) -> None:
    a = _campaign_dir(tmp_path / "a")
    path = tmp_path / "h.sqlite"
    first = _cli("import", str(a), "--store", str(path), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    before = _digest(path)
    for flags in (["--machine", "m2"], ["--campaign", "other"]):
        again = _cli("import", str(a), "--store", str(path), *flags, cwd=tmp_path)
        _one_line(again, "holds the same results as run", "campaign c on machine box")
    # a copy of the directory filed under another machine name is the same run too
    shutil.copytree(a, tmp_path / "copy")
    copy = runs.from_campaign(tmp_path / "copy", machine="m3")
    with pytest.raises(store.StoreError, match="holds the same results as run"):
        store.append(path, copy.info, copy.cells)
    assert _digest(path) == before and len(store.runs(path)) == 1
    # under its own names it is already there: nothing added, exit 0
    same = _cli("import", str(tmp_path / "copy"), "--store", str(path), cwd=tmp_path)
    assert same.returncode == 0 and "already in the store" in same.stdout
    assert _digest(path) == before


def test_names_given_to_import_are_campaign_names(tmp_path: Path) -> None:
    a = _campaign_dir(tmp_path / "a")
    for flags, words in (
        (["--campaign", "history.sqlite-wal"], "ends like a history store's file"),
        (["--campaign", ""], "not a campaign name"),
        (["--campaign", "a b"], "not a campaign name"),
        (["--machine", "a b"], "not a machine name"),
    ):
        imp = _cli("import", str(a), "--store", "h.sqlite", *flags, cwd=tmp_path)
        _one_line(imp, flags[0], words)
    assert not (tmp_path / "h.sqlite").exists()


def test_a_name_from_the_directory_is_a_campaign_name_too(tmp_path: Path) -> None:
    """Without records naming the campaign, the directory's name is the campaign's:
    one the workflow could never read back is refused, and --campaign names it."""
    d = _campaign_dir(tmp_path / "history.sqlite-wal")
    (d / "measurements.parquet").unlink()
    imp = _cli("import", str(d), "--store", "h.sqlite", cwd=tmp_path)
    _one_line(imp, "campaign 'history.sqlite-wal' ends like", "name it with --campaign")
    named = _cli(
        "import", str(d), "--store", "h.sqlite", "--campaign", "c", cwd=tmp_path
    )
    assert named.returncode == 0, named.stderr


def test_a_summary_without_status_is_refused(tmp_path: Path) -> None:
    d = _edit(_campaign_dir(tmp_path / "c"), lambda f: f.drop(columns=["status"]))
    with pytest.raises(runs.RunError, match="no status column"):
        runs.from_campaign(d)


def test_cells_the_store_cannot_take_are_one_line(tmp_path: Path) -> None:
    """The store's own last word (a caller that skipped the checks): a point twice
    is a StoreError naming the run, not sqlite3's IntegrityError."""
    path = tmp_path / "h.sqlite"
    cells = [_cell("seq-a", 1, 0.9, 1.1), _cell("seq-a", 2, 1.9, 2.1)]
    with pytest.raises(store.StoreError) as exc:
        store.append(path, _run("r1", "2026-01-01T00:00:00Z"), cells)
    assert "run r1 not added" in str(exc.value) and "\n" not in str(exc.value)
    assert store.runs(path).empty


# ------------------------------------------------------------------ campaign names


@pytest.mark.parametrize(
    "name",
    ["history.sqlite-wal", "history.sqlite", "h.sqlite3", "x.db", "x-shm", "x-journal"]
    + ["H.SQLITE-WAL", "default-wal"],
)
def test_a_campaign_named_like_a_store_file_is_refused(name: str) -> None:
    base = {"sizes": ["1KiB"], "backends": {"seq": {"impls": ["ttable"]}}}
    with pytest.raises(config.ConfigError) as exc:
        config.validate({**base, "campaign": name}, root=ROOT)
    line = config.format_error(exc.value)
    assert "campaign" in line and repr(name) in line and "\n" not in line, line
    for ok in ("history", "sqlite", "db-tests", "wal.runs"):
        assert config.validate({**base, "campaign": ok}, root=ROOT)["campaign"] == ok


# ------------------------------------------------------------------ history off


def test_with_history_off_an_earlier_runs_history_is_not_listed(tmp_path: Path) -> None:
    res = tmp_path / "results" / "c"
    (res / "tables").mkdir(parents=True)
    (res / "plots").mkdir()
    for name in ("time", "history", "regressions"):
        (res / "tables" / f"{name}.csv").write_text("x")
    for name in ("throughput", "history_trend"):
        (res / "plots" / f"{name}.png").write_bytes(b"x")
    pd.DataFrame([{"point": "p", "status": "ok"}]).to_csv(res / "summary.csv")
    off = {"history": {"enabled": False}}
    lines = console.summary_lines(res, res / "report.html", "cmd", cfg=off)
    assert f"  tables: {res / 'tables'}/ (time; .csv .md .tex)" in lines
    assert f"  plots:  {res / 'plots'}/ (throughput; .png .pdf .svg)" in lines
    assert (
        "  history: off (history.enabled: false); history, regressions, "
        "history_trend are from an earlier run"
    ) in lines
    # the files are kept (results are never removed)
    assert (res / "tables" / "regressions.csv").exists()
    on = console.summary_lines(res, res / "report.html", "cmd", cfg={"history": {}})
    assert any("history, regressions, time" in line for line in on)
    assert not any(line.startswith("  history:") for line in on)


def test_the_report_says_whether_the_history_is_on() -> None:
    off = dict(report.what_ran({"history": {"enabled": False}}, []))
    assert off["History"].startswith("off (history.enabled: false)")
    on = dict(report.what_ran({"history": {"path": "stores/h.sqlite"}}, []))
    assert on["History"] == "appended to stores/h.sqlite"


# ------------------------------------------------------------------ the append's marker


class _InterruptAfterCommit:
    """A connection whose COMMIT goes through and is then interrupted (Ctrl-C)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        cur = self._db.execute(sql, *args)
        if sql == "COMMIT":
            raise KeyboardInterrupt
        return cur

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


def test_an_interrupt_after_the_commit_is_marked_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = _campaign_dir(tmp_path / "c")
    path = tmp_path / "h.sqlite"
    marker = tmp_path / "history" / "appended.json"
    cfg = {"campaign": "c", "statistic": "median", "history": {"path": str(path)}}
    connect = store.connect
    monkeypatch.setattr(store, "connect", lambda p: _InterruptAfterCommit(connect(p)))
    with pytest.raises(KeyboardInterrupt):
        outputs.append_campaign(cfg, str(d), str(marker), {"": "b"}, tmp_path)
    info = json.loads(marker.read_text())
    assert len(store.runs(path)) == 1  # the commit stands
    assert info["added"] is True and info["run_id"] == store.runs(path)["run_id"][0]
    # the rule again (the interrupted job's marker removed): the run was there already,
    # and the marker says since when
    monkeypatch.setattr(store, "connect", connect)
    marker.unlink()
    log = tmp_path / "append.log"
    assert not outputs.append_campaign(
        cfg, str(d), str(marker), {"": "b"}, tmp_path, str(log)
    )
    again = json.loads(marker.read_text())
    assert again["added"] is False and again["appended"] == info["appended"]
    assert "already in" in log.read_text()
