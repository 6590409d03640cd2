"""Table layouts as data: a campaign describes its own tables under the config key
``tables`` (rows, columns or measures, statistic, unit, one table per value of an axis).

A layout is configuration, not code: every study's table shape is a few lines of YAML
(see docs/workflow.md, "Table layouts"). The cells reuse the one speedup formula and the
baseline choice of :mod:`ciphersweep.analysis.tables.model`; the generic tables stay as they are.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ciphersweep.core import stats
from ciphersweep.plan.catalogue import LAYOUT_DEFAULTS as DEFAULTS
from ciphersweep.plan.catalogue import LAYOUT_UNITS as UNITS
from ciphersweep.plan.catalogue import RATE_UNITS, TIME_UNITS, TIMES_ALL
from ciphersweep.plan.sweep import Point

if TYPE_CHECKING:  # pragma: no cover
    from ciphersweep.analysis.tables.model import Context, Table

# ------------------------------------------------------------------ config


def specs(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """The campaign's layouts with their defaults filled in; a layout without its own
    ``statistic`` shows the campaign's (:func:`ciphersweep.core.stats.statistic_of`)."""
    out = []
    for raw in cfg.get("tables") or []:
        spec = {**DEFAULTS, "statistic": stats.statistic_of(cfg), **raw}
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
    from ciphersweep.core import ciphers

    try:
        c = ciphers.cipher(p.cipher, p.key_bits)
    except ValueError:
        return "" if axis != "algorithm" else p.cipher.split("-")[0]
    if axis == "algorithm":
        return c.family.split("-")[0] if c.family.startswith("aes") else c.family
    return str(c.key_bits if axis == "key_bits" else c.security_bits)


def _order(points: Sequence[Point], axis: str, labels: dict[str, str]) -> list[str]:
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


def _key(p: Point, axes: Sequence[str], labels: dict[str, str]) -> str:
    return _join(_tuple(p, axes, labels))


def _join(values: Sequence[str]) -> str:
    return ", ".join(v for v in values if v)  # e.g. no key length for DES


def _tuple(p: Point, axes: Sequence[str], labels: dict[str, str]) -> tuple[str, ...]:
    return tuple(axis_value(p, a, labels) for a in axes)


