"""Table layouts as data: a campaign describes its own tables under the config key
``tables`` (rows, columns or measures, statistic, unit, one table per value of an axis).

A layout is configuration, not code: every study's table shape is a few lines of YAML
(see docs/workflow.md, "Table layouts"). Its defaults are the schema's (``$defs.layout``
in workflow/schemas/config.schema.yaml, the one place they are written), applied to
every item of ``tables``; a layout without its own ``statistic`` shows the campaign's.
The cells reuse the formulas of :mod:`ciphersweep.analysis.tables.formulas` and the
baseline choice of :mod:`ciphersweep.analysis.tables.model`.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Sequence
from typing import Any

from ciphersweep.analysis.tables import formulas
from ciphersweep.analysis.tables.model import (
    NA,
    Context,
    Measured,
    status_cell,
)
from ciphersweep.core import ciphers, stats, units
from ciphersweep.plan import schema
from ciphersweep.plan.catalogue import LAYOUT_UNITS as UNITS
from ciphersweep.plan.catalogue import RATE_UNITS, TIME_UNITS, TIMES_ALL
from ciphersweep.plan.sweep import Point

# ------------------------------------------------------------------ config


def defaults() -> dict[str, Any]:
    """A layout's defaults (:func:`ciphersweep.plan.schema.layout_defaults`)."""
    return schema.layout_defaults()


