"""The history store through the workflow, before any job: a store that is not one
stops the run at parse time with one line naming the file and what is wrong (not
after every point was measured), and checking it writes nothing: a dry run leaves the
store's folder exactly as it was. A campaign named like a store's file is refused the
same way."""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import closing
from pathlib import Path

from ciphersweep.analysis.history import store
from support import base_config, run_snakemake


def _listing(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def _cfg(path: Path, **over: object) -> dict[str, object]:
    return base_config(
        campaign="guarded",
        sizes=["1KiB"],
        backends={"seq": {"impls": ["ttable"]}},
        platform={"energy": "none"},
        history={"path": str(path)},
        **over,
    )


def _refused(work: Path, cfg: dict[str, object], *words: str) -> None:
    proc = run_snakemake(work, cfg, "-n", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-3000:]
    lines = [ln for ln in out.splitlines() if ln.startswith("ciphersweep: ")]
    assert len(lines) == 1 and all(w in lines[0] for w in words), out[-3000:]
    assert "Traceback" not in out
    assert not (work / "results" / "guarded" / "raw").exists()


def test_a_bad_store_stops_the_run_before_any_job(tmp_path: Path) -> None:
    folder = tmp_path / "stores"
    folder.mkdir()
    path = folder / "history.sqlite"
    path.write_bytes(bytes((i * 131 + 7) % 256 for i in range(5000)))
    before = _listing(folder)
    _refused(
        tmp_path / "work",
        _cfg(path),
        "history.path",
        str(path),
        "not an SQLite file",
    )
    assert _listing(folder) == before
    # a store of a newer release
    path.unlink()
    store.append(path, {"run_id": "r1", "campaign": "c", "run_time": "t"}, [])
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE schema_version SET version = 99")
    before = _listing(folder)
    _refused(tmp_path / "work", _cfg(path), str(path), "schema version 99 is newer")
    assert _listing(folder) == before
    # a good store: the dry run reads it and leaves its folder as it was
    path.unlink()
    store.append(path, {"run_id": "r1", "campaign": "c", "run_time": "t"}, [])
    before = _listing(folder)
    ok = run_snakemake(tmp_path / "work", _cfg(path), "-n", timeout=300)
    assert ok.returncode == 0, (ok.stdout + ok.stderr)[-3000:]
    assert _listing(folder) == before


def test_a_campaign_named_like_a_store_file_is_refused(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path / "results" / "history.sqlite")
    cfg["campaign"] = "history.sqlite-wal"
    proc = run_snakemake(tmp_path, cfg, "-n", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "campaign: 'history.sqlite-wal' ends like a history store's file" in out
    assert "Traceback" not in out
    assert not (tmp_path / "results" / "history.sqlite-wal").exists()
