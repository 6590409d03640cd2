"""What a file must be to be used as the history store, checked without writing.

A store is a whole SQLite file (SQLite's header, as long as its header says) with the
tables of :mod:`.schema` at a version this release reads, or no file yet (an append
creates it). Anything else (random bytes, a truncated copy, another program's
database, a store of a newer release) is refused with one line naming the file and
what is wrong, and left exactly as it was: reads open it read-only (``mode=ro``), never
create a table or change its journal, and :func:`check` (the workflow's check before
any job) adds no file beside it either. A store on a read-only mount is read as
immutable (SQLite cannot add its write-ahead log's index there).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from .schema import SCHEMA_VERSION, TABLES, version

BUSY_TIMEOUT_S = 120.0
# the files SQLite keeps beside the store (write-ahead log, its index, rollback journal)
SIDECARS = ("-wal", "-shm", "-journal")
# looks at a store's header before it is called damaged, and the pause between them
LOOKS = 3
LOOK_PAUSE_S = 0.05
_MAGIC = b"SQLite format 3\x00"


class StoreError(Exception):
    """A store that cannot be used (one line naming the file and why)."""


def files(path: str | Path) -> list[Path]:
    """The store and the files SQLite keeps beside it (no output may be one of them)."""
    p = Path(path)
    return [p, *(p.with_name(p.name + s) for s in SIDECARS)]


def fail(path: Path, why: str) -> StoreError:
    return StoreError(f"history store {path}: {why}")


def _header_problem(
    path: Path, sleep: Callable[[float], None] = time.sleep
) -> str | None:
    """Why the bytes of ``path`` are not a whole SQLite database (None: they are, or
    the file is empty, which SQLite makes a new database of). Another process may be
    ending its write meanwhile: a checkpoint writes the header's new size before the
    pages behind it, and removes its log before this has read the file's size. So a
    problem counts only when it is still there at each of :data:`LOOKS` looks, a
    moment apart (a truncated file stays truncated)."""
    problem = _header_look(path)
    for _ in range(LOOKS - 1):
        if problem is None:
            return None
        sleep(LOOK_PAUSE_S)
        problem = _header_look(path)
    return problem


def _header_look(path: Path) -> str | None:
    """One look at the bytes of ``path`` (:func:`_header_problem`)."""
    size = path.stat().st_size
    if size == 0:
        return None
    with path.open("rb") as f:
        head = f.read(100)
    if not head.startswith(_MAGIC):
        return "not an SQLite file (its first bytes are not SQLite's header)"
    if len(head) < 100:
        return f"truncated ({size} bytes, shorter than SQLite's header)"
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    # the header's page count is valid where its two change counters agree; while a
    # writer's log is there, a checkpoint may be copying pages in behind the header
    busy = path.with_name(path.name + "-wal").exists()
    if head[24:28] == head[92:96] and size < page * pages and not busy:
        return f"truncated ({size} bytes where its header says {page * pages})"
    return None


def _read_only_dir(folder: Path) -> bool:
    """Whether nothing can be created in ``folder`` (a read-only mount, or no write
    permission): SQLite cannot add the write-ahead log's index there."""
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return True
    except OSError:
        return False
    return not os.access(folder, os.W_OK | os.X_OK)


def _no_log(wal: Path) -> bool:
    """No write-ahead log to read beside the store: no file, or an empty one."""
    try:
        return wal.stat().st_size == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _open_read(path: Path, quiet: bool = False) -> sqlite3.Connection:
    """The store opened read-only: ``mode=ro`` (it sees a writer's log and waits for
    its lock); immutable where SQLite could not add the log's index beside it (a
    read-only mount), and with ``quiet`` where no log is there to read: none, or an
    empty one that a run ending without closing its connection left with its index
    (nothing at all is created or touched beside the store; a failed read is tried
    again with ``mode=ro``)."""
    uri = path.absolute().as_uri()
    wal = path.with_name(path.name + "-wal")
    if quiet and _no_log(wal):
        db = sqlite3.connect(f"{uri}?immutable=1", uri=True)
        try:
            verify(db, path)
            return db
        except sqlite3.DatabaseError:  # a writer came in between: read its log
            db.close()
        except StoreError:
            db.close()
            raise
    try:
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
        db.execute("SELECT 1 FROM sqlite_master").fetchall()
    except sqlite3.OperationalError:
        if not _read_only_dir(path.parent):
            raise
        db = sqlite3.connect(f"{uri}?immutable=1", uri=True)
    return db


def verify(db: sqlite3.Connection, path: Path) -> int:
    """The schema version of a store this release reads (0: an empty database);
    StoreError for a file that is not one."""
    names = {
        str(r[0])
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
        )
    }
    if not names:
        return 0
    if not TABLES <= names:
        shown = ", ".join(sorted(names)[:5]) + (", ..." if len(names) > 5 else "")
        raise fail(
            path,
            f"not a ciphersweep history store (its tables: {shown}; allowed: a store "
            "ciphersweep wrote, or a new file name in history.path or --store)",
        )
    have = version(db)
    if have > SCHEMA_VERSION:
        raise fail(
            path,
            f"schema version {have} is newer than this release reads "
            f"({SCHEMA_VERSION}); use a newer ciphersweep or another history.path",
        )
    if have < 1:
        raise fail(
            path, f"schema version {have} is unknown (allowed: 1..{SCHEMA_VERSION})"
        )
    return have


def reading(path: Path, quiet: bool = False) -> sqlite3.Connection:
    """A read-only connection to a checked store; StoreError (one line) otherwise."""
    try:
        problem = _header_problem(path)
        if problem:
            raise fail(path, problem)
        db = _open_read(path, quiet)
    except OSError as exc:
        raise fail(path, exc.strerror or str(exc)) from None
    except sqlite3.DatabaseError as exc:
        raise fail(path, f"{exc} (allowed: a history store)") from None
    return prepared(db, path, lambda d: verify(d, path))


def prepared(
    db: sqlite3.Connection, path: Path, step: Callable[[sqlite3.Connection], object]
) -> sqlite3.Connection:
    """``db`` once ``step`` ran on it; closed where it fails (an SQLite error as
    one line)."""
    try:
        step(db)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise fail(path, f"{exc} (allowed: a history store)") from None
    except BaseException:
        db.close()
        raise
    return db


def check(path: str | Path) -> None:
    """Whether ``path`` can be used as the store, without writing anything (nothing
    is created beside it either): no file there (an append creates it), or a whole
    store of a schema this release reads. StoreError (one line) otherwise."""
    p = Path(path)
    if p.is_dir():
        raise fail(p, "is a directory (allowed: a history store, or no file there)")
    if not p.exists():
        return
    with closing(reading(p, quiet=True)):
        pass
