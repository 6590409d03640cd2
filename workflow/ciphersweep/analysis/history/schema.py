"""The history store's schema: its tables and columns, each version's step.

Tables (version :data:`SCHEMA_VERSION`, in ``schema_version``):

* ``runs``: one row per run (``run_id``, campaign, time of the run, git revision and
  dirty flag, the campaign's statistic, where it came from, when it was appended).
* ``cells``: one row per cell of a run: the point key (what was measured, without the
  version: point id, backend, impl, cipher, mode, op, size, ranks, threads, GPUs, block
  threads, variant), the build fingerprint and image digest, the machine (name, host,
  CPU model, GPU model, node list), the compiler flags the kernel reported, and the
  cell's estimate with its interval (``ci_low``, ``ci_high``, ``ci_level``) and ``n``,
  and (version 2) ``code_digest``, the digest of the fingerprint its records carry.
* ``history`` (a view): the cells joined with their run.

A later release reads older stores: each version's step is in :data:`MIGRATIONS`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable

SCHEMA_VERSION = 2
# the tables every store has (a file without them is not one)
TABLES = frozenset({"schema_version", "runs", "cells"})

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
# a cell's point key: what was measured, without the version (the one definition: the
# store's columns, the cells a run is made of, the history and regression tables)
POINT_KEY = (
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
)
CELL_COLUMNS_V1 = (
    "run_id",
    *POINT_KEY,
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
# version 2: the digest of the fingerprint the cell's records carry (binary, build
# key, input, shape, code-path environment, library versions): two cells of one
# point with the same digest ran the same code (the regression verdict's controls)
CELL_COLUMNS = (*CELL_COLUMNS_V1, "code_digest")
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


def _columns(names: Iterable[str]) -> str:
    return ", ".join(f"{c} {_KEYS.get(c) or _TYPES.get(c, 'TEXT')}" for c in names)


def _view(db: sqlite3.Connection, columns: Iterable[str]) -> None:
    shown = ", ".join(f"c.{c}" for c in columns if c != "run_id")
    db.execute(
        f"CREATE VIEW history AS SELECT r.*, {shown} FROM cells c "
        "JOIN runs r USING (run_id)"
    )


def _create_v1(db: sqlite3.Connection) -> None:
    run_cols = [c for c in RUN_COLUMNS if c != "run_id"]
    db.execute(f"CREATE TABLE runs (run_id TEXT PRIMARY KEY, {_columns(run_cols)})")
    db.execute(
        f"CREATE TABLE cells ({_columns(CELL_COLUMNS_V1)}, PRIMARY KEY (run_id, "
        "point), FOREIGN KEY (run_id) REFERENCES runs (run_id))"
    )
    db.execute("CREATE INDEX cells_point ON cells (point, machine)")
    _view(db, CELL_COLUMNS_V1)


def _code_digest_v2(db: sqlite3.Connection) -> None:
    """Version 2: the cells' code digest (NULL in the cells appended before it)."""
    db.execute("ALTER TABLE cells ADD COLUMN code_digest TEXT")
    db.execute("DROP VIEW history")
    _view(db, CELL_COLUMNS)


# version -> the step that brings a store of the version before it to this one
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _create_v1,
    2: _code_digest_v2,
}


def version(db: sqlite3.Connection) -> int:
    has = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if not has:
        return 0
    row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)