def specs(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """The campaign's layouts with their defaults filled in; a layout without its own
    ``statistic`` shows the campaign's (:func:`ciphersweep.core.stats.statistic_of`)."""
    out = []
    for raw in cfg.get("tables") or []:
        spec = {**defaults(), "statistic": stats.statistic_of(cfg), **raw}
        spec.setdefault("unit", UNITS[spec["value"]][0])
        spec.setdefault("title", spec["name"])
        out.append(spec)
    return out


# ------------------------------------------------------------------ axes


def select(p: Point, where: dict[str, Any]) -> bool:
    """Whether a point matches a selector (axis -> value or list; strings are globs)."""
    for axis, want in where.items():
        have = axis_value(p, axis, {})
        wants = want if isinstance(want, list) else [want]
        if not any(fnmatch.fnmatchcase(have, str(w)) for w in wants):
            return False
    return True


def axis_value(p: Point, axis: str, labels: dict[str, str]) -> str:
    if axis == "label":
        return labels.get(p.id, p.backend)
    if axis == "size":
        return p.input_name
    if axis == "set":  # the file set of the input; an input outside a set stands alone
        return p.input_set or p.input_name
    if axis in ("algorithm", "key_bits", "security_bits"):
        return _cipher_axis(p, axis)
    if axis == "p":
        return str(p.p)
    return str(getattr(p, axis))


def _cipher_axis(p: Point, axis: str) -> str:
    """The cipher's family (aes, des, des-ede3, bf, chacha20), key or security bits."""
    try:
        c = ciphers.cipher(p.cipher, p.key_bits)
    except ValueError:
        return "" if axis != "algorithm" else p.cipher.split("-")[0]
    if axis == "algorithm":
        return c.family.split("-")[0] if c.family.startswith("aes") else c.family
    return str(c.key_bits if axis == "key_bits" else c.security_bits)


def order_of(points: Sequence[Point], axis: str, labels: dict[str, str]) -> list[str]:
    """Values of an axis in campaign order (sizes by bytes, numbers ascending)."""
    seen: dict[str, Any] = {}
    for i, p in enumerate(points):
        v = axis_value(p, axis, labels)
        if v in seen:
            continue
        if axis == "size":
            seen[v] = (1 if p.input_path else 0, p.size_bytes)
        elif axis in ("ranks", "threads", "gpus", "p"):
            seen[v] = (0, int(getattr(p, axis) if axis != "p" else p.p))
        elif axis in ("key_bits", "security_bits") and v.isdigit():
            seen[v] = (0, -int(v))  # longest key first, as the studies list them
        elif axis == "set":
            seen[v] = (0 if p.input_set else 1, i)
        else:
            seen[v] = (0, i)
    return sorted(seen, key=lambda v: seen[v])


def key_of(p: Point, axes: Sequence[str], labels: dict[str, str]) -> str:
    """A point's row (or column) label from its values of ``axes``."""
    return join(axes_of(p, axes, labels))


def join(values: Sequence[str]) -> str:
    return ", ".join(v for v in values if v)  # e.g. no key length for DES


def axes_of(p: Point, axes: Sequence[str], labels: dict[str, str]) -> tuple[str, ...]:
    """A point's values of ``axes``."""
    return tuple(axis_value(p, a, labels) for a in axes)


def _slug(v: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", v.lower()).strip("_") or "x"


def groups(spec: dict[str, Any], points: Sequence[Point]) -> list[tuple[str, str]]:
    """(table name, value of the per-axis or '') of one layout."""
    kept = [p for p in points if select(p, spec["where"])]
    per = spec.get("per")
    if not per:
        return [(spec["name"], "")] if kept else []
    return [(f"{spec['name']}_{_slug(v)}", v) for v in order_of(kept, per, {})]


def table_names(cfg: dict[str, Any], points: Sequence[Point]) -> list[str]:
    return [name for spec in specs(cfg) for name, _ in groups(spec, points)]


# ------------------------------------------------------------------ cells


def quantity(
    ctx: Context,
    p: Point,
    value: str,
    *,
    time: str = "t_total",
    statistic: str,
    unit: str | None = None,
) -> Any:
    """A point's value of one quantity in one unit: a float, None (n/a) or (n/a, why).

    The speedup and the efficiency are the formulas of
    :mod:`ciphersweep.analysis.tables.formulas` against the baseline
    :func:`ciphersweep.analysis.tables.model.baseline_of` picks."""
    row = ctx.by_point.get(p.id)
    missing = status_cell(row)
    if missing is not None:
        return missing
    assert row is not None
    unit = unit or UNITS[value][0]
    if value == "verified":
        return "OK"  # gather admits only verified repetitions
    if value == "security_bits":
        return _cipher_axis(p, "security_bits") or (NA, "unknown cipher")
    if value == "aes_path":
        path = row.get("aes_path")
        return path if isinstance(path, str) else (NA, "no AES path recorded")
    if value in ("speedup", "efficiency"):
        return _ratio_quantity(ctx, p, row, value, time, statistic)
    if value == "throughput":
        rate = units.rate(p.size_bytes, _stat(row, time, statistic), RATE_UNITS[unit])
        return None if rate is None else _flag_time(ctx, row, time, statistic, rate)
    v = _stat(row, value, statistic)
    if v is None:
        return (NA, f"{value}_{statistic} not recorded")
    if value == time == "t_total":
        return _flag_time(ctx, row, time, statistic, v * TIME_UNITS[unit])
    return v * TIME_UNITS[unit] if value in TIMES_ALL else v


def _ratio_quantity(
    ctx: Context,
    p: Point,
    row: dict[str, Any],
    value: str,
    time: str,
    statistic: str,
) -> Any:
    """A point's speedup or efficiency in ``statistic`` of ``time``."""
    brow = formulas.baseline_row(ctx, p)  # or (n/a, why): the one wording
    if isinstance(brow, tuple):
        return brow
    s = formulas.speedup(_stat(brow, time, statistic), _stat(row, time, statistic))
    v = s if value == "speedup" else formulas.efficiency(s, p.p)
    scale = 1.0 if value == "speedup" else float(p.p or 1)
    return _flag_ratio(ctx, brow, row, time, statistic, scale, v)


def _flag_time(
    ctx: Context, row: dict[str, Any], time: str, statistic: str, v: float
) -> Any:
    """A cell from a point's t_total, footnoted when its interval is wider than the
    precision target (ciphersweep.core.stats); other times have no interval."""
    e = stats.row_estimate(row, statistic, time) if time == "t_total" else None
    if e is None or e.value <= 0 or not e.wide(ctx.target):
        return v
    k = v / e.value  # the cell's unit (or 1/t for a throughput)
    lo, hi = sorted((k * e.low, k * e.high)) if k > 0 else (v, v)
    return Measured(v, lo, hi, stats.wide_note(e, ctx.target, statistic))


def _flag_ratio(
    ctx: Context,
    brow: dict[str, Any],
    row: dict[str, Any],
    time: str,
    statistic: str,
    scale: float,
    v: float | None,
) -> Any:
    """A speedup/efficiency cell with its interval from both times, footnoted when
    either time is wider than the precision target."""
    num = stats.row_estimate(brow, statistic, time) if time == "t_total" else None
    den = stats.row_estimate(row, statistic, time) if time == "t_total" else None
    if v is None or num is None or den is None:
        return v
    q = stats.ratio(num, den, scale)
    if q is None or not stats.ratio_wide(num, den, ctx.target):
        return v
    return Measured(v, q.low, q.high, stats.ratio_note(num, den, q, ctx.target))


def _stat(row: dict[str, Any], col: str, statistic: str) -> float | None:
    v = row.get(f"{col}_{statistic}")
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def baseline_ids(ctx: Context) -> dict[str, str]:
    """Point id -> its baseline point's id (:attr:`Context.baseline`)."""
    return ctx.baseline
