"""Which repetitions of a point's raw file count as measurements: the ONE place.

A repetition is admitted only when its line is a complete JSON object that matches the
record schema, says ``status: ok`` and ``verified: true``, and belongs to the point; a
point is admitted only when every line is admitted and their number is the one the
point asked for (:meth:`ciphersweep.plan.sweep.Point.reps_problem`), and every record's
``fingerprint`` is the one the plan holds for the point (:mod:`ciphersweep.plan.fingerprint`:
build, binary, input and shape). Anything else makes the point ``failed`` with a reason
naming the file and line.

The same verdict decides whether a point runs again (:func:`attempt_token`): the bench
rule's ``attempt`` parameter is derived from it, so Snakemake's own params rerun
trigger re-measures failed and damaged points, and nothing is deleted to make that
happen.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any

from ciphersweep.job.record_schema import FIRST, validate_record
from ciphersweep.plan.fingerprint import Expected, Planned, planned, record_mismatch
from ciphersweep.plan.sweep import Point


@dataclass(frozen=True)
class Verdict:
    """What a raw file holds for one point.

    ``state``: ``ok`` (admitted), ``failed`` (the run wrote a failure record),
    ``damaged`` (anything else that is there) or ``missing``."""

    state: str
    reason: str | None = None
    records: list[dict[str, Any]] = field(default_factory=list)
    failure: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.state == "ok"


# The raw files whose every record matched the record schema when this process last
# read them, by identity (device, inode, size, modification and change time). The
# workflow judges every raw file while it plans the run and again when it gathers, in
# the same process: a file unchanged in between is schema-checked once, and a file
# written in between (a bench job's records replace it) is another identity, checked
# when the gather reads it. A few integers a file, whatever its records.
_SCHEMA_CHECKED: set[tuple[int, ...]] = set()


def _identity(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _read(path: str | Path) -> tuple[str, tuple[int, ...]]:
    """A raw file's text and the identity of the bytes read (one open: a file
    replaced meanwhile is read whole, the old or the new)."""
    with open(path, "rb") as fh:
        ident = _identity(os.fstat(fh.fileno()))
        return fh.read().decode("utf-8"), ident


def _record_problem(
    rec: Any, point: Point, plan: Callable[[], Planned] | None, checked: bool
) -> str | None:
    if not isinstance(rec, dict):
        return f"not a JSON object ({type(rec).__name__})"
    if rec.get("status") != "ok":
        return f"status is {rec.get('status')!r} (admitted: 'ok')"
    if rec.get("verified") is not True:
        return f"verified is {rec.get('verified')!r} (admitted: true)"
    if rec.get("point") not in (None, point.id):
        return f"record of point {rec.get('point')!r}"
    bad = None if checked else validate_record(rec)
    if bad:
        return f"does not match the record schema: {bad}"
    return record_mismatch(rec, plan()) if plan is not None else None


def judge(
    path: str | Path,
    point: Point,
    expected: Expected | None = None,
    deep: bool = True,
) -> Verdict:
    """The verdict on ``path``, the raw file of ``point``; with ``expected`` (the plan's
    fingerprint of the point) every record's fingerprint must match it (``deep``: a
    user's input file is hashed for it too). Each record is parsed once, and
    schema-checked once while the file stays as it is (:data:`_SCHEMA_CHECKED`)."""
    try:
        text, ident = _read(path)
    except FileNotFoundError:
        return Verdict("missing", f"{path}: no raw file")
    except (OSError, UnicodeDecodeError) as exc:
        return Verdict("damaged", f"{path}: unreadable ({exc})")
    records: list[dict[str, Any]] = []
    checked = ident in _SCHEMA_CHECKED
    # the planned fingerprint, read once for the file when a record first needs it
    plan = cache(partial(planned, expected, deep)) if expected is not None else None
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as exc:
            return Verdict(
                "damaged", f"{path}:{no}: not a complete JSON record ({exc})"
            )
        if isinstance(rec, dict) and rec.get("status") == "failed":
            return Verdict("failed", str(rec.get("reason") or "failed"), failure=rec)
        problem = _record_problem(rec, point, plan, checked)
        if problem:
            return Verdict("damaged", f"{path}:{no}: {problem}")
        records.append(rec)
    _SCHEMA_CHECKED.add(ident)
    problem = point.reps_problem(records)
    if problem:
        return Verdict("damaged", f"{path}: {problem}")
    return Verdict("ok", None, records)


def attempt_token(
    path: str | Path, point: Point, expected: Expected | None = None
) -> str:
    """The bench rule's ``attempt`` parameter for ``point`` (its raw file ``path``)."""
    return replan(path, point, expected)[0]


