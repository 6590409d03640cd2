"""The history store: one SQLite file every finished campaign appends its cells to.

SQLite because the store is one file a user opens with pandas
(``pd.read_sql("SELECT * FROM history", sqlite3.connect(path))``) or DuckDB
(``duckdb`` reads it through its sqlite extension), because its transactions make an
append all or nothing, and because two campaigns finishing at once are serialised by
its lock: an append takes the write lock at once (``BEGIN IMMEDIATE``) and waits up to
:data:`BUSY_TIMEOUT_S` for another one to finish. The journal is a write-ahead log, so
readers never block the writer. The file must sit on a file system with working POSIX
locks (a local disk, or a cluster file system that provides them).

Tables (version :data:`SCHEMA_VERSION`, in ``schema_version``):

* ``runs``: one row per run (``run_id``, campaign, time of the run, git revision and
  dirty flag, the campaign's statistic, where it came from, when it was appended).
* ``cells``: one row per cell of a run: the point key (what was measured, without the
  version: point id, backend, impl, cipher, mode, op, size, ranks, threads, GPUs, block
  threads, variant), the build fingerprint and image digest, the machine (name, host,
  CPU model, GPU model, node list), the compiler flags the kernel reported, and the
  cell's estimate with its interval (``ci_low``, ``ci_high``, ``ci_level``) and ``n``.
* ``history`` (a view): the cells joined with their run.

A later release reads older stores: :func:`connect` upgrades them in place (each
version's step in :data:`MIGRATIONS`) and refuses a store of a newer release.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

import pandas as pd

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 120.0

RUN_COLUMNS = (
    "run_id",
    "campaign",
    "run_time",
    "git_rev",
    "git_dirty",
    "statistic",
    "source",
    "appended",
)
CELL_COLUMNS = (
    "run_id",
    "point",
    "backend",
    "impl",
    "cipher",
    "mode",
    "op",
    "size_label",
    "bytes",
    "ranks",
    "threads",
    "gpus",
    "block_threads",
    "variant",
    "build_digest",
    "image_digest",
    "machine",
    "host",
    "cpu_model",
    "gpu_model",
    "nodelist",
    "cflags",
    "status",
    "estimate",
    "ci_low",
    "ci_high",
    "ci_level",
    "n",
)
_TYPES = {
    "bytes": "INTEGER",
    "ranks": "INTEGER",
    "threads": "INTEGER",
    "gpus": "INTEGER",
    "block_threads": "INTEGER",
    "n": "INTEGER",
    "git_dirty": "INTEGER",
    "estimate": "REAL",
    "ci_low": "REAL",
    "ci_high": "REAL",
    "ci_level": "REAL",
}
_KEYS = {
    "run_id": "TEXT NOT NULL",
    "point": "TEXT NOT NULL",
    "campaign": "TEXT NOT NULL",
}


class StoreError(Exception):
    """A store that cannot be used (one line naming the file and why)."""


def _columns(names: Iterable[str]) -> str:
    return ", ".join(f"{c} {_KEYS.get(c) or _TYPES.get(c, 'TEXT')}" for c in names)


def _create_v1(db: sqlite3.Connection) -> None:
    run_cols = [c for c in RUN_COLUMNS if c != "run_id"]
    db.execute(f"CREATE TABLE runs (run_id TEXT PRIMARY KEY, {_columns(run_cols)})")
    db.execute(
        f"CREATE TABLE cells ({_columns(CELL_COLUMNS)}, PRIMARY KEY (run_id, point), "
        "FOREIGN KEY (run_id) REFERENCES runs (run_id))"
    )
    db.execute("CREATE INDEX cells_point ON cells (point, machine)")
    shown = ", ".join(f"c.{c}" for c in CELL_COLUMNS if c != "run_id")
    db.execute(
        f"CREATE VIEW history AS SELECT r.*, {shown} FROM cells c "
        "JOIN runs r USING (run_id)"
    )


# version -> the step that brings a store of the version before it to this one
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _create_v1}


def _version(db: sqlite3.Connection) -> int:
    has = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if not has:
        return 0
    row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def _upgrade(db: sqlite3.Connection, path: Path) -> None:
    """Create or upgrade the schema, inside one write transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        have = _version(db)
        if have > SCHEMA_VERSION:
            raise StoreError(
                f"history store {path}: schema version {have} is newer than this "
                f"release reads ({SCHEMA_VERSION}); use a newer ciphersweep or another "
                "history.path"
            )
        if have == 0:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
        for v in range(have + 1, SCHEMA_VERSION + 1):
            MIGRATIONS[v](db)
            db.execute("DELETE FROM schema_version")
            db.execute("INSERT INTO schema_version (version) VALUES (?)", (v,))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _wal(db: sqlite3.Connection) -> None:
    """The write-ahead log (kept in the file once set). Switching to it needs the file
    to itself, and SQLite answers "locked" at once rather than through the busy
    timeout while another process is creating or writing the store: try again, up to
    BUSY_TIMEOUT_S."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def connect(path: str | Path) -> sqlite3.Connection:
    """The store at ``path`` (created with its parent directory when missing),
    upgraded to this release's schema; autocommit mode, transactions are explicit."""
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(p, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        _wal(db)
        _upgrade(db, p)
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"history store {p}: {exc} (allowed: an SQLite file)"
        ) from None
    except OSError as exc:
        raise StoreError(f"history store {p}: {exc.strerror or exc}") from None
    return db


