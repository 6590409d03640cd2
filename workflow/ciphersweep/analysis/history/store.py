"""The history store: one SQLite file every finished campaign appends its cells to.

SQLite because the store is one file a user opens with pandas
(``pd.read_sql("SELECT * FROM history", sqlite3.connect(path))``) or DuckDB
(``duckdb`` reads it through its sqlite extension), because its transactions make an
append all or nothing, and because two campaigns finishing at once are serialised by
its lock: an append takes the write lock at once (``BEGIN IMMEDIATE``) and waits up to
:data:`BUSY_TIMEOUT_S` for another one to finish. The journal is a write-ahead log, so
readers never block the writer. The file must sit on a file system with working POSIX
locks (a local disk, or a cluster file system that provides them).

The tables are :mod:`.schema`'s (``runs``, ``cells``, the view ``history``).

A later release reads older stores: :func:`connect` upgrades them in place (each
version's step in :data:`MIGRATIONS`) and refuses a store of a newer release.

The store guards itself (:mod:`.guard`): a file that is not a store is refused with
one line and left as it was, reads (:func:`read`, :func:`runs`) open it read-only, and
a run is kept once, under one campaign and machine name.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

import pandas as pd

from .guard import (
    BUSY_TIMEOUT_S,
    SIDECARS,
    StoreError,
    check,
    fail,
    files,
    prepared,
    reading,
    verify,
)
from .schema import CELL_COLUMNS, MIGRATIONS, RUN_COLUMNS, SCHEMA_VERSION, version

__all__ = [
    "BUSY_TIMEOUT_S",
    "CELL_COLUMNS",
    "RUN_COLUMNS",
    "SCHEMA_VERSION",
    "SIDECARS",
    "StoreError",
    "append",
    "appended",
    "check",
    "connect",
    "files",
    "read",
    "runs",
    "schema_version",
]


def _upgrade(db: sqlite3.Connection, path: Path) -> None:
    """Create or upgrade the schema, inside one write transaction (a file that became
    another program's, or a newer release's, in the meantime is refused)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        have = verify(db, path)
        if have == 0:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
        for v in range(have + 1, SCHEMA_VERSION + 1):
            MIGRATIONS[v](db)
            db.execute("DELETE FROM schema_version")
            db.execute("INSERT INTO schema_version (version) VALUES (?)", (v,))
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
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
    if p.exists():  # never a table added to, nor the journal changed of, another file
        check(p)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(p, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except (OSError, sqlite3.DatabaseError) as exc:
        raise fail(p, getattr(exc, "strerror", None) or str(exc)) from None

    def ready(db: sqlite3.Connection) -> None:
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        _wal(db)
        _upgrade(db, p)

    return prepared(db, p, ready)


def schema_version(path: str | Path) -> int:
    """The schema version of the store at ``path`` (0: no store there)."""
    p = Path(path)
    if not p.is_file() or p.stat().st_size == 0:
        return 0
    with closing(reading(p)) as db:
        return version(db)


# what makes two runs the same results: the time they ran, and each cell's figures
_SAME = ("status", "estimate", "ci_low", "ci_high", "ci_level", "n", "bytes")


def _norm(v: Any) -> Any:
    if v is None or isinstance(v, str):
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


def _figures(rows: Iterable[Mapping[str, Any]]) -> dict[str, tuple[Any, ...]]:
    return {str(r["point"]): tuple(_norm(r.get(k)) for k in _SAME) for r in rows}


def _machines(rows: Iterable[Mapping[str, Any]]) -> str:
    names = sorted({str(r.get("machine")) for r in rows if r.get("machine")})
    return ", ".join(names) or "none"


def _held_as(
    db: sqlite3.Connection, run: Mapping[str, Any], cells: list[Mapping[str, Any]]
) -> str | None:
    """How the store already holds this run's results under another campaign or
    machine name (the same time of the run and the same figures in every cell), as
    words; None when it does not."""
    if not cells:
        return None
    mine = _figures(cells)
    cols = ", ".join(("point", "machine", *_SAME))
    for rid, campaign in db.execute(
        "SELECT run_id, campaign FROM runs WHERE run_time = ? AND statistic IS ? "
        "AND run_id != ?",
        (run.get("run_time"), run.get("statistic"), run["run_id"]),
    ).fetchall():
        held = [
            dict(zip(("point", "machine", *_SAME), r))
            for r in db.execute(f"SELECT {cols} FROM cells WHERE run_id = ?", (rid,))
        ]
        if _figures(held) == mine:
            return f"run {rid} of campaign {campaign} on machine {_machines(held)}"
    return None


def append(
    path: str | Path, run: Mapping[str, Any], cells: Iterable[Mapping[str, Any]]
) -> bool:
    """Add one run and its cells, all or nothing; False (and nothing written) when
    the store already holds a run with this ``run_id``. The same results filed under
    another campaign or machine name are refused (StoreError): a run is kept once."""
    p = Path(path)
    cells = list(cells)
    rows = [tuple(c.get(k) for k in CELL_COLUMNS[1:]) for c in cells]
    with closing(connect(p)) as db:
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute(
                "SELECT 1 FROM runs WHERE run_id = ?", (run["run_id"],)
            ).fetchone():
                db.execute("ROLLBACK")
                return False
            held = _held_as(db, run, cells)
            if held:
                raise fail(
                    p,
                    f"run {run['run_id']} of campaign {run.get('campaign')} on "
                    f"machine {_machines(cells)} holds the same results as {held} "
                    "(allowed: a run filed once, under its first campaign and "
                    "machine name)",
                )
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
        except sqlite3.DatabaseError as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise fail(p, f"run {run['run_id']} not added: {exc}") from None
        except BaseException:
            # an interrupt that came after the commit leaves the run in the store
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
    return True


def appended(path: str | Path, run_id: str) -> str | None:
    """When the store received run ``run_id`` (its ``appended`` time); None when it
    does not hold it (read-only)."""
    p = Path(path)
    if not p.is_file() or p.stat().st_size == 0:
        return None
    with closing(reading(p)) as db:
        row = db.execute(
            "SELECT appended FROM runs WHERE run_id = ?", (run_id,)
        ).fetchone()
    return None if row is None else str(row[0])


def _select(
    path: str | Path, query: str, args: tuple[Any, ...], columns: list[str]
) -> pd.DataFrame:
    """A query's rows, read-only; no rows (with ``columns``) where no store is."""
    p = Path(path)
    if not p.is_file() or p.stat().st_size == 0:
        return pd.DataFrame(columns=columns)
    with closing(reading(p)) as db:
        try:
            if version(db) == 0:
                return pd.DataFrame(columns=columns)
            return pd.read_sql_query(query, db, params=args)
        except sqlite3.DatabaseError as exc:
            raise fail(p, f"{exc} (allowed: a history store)") from None


def read(path: str | Path, campaign: str | None = None) -> pd.DataFrame:
    """Every cell of every run (the ``history`` view), of one campaign or all; in run
    order (time of the run, then when it was appended). Empty when no store exists;
    read-only (nothing in the file changes)."""
    query = "SELECT * FROM history"
    args: tuple[Any, ...] = ()
    if campaign is not None:
        query += " WHERE campaign = ?"
        args = (campaign,)
    query += " ORDER BY run_time, appended, run_id, point"
    cols = list(RUN_COLUMNS) + [c for c in CELL_COLUMNS if c != "run_id"]
    return _select(path, query, args, cols)


def runs(path: str | Path) -> pd.DataFrame:
    """One row per stored run with its number of cells, in run order (read-only)."""
    return _select(
        path,
        "SELECT r.*, COUNT(c.point) AS cells FROM runs r LEFT JOIN cells c "
        "USING (run_id) GROUP BY r.run_id ORDER BY r.run_time, r.appended",
        (),
        [*RUN_COLUMNS, "cells"],
    )