def _slug(v: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", v.lower()).strip("_") or "x"


def _groups(spec: dict[str, Any], points: Sequence[Point]) -> list[tuple[str, str]]:
    """(table name, value of the per-axis or '') of one layout."""
    kept = [p for p in points if select(p, spec["where"])]
    per = spec.get("per")
    if not per:
        return [(spec["name"], "")] if kept else []
    return [(f"{spec['name']}_{_slug(v)}", v) for v in _order(kept, per, {})]


def table_names(cfg: dict[str, Any], points: Sequence[Point]) -> list[str]:
    return [name for spec in specs(cfg) for name, _ in _groups(spec, points)]


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

    The speedup is the one formula of :func:`ciphersweep.analysis.tables.model.speedup` against the
    baseline :func:`ciphersweep.analysis.tables.model.baseline_of` picks."""
    from ciphersweep.analysis.tables import model as tables

    row = ctx.by_point.get(p.id)
    missing = tables.status_cell(row)
    if missing is not None:
        return missing
    assert row is not None
    unit = unit or UNITS[value][0]
    if value == "verified":
        return "OK"  # gather admits only verified repetitions
    if value == "security_bits":
        return _cipher_axis(p, "security_bits") or (tables.NA, "unknown cipher")
    if value in ("speedup", "efficiency"):
        b = _baseline(ctx).get(p.id)
        if b is None:
            return (tables.NA, "no baseline for this point")
        brow = ctx.by_point.get(b)
        if brow is None or brow.get("status") != "ok":
            return (tables.NA, f"baseline {b} failed")
        s = tables.speedup(_stat(brow, time, statistic), _stat(row, time, statistic))
        v = s if value == "speedup" else tables.efficiency(s, p.p)
        scale = 1.0 if value == "speedup" else float(p.p or 1)
        return _flag_ratio(ctx, brow, row, time, statistic, scale, v)
    if value == "throughput":
        t = _stat(row, time, statistic)
        if t is None or t <= 0:
            return None
        return _flag_time(
            ctx, row, time, statistic, p.size_bytes / t / RATE_UNITS[unit]
        )
    if value == time == "t_total":
        v = _stat(row, value, statistic)
        if v is not None:
            return _flag_time(ctx, row, time, statistic, v * TIME_UNITS[unit])
    v = _stat(row, value, statistic)
    if v is None:
        col = f"{value}_{statistic}"
        return (tables.NA, f"{col} not recorded")
    return v * TIME_UNITS[unit] if value in TIMES_ALL else v


def _flag_time(
    ctx: Context, row: dict[str, Any], time: str, statistic: str, v: float
) -> Any:
    """A cell from a point's t_total, footnoted when its 95% interval is wider than the
    precision target (ciphersweep.core.stats); other times have no interval."""
    from ciphersweep.analysis.tables import model as tables

    e = stats.row_estimate(row, statistic, time) if time == "t_total" else None
    if e is None or e.value <= 0 or not e.wide(ctx.target):
        return v
    k = v / e.value  # the cell's unit (or 1/t for a throughput)
    lo, hi = sorted((k * e.low, k * e.high)) if k > 0 else (v, v)
    return tables.Measured(v, lo, hi, stats.wide_note(e, ctx.target, statistic))


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
    from ciphersweep.analysis.tables import model as tables

    num = stats.row_estimate(brow, statistic, time) if time == "t_total" else None
    den = stats.row_estimate(row, statistic, time) if time == "t_total" else None
    if v is None or num is None or den is None:
        return v
    q = stats.ratio(num, den, scale)
    if q is None or not stats.ratio_wide(num, den, ctx.target):
        return v
    return tables.Measured(v, q.low, q.high, stats.ratio_note(num, den, q, ctx.target))


def _stat(row: dict[str, Any], col: str, statistic: str) -> float | None:
    v = row.get(f"{col}_{statistic}")
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def baseline_ids(ctx: Context) -> dict[str, str]:
    """Point id -> its baseline point's id (cached on the context)."""
    return _baseline(ctx)


def _baseline(ctx: Context) -> dict[str, str]:
    cached = getattr(ctx, "_baseline_cache", None)
    if cached is None:
        from ciphersweep.analysis.tables import model as tables

        cached = tables.baseline_of(ctx)
        ctx._baseline_cache = cached  # type: ignore[attr-defined]
    return cached


# ------------------------------------------------------------------ tables


def build(ctx: Context) -> list[Table]:
    """Every table the campaign's layouts describe."""
    out = []
    for spec in specs(ctx.cfg):
        for name, value in _groups(spec, ctx.points):
            keep = [p for p in ctx.points if select(p, spec["where"])]
            if spec.get("per"):
                keep = [p for p in keep if axis_value(p, spec["per"], {}) == value]
            out.append(_table(ctx, spec, name, value, keep))
    return out


def _title(spec: dict[str, Any], value: str) -> str:
    title = spec["title"]
    if value:
        title += f" — {spec['per']} {spec['rename'].get(value, value)}"
    return title


def _table(
    ctx: Context, spec: dict[str, Any], name: str, per: str, keep: list[Point]
) -> Table:
    from ciphersweep.analysis.tables import model as tables

    labels = tables.row_labels(keep)
    ren = spec["rename"]
    rows = [ren.get(r, r) for r in _combos(keep, spec["rows"], labels)]
    t = tables.Table(
        name,
        _title(spec, per),
        rows,
        [],
        {},
        digits=int(spec["digits"]),
        row_header=", ".join(spec["rows"]),
        caption=spec.get("caption", ""),
    )
    if "measures" in spec:
        _fill_measures(ctx, spec, t, keep, labels)
    else:
        _fill_grid(ctx, spec, t, keep, labels)
    return t


def _combos(points: Sequence[Point], axes: Sequence[str], labels: dict[str, str]):
    """Row (or column) keys in order: the product of the axes' orders, as they occur."""
    order = {a: _order(points, a, labels) for a in axes}
    keys = {_tuple(p, axes, labels) for p in points}

    def rank(k: tuple[str, ...]) -> tuple[int, ...]:
        return tuple(order[a].index(v) for a, v in zip(axes, k, strict=True))

    return list(dict.fromkeys(_join(k) for k in sorted(keys, key=rank)))


def _mean(vals: list[Any]) -> Any:
    """The mean of the values several points give one cell (e.g. the files of a set):
    a failed or missing member makes the cell failed / n/a, never a partial mean."""
    from ciphersweep.analysis.tables import model as tables

    for v in vals:
        if isinstance(v, tuple) and v[0] == tables.FAILED:
            return v
    for v in vals:
        if v is None or isinstance(v, tuple):
            return v if isinstance(v, tuple) else (tables.NA, "a member has no value")
    if all(isinstance(v, str) for v in vals):
        return vals[0] if len(set(vals)) == 1 else (tables.NA, "members differ")
    nums = [float(v.value if isinstance(v, tables.Measured) else v) for v in vals]
    wide = sum(isinstance(v, tables.Measured) and bool(v.note) for v in vals)
    note = f"mean over {len(nums)} inputs" + (
        f"; {wide} of them wider than the precision target" if wide else ""
    )
    return (sum(nums) / len(nums), note)


class _Cells:
    """Cells of one layout table: put at once, or collected and averaged
    (``aggregate: mean``)."""

    def __init__(self, t: Table, spec: dict[str, Any]) -> None:
        self.t, self.aggregate = t, spec.get("aggregate")
        self.pending: dict[tuple[str, str], list[Any]] = {}

    def put(self, key: tuple[str, str], v: Any) -> None:
        if self.aggregate:
            self.pending.setdefault(key, []).append(v)
        else:
            _put(self.t, key, v)

    def flush(self) -> None:
        for key, vals in self.pending.items():
            _put(self.t, key, _mean(vals) if len(vals) > 1 else vals[0])
        self.pending.clear()


def _put(t: Table, key: tuple[str, str], v: Any) -> None:
    from ciphersweep.analysis.tables import model as tables

    if key in t.cells and t.cells[key] not in (tables.NA,):
        t.cells[key] = tables.NA
        t.notes[key] = "more than one point maps to this cell (refine `where`)"
        return
    if isinstance(v, tuple):  # (n/a or failed, why) or (mean, "mean over N inputs")
        t.cells[key], t.notes[key] = v
    elif isinstance(v, tables.Measured):  # wider than the precision target
        t.cells[key], t.notes[key] = float(v.value), str(v.note)
        t.intervals[key] = (v.low, v.high)
    elif v is None or isinstance(v, float) and math.isnan(v):
        t.cells[key] = tables.NA
    else:
        t.cells[key] = v if isinstance(v, str) else float(v)


def _fill_grid(
    ctx: Context,
    spec: dict[str, Any],
    t: Table,
    keep: list[Point],
    labels: dict[str, str],
) -> None:
    ren = spec["rename"]
    t.columns = [ren.get(c, c) for c in _combos(keep, spec["columns"], labels)]
    cells = _Cells(t, spec)
    for p in keep:
        r = _key(p, spec["rows"], labels)
        c = _key(p, spec["columns"], labels)
        v = quantity(
            ctx,
            p,
            spec["value"],
            time=spec["time"],
            statistic=spec["statistic"],
            unit=spec["unit"],
        )
        cells.put((ren.get(r, r), ren.get(c, c)), v)
    cells.flush()


def _fill_measures(
    ctx: Context,
    spec: dict[str, Any],
    t: Table,
    keep: list[Point],
    labels: dict[str, str],
) -> None:
    from ciphersweep.analysis.tables import model as tables

    ren = spec["rename"]
    t.columns = [m["label"] for m in spec["measures"]]
    cells = _Cells(t, spec)
    for m in spec["measures"]:
        if "ratio" in m:
            continue
        value = m["value"]
        for p in keep:
            if not select(p, m.get("where", {})):
                continue
            r = _key(p, spec["rows"], labels)
            v = quantity(
                ctx,
                p,
                value,
                time=spec["time"],
                statistic=m.get("statistic", spec["statistic"]),
                unit=m.get("unit", UNITS[value][0]),
            )
            cells.put((ren.get(r, r), m["label"]), v)
    cells.flush()
    for m in spec["measures"]:
        if "ratio" not in m:
            continue
        a, b = m["ratio"]
        for r in t.rows:
            va, vb = t.cells.get((r, a)), t.cells.get((r, b))
            if isinstance(va, float) and isinstance(vb, float) and vb > 0:
                t.cells[(r, m["label"])] = va / vb
            else:
                t.cells[(r, m["label"])] = tables.NA
                t.notes[(r, m["label"])] = f"needs both {a} and {b}"