def schema_version(path: str | Path) -> int:
    """The schema version of the store at ``path`` (0: no store there)."""
    if not Path(path).is_file():
        return 0
    with closing(sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)) as db:
        return _version(db)


def append(
    path: str | Path, run: Mapping[str, Any], cells: Iterable[Mapping[str, Any]]
) -> bool:
    """Add one run and its cells, all or nothing; False (and nothing written) when
    the store already holds a run with this ``run_id``."""
    rows = [tuple(c.get(k) for k in CELL_COLUMNS[1:]) for c in cells]
    with closing(connect(path)) as db:
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute(
                "SELECT 1 FROM runs WHERE run_id = ?", (run["run_id"],)
            ).fetchone():
                db.execute("ROLLBACK")
                return False
            marks = ", ".join("?" * len(RUN_COLUMNS))
            db.execute(
                f"INSERT INTO runs ({', '.join(RUN_COLUMNS)}) VALUES ({marks})",
                tuple(run.get(k) for k in RUN_COLUMNS),
            )
            marks = ", ".join("?" * len(CELL_COLUMNS))
            db.executemany(
                f"INSERT INTO cells ({', '.join(CELL_COLUMNS)}) VALUES ({marks})",
                [(run["run_id"], *r) for r in rows],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return True


def read(path: str | Path, campaign: str | None = None) -> pd.DataFrame:
    """Every cell of every run (the ``history`` view), of one campaign or all; in run
    order (time of the run, then when it was appended). Empty when no store exists."""
    cols = list(RUN_COLUMNS) + [c for c in CELL_COLUMNS if c != "run_id"]
    if not Path(path).is_file():
        return pd.DataFrame(columns=cols)
    query = "SELECT * FROM history"
    args: tuple[Any, ...] = ()
    if campaign is not None:
        query += " WHERE campaign = ?"
        args = (campaign,)
    query += " ORDER BY run_time, appended, run_id, point"
    with closing(connect(path)) as db:
        return pd.read_sql_query(query, db, params=args)


def runs(path: str | Path) -> pd.DataFrame:
    """One row per stored run with its number of cells, in run order."""
    if not Path(path).is_file():
        return pd.DataFrame(columns=[*RUN_COLUMNS, "cells"])
    with closing(connect(path)) as db:
        return pd.read_sql_query(
            "SELECT r.*, COUNT(c.point) AS cells FROM runs r LEFT JOIN cells c "
            "USING (run_id) GROUP BY r.run_id ORDER BY r.run_time, r.appended",
            db,
        )