def replan(
    path: str | Path, point: Point, expected: Expected | None = None
) -> tuple[str, str | None]:
    """The bench rule's ``attempt`` parameter for ``point`` (its raw file ``path``) and,
    when the point runs again because of what its file holds, why (one line).

    An admitted file carries the token of the run that wrote it, which is the value
    Snakemake recorded for that run, so nothing changes and the point is not run again.
    A missing file gives ``first``. A failed or damaged file gives a token derived from
    its bytes, which differs from the recorded one: Snakemake re-runs the point (its
    params rerun trigger), and the new records carry the new token. Records whose
    fingerprint is not the plan's (``expected``: another build, binary, input or
    shape) count as damaged: the point is measured again in the same run."""
    verdict = judge(path, point, expected, deep=False)
    if verdict.state == "missing":
        return FIRST, None
    if verdict.ok:
        return str(verdict.records[0].get("attempt") or FIRST), None
    why = verdict.reason
    if verdict.state == "failed":
        why = f"{FAILED_PREFIX}{why}"
    try:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    except OSError:
        digest = "unreadable"
    return f"rerun {digest}", why


def attempt(token: str, why: str | None, list_mtime_ns: int) -> str:
    """The bench rule's ``attempt`` parameter of a point: ``token`` (:func:`replan`'s,
    or :func:`lost`'s) while its records hold; while it is to be measured (``why``:
    :func:`pending`'s), ``token`` with the time its pack's list was last written
    (``list_mtime_ns``; 0: no list).

    Snakemake records a job's parameters also where the job measured nothing:
    ``--touch`` marks the pack done and sets its list's time, and a failed or
    interrupted bench job gets its previous list back, written anew. The point is
    still to be measured, and its parameter now differs from the one recorded, so
    the same command measures it. Its new records carry this token, which is then
    the parameter again: nothing runs twice."""
    return token if why is None else f"{token} @{list_mtime_ns}"


# why a point without a raw file is measured
NO_RECORDS = "no records yet"
# the kinds of reason a point is measured for (what a dry run counts)
KINDS = ("no records", "failed", "changed")


def reason_kind(why: str) -> str:
    """The kind of a reason :func:`pending` gives: no records (never measured), failed
    (its records hold a failure), or changed (damaged, lost, another fingerprint, other
    parameters, a newer input)."""
    if why == NO_RECORDS:
        return KINDS[0]
    return KINDS[1] if why.startswith(FAILED_PREFIX) else KINDS[2]


FAILED_PREFIX = "failed: "


def lost(
    path: str | Path,
    listed: Sequence[str] | None,
    list_mtime_ns: int,
    gathered: Collection[str] | None = None,
    gathered_mtime_ns: int = 0,
) -> str | None:
    """The ``attempt`` token of a point whose raw file ``path`` is gone although it was
    measured (None: it has its file, or was never measured). It was measured when its
    pack's list (``listed``, written ``list_mtime_ns``) names it or, where that list is
    gone too, when the campaign's summary (``gathered``: the points summary.csv names,
    written ``gathered_mtime_ns``) does.

    The token differs from the one Snakemake recorded for the pack, so the pack runs
    and measures the point again, and the gather after it drops the lost records from
    the tables; the new records carry it, so it then stays as it is (a later loss, after
    the list was written again, gives another). The file is looked up only where a
    list names the point."""
    name = Path(path).stem
    if listed is not None and name in listed:
        token = f"lost {list_mtime_ns}"
    elif gathered is not None and name in gathered:
        token = f"lost {gathered_mtime_ns}"
    else:
        return None
    return None if os.path.exists(path) else token


def recorded_plan_key(path: str | Path) -> str | None:
    """The ``plan_key`` of a raw file's first record (None: none, or unreadable)."""
    try:
        with open(path, encoding="utf-8") as fh:
            first = fh.readline()
        rec = json.loads(first)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return rec.get("plan_key") if isinstance(rec, dict) else None


def pending(
    path: str | Path,
    rerun_reason: str | None,
    key: Callable[[], str],
    inputs: list[str],
) -> str | None:
    """Why a bench job measures the point of raw file ``path`` (None: its records hold).

    ``rerun_reason``: :func:`replan`'s (missing, failed, damaged, another fingerprint);
    ``key``: the point's plan key now, asked only when its records are read (records of
    another key were planned with other parameters, another input stamp or build);
    ``inputs``: the files whose being newer than the records measures the point again
    (its input data, an image, a Python kernel; not the binaries, whose content the
    fingerprint compares)."""
    if rerun_reason is not None:
        return rerun_reason
    try:
        mtime = os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return NO_RECORDS
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    recorded = recorded_plan_key(path)
    if recorded is not None and recorded != key():
        return f"{path}: planned with other parameters, input or build"
    try:
        newer = [f for f in inputs if os.stat(f).st_mtime_ns > mtime]
    except OSError as exc:
        return f"{exc.filename}: {exc.strerror or exc}"
    if newer:
        return f"{newer[0]} is newer than {path}"
    return None
