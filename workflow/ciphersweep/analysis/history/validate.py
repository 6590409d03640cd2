"""What a finished campaign's files must hold to become a run of the history.

The history's gate judges every later run against what is stored, so nothing is
stored that a campaign could not have measured: each point once, with an id; sizes and
launch shapes as whole numbers; an ``ok`` cell's time finite and not negative, inside
its own interval, at a level between 0 and 1, over at least one repetition; and a run
time that is a time, not later than now. A summary that breaks one of these is refused
with one line naming the point (or the row), the column and what is allowed.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from ciphersweep.core import stats

# the record timestamps' format, kept in the store (its text order is time order)
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
# how far a run may seem to lie in the future (clocks of a cluster's nodes differ)
CLOCK_SLACK = _dt.timedelta(days=1)
# point columns that are whole numbers, with their least value
_WHOLE = {"bytes": 1, "ranks": 0, "threads": 0, "gpus": 0, "block_threads": 0}


class Problem(ValueError):
    """What is wrong, as the second half of one line (the caller names the file)."""


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or v == ""


def _number(row: Mapping[str, Any], key: str, where: str) -> float | None:
    """The value of ``key`` as a number (None: missing); Problem where it is not one."""
    v = row.get(key)
    if _missing(v):
        return None
    f = stats.number(v)
    if f is None:
        raise Problem(f"{where}: {key} is {v!r} (allowed: a number)")
    return f


def _whole(row: Mapping[str, Any], key: str, least: int, where: str) -> None:
    f = _number(row, key, where)
    if f is not None and not (math.isfinite(f) and f.is_integer() and f >= least):
        raise Problem(
            f"{where}: {key} is {row.get(key)!r} (allowed: a whole number >= {least})"
        )


def _time(row: Mapping[str, Any], key: str, where: str) -> float | None:
    f = _number(row, key, where)
    if f is not None and not (math.isfinite(f) and f >= 0):
        raise Problem(
            f"{where}: {key} is {row.get(key)!r} (allowed: a finite time >= 0 s)"
        )
    return f


def _estimate(row: Mapping[str, Any], statistic: str, where: str) -> None:
    """An ``ok`` cell's time, interval, level and repetitions."""
    value_key, low_key, high_key, level_key = stats.estimate_columns(statistic)
    value = _time(row, value_key, where)
    if value is None:
        raise Problem(
            f"{where}: no {value_key} for an ok cell (allowed: its {statistic} time)"
        )
    low, high = _time(row, low_key, where), _time(row, high_key, where)
    if (low is not None and low > value) or (high is not None and high < value):
        raise Problem(
            f"{where}: {value_key} {value:g} lies outside its interval "
            f"[{low if low is not None else '-'}, {high if high is not None else '-'}] "
            f"(allowed: {low_key} <= {value_key} <= {high_key})"
        )
    level = _number(row, level_key, where)
    if level is not None and not 0 <= level <= 1:
        raise Problem(
            f"{where}: {level_key} is {row.get(level_key)!r} (allowed: a level from 0 "
            "to 1, e.g. 0.95)"
        )
    n_key = "t_total_n" if not _missing(row.get("t_total_n")) else "n"
    n = _number(row, n_key, where)
    if n is None or not (math.isfinite(n) and n.is_integer() and n >= 1):
        raise Problem(
            f"{where}: {n_key} is {row.get(n_key)!r} for an ok cell (allowed: the "
            "number of repetitions, a whole number >= 1)"
        )


def summary_rows(rows: Iterable[Mapping[str, Any]], statistic: str) -> None:
    """Every row of a summary.csv (as read by pandas): Problem for the first one that
    could not have been measured."""
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        line = i + 2  # the header is line 1
        point = row.get("point")
        if _missing(point) or not str(point).strip():
            raise Problem(f"line {line}: no point id (allowed: the point's id)")
        point = str(point)
        if point in seen:
            raise Problem(
                f"point {point} is listed twice (lines {seen[point]} and {line}; "
                "allowed: one row per point)"
            )
        seen[point] = line
        where = f"point {point}"
        for key, least in _WHOLE.items():
            _whole(row, key, least, where)
        if row.get("status") == "ok":
            _estimate(row, statistic, where)


def run_time(
    stamps: Iterable[Any], fallback: _dt.datetime, now: _dt.datetime | None = None
) -> str:
    """The time of a run: its latest record's timestamp (``fallback`` where no record
    has one), in UTC as :data:`TIME_FORMAT`. Problem for a timestamp that is not a
    time, or a run later than now."""
    values = [s for s in stamps if not _missing(s)]
    latest = fallback.astimezone(_dt.UTC)
    if values:
        parsed = pd.to_datetime(
            pd.Series([str(v) for v in values]),
            utc=True,
            errors="coerce",
            format="ISO8601",
        )
        bad = [v for v, t in zip(values, parsed) if pd.isna(t)]
        if bad:
            raise Problem(
                f"timestamp {bad[0]!r} is not a time (allowed: ISO 8601, e.g. "
                "2026-01-31T12:00:00Z)"
            )
        latest = parsed.max().to_pydatetime()
    now = now or _dt.datetime.now(_dt.UTC)
    if latest > now + CLOCK_SLACK:
        raise Problem(
            f"the run's time {latest.strftime(TIME_FORMAT)} is later than now "
            f"({now.strftime(TIME_FORMAT)}; allowed: the time the campaign ran)"
        )
    return latest.strftime(TIME_FORMAT)
