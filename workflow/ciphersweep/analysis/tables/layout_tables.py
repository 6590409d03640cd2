"""The tables a campaign's layouts describe (:mod:`ciphersweep.analysis.tables.layouts`
reads the layouts, their axes and each point's quantity): rows and columns from the
axes' values, or one column per measure; one table per value of ``per``; several
points in one cell averaged where ``aggregate: mean`` asks for it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ciphersweep.analysis.tables.layouts import (
    UNITS,
    axes_of,
    axis_value,
    groups,
    join,
    key_of,
    order_of,
    quantity,
    select,
    specs,
)
from ciphersweep.analysis.tables.model import (
    FAILED,
    NA,
    Context,
    Measured,
    Table,
    mark_oversubscribed,
    row_labels,
)
from ciphersweep.plan.sweep import Point


def build(ctx: Context) -> list[Table]:
    """Every table the campaign's layouts describe."""
    out = []
    for spec in specs(ctx.cfg):
        for name, value in groups(spec, ctx.points):
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


def _statistics(spec: dict[str, Any]) -> list[str]:
    """The statistics a layout's cells are in (its own, or each measure's)."""
    own = [
        m.get("statistic", spec["statistic"])
        for m in spec.get("measures", [])
        if "ratio" not in m
    ]
    return list(dict.fromkeys(own or [spec["statistic"]]))


def _table(
    ctx: Context, spec: dict[str, Any], name: str, per: str, keep: list[Point]
) -> Table:
    labels = row_labels(keep, ctx.ran)
    ren = spec["rename"]
    rows = [ren.get(r, r) for r in _combos(keep, spec["rows"], labels)]
    # the layout's own words never name a statistic: what the cells rest on is added
    bases = [ctx.basis(s, keep) for s in _statistics(spec)]
    typed = str(spec.get("caption") or "").strip()
    t = Table(
        name,
        f"{_title(spec, per)} ({'; '.join(b.title() for b in bases)})",
        rows,
        [],
        {},
        digits=int(spec["digits"]),
        row_header=", ".join(spec["rows"]),
        caption=" ".join(([typed] if typed else []) + [b.sentence() for b in bases]),
    )
    if "measures" in spec:
        _fill_measures(ctx, spec, t, keep, labels)
    else:
        _fill_grid(ctx, spec, t, keep, labels)
    return t


def _combos(
    points: Sequence[Point], axes: Sequence[str], labels: dict[str, str]
) -> list[str]:
    """Row (or column) keys in order: the product of the axes' orders, as they occur."""
    order = {a: order_of(points, a, labels) for a in axes}
    keys = {axes_of(p, axes, labels) for p in points}

    def rank(k: tuple[str, ...]) -> tuple[int, ...]:
        return tuple(order[a].index(v) for a, v in zip(axes, k, strict=True))

    return list(dict.fromkeys(join(k) for k in sorted(keys, key=rank)))


def _mean(vals: list[Any]) -> Any:
    """The mean of the values several points give one cell (e.g. the files of a set):
    a failed or missing member makes the cell failed / n/a, never a partial mean."""
    for v in vals:
        if isinstance(v, tuple) and v[0] == FAILED:
            return v
    for v in vals:
        if v is None or isinstance(v, tuple):
            return v if isinstance(v, tuple) else (NA, "a member has no value")
    if all(isinstance(v, str) for v in vals):
        return vals[0] if len(set(vals)) == 1 else (NA, "members differ")
    nums = [float(v.value if isinstance(v, Measured) else v) for v in vals]
    wide = sum(isinstance(v, Measured) and bool(v.note) for v in vals)
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
    if key in t.cells and t.cells[key] not in (NA,):
        t.cells[key] = NA
        t.notes[key] = "more than one point maps to this cell (refine `where`)"
        return
    if isinstance(v, tuple):  # (n/a or failed, why) or (mean, "mean over N inputs")
        t.cells[key], t.notes[key] = v
    elif isinstance(v, Measured):  # wider than the precision target
        t.cells[key], t.notes[key] = float(v.value), str(v.note)
        t.intervals[key] = (v.low, v.high)
    elif v is None or isinstance(v, float) and math.isnan(v):
        t.cells[key] = NA
    else:
        t.cells[key] = v if isinstance(v, str) else float(v)


def _mark_oversubscribed(
    ctx: Context, t: Table, marks: list[tuple[Point, tuple[str, str]]]
) -> None:
    """Footnote the cells (``marks``: point, cell) of the points whose records say
    they ran oversubscribed (after the cells are written: a cell of several points
    is their mean)."""
    for p, key in marks:
        mark_oversubscribed(t, key, p, ctx.by_point.get(p.id))


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
    marks: list[tuple[Point, tuple[str, str]]] = []
    for p in keep:
        r = key_of(p, spec["rows"], labels)
        c = key_of(p, spec["columns"], labels)
        v = quantity(
            ctx,
            p,
            spec["value"],
            time=spec["time"],
            statistic=spec["statistic"],
            unit=spec["unit"],
        )
        cells.put((ren.get(r, r), ren.get(c, c)), v)
        marks.append((p, (ren.get(r, r), ren.get(c, c))))
    cells.flush()
    _mark_oversubscribed(ctx, t, marks)


def _fill_measures(
    ctx: Context,
    spec: dict[str, Any],
    t: Table,
    keep: list[Point],
    labels: dict[str, str],
) -> None:
    ren = spec["rename"]
    t.columns = [m["label"] for m in spec["measures"]]
    cells = _Cells(t, spec)
    marks: list[tuple[Point, tuple[str, str]]] = []
    for m in spec["measures"]:
        if "ratio" in m:
            continue
        value = m["value"]
        for p in keep:
            if not select(p, m.get("where", {})):
                continue
            r = key_of(p, spec["rows"], labels)
            v = quantity(
                ctx,
                p,
                value,
                time=spec["time"],
                statistic=m.get("statistic", spec["statistic"]),
                unit=m.get("unit", UNITS[value][0]),
            )
            cells.put((ren.get(r, r), m["label"]), v)
            marks.append((p, (ren.get(r, r), m["label"])))
    cells.flush()
    _mark_oversubscribed(ctx, t, marks)
    for m in spec["measures"]:
        if "ratio" not in m:
            continue
        a, b = m["ratio"]
        for r in t.rows:
            va, vb = t.cells.get((r, a)), t.cells.get((r, b))
            if isinstance(va, float) and isinstance(vb, float) and vb > 0:
                t.cells[(r, m["label"])] = va / vb
            else:
                t.cells[(r, m["label"])] = NA
                t.notes[(r, m["label"])] = f"needs both {a} and {b}"
