"""Where a measured value comes from: summary.csv through
:func:`ciphersweep.analysis.tables.layouts.quantity` (the one speedup formula, the
campaign's baseline), with the confidence interval the statistics module wrote
(``<col>_ci_low``/``<col>_ci_high``, or the mean's); the object sizes of the build
rules; power and the encryption/decryption ratio from two measured cells. Every value
is in the campaign's statistic unless the row or claim names its own."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ciphersweep.analysis.compare.intervals import factor
from ciphersweep.analysis.tables import layouts
from ciphersweep.analysis.tables.model import Context, Measured
from ciphersweep.core import stats, units
from ciphersweep.job import build
from ciphersweep.plan.catalogue import MEASURES
from ciphersweep.plan.sweep import Point

AXES = (
    "backend",
    "impl",
    "mode",
    "op",
    "cipher",
    "algorithm",
    "key_bits",
    "size",
    "set",
    "ranks",
    "threads",
    "gpus",
    "block_threads",
    "variant",
)
# quantities where less is better (an order lists these smallest first)
LOWER_FIRST = (
    *layouts.TIMES_ALL,
    "binary_bytes",
    "joules",
    "watts",
    "cpu_util",
    "cpu_peak_pct",
)


def selector(row: dict[str, Any]) -> dict[str, Any]:
    """Axis -> value of a published row or claim selector (empty cells: any)."""
    out: dict[str, Any] = {}
    for a in AXES:
        v = row.get(a)
        if v is None or (isinstance(v, str) and not v.strip()):
            continue
        if isinstance(v, float) and math.isnan(v):
            continue
        out[a] = [str(x) for x in v] if isinstance(v, list) else str(v)
    return out


def matching(points: Sequence[Point], where: dict[str, Any]) -> list[Point]:
    return [p for p in points if layouts.select(p, where)]


def measured(
    ctx: Context, p: Point, measure: str, unit: str, statistic: str | None = None
) -> Measured:
    """The point's value of a measure in the given unit, with its interval if known
    (``statistic``: the campaign's unless given)."""
    statistic = statistic or ctx.statistic
    if measure == "enc_dec_ratio":
        return _enc_dec_ratio(ctx, p, statistic)
    if measure == "binary_bytes":
        return _object_size(ctx, p)
    if measure == "watts":
        return _power(ctx, p, statistic)
    value, time = MEASURES[measure]
    shown = unit if unit in layouts.UNITS[value] else None
    v = layouts.quantity(ctx, p, value, time=time, statistic=statistic, unit=shown)
    if isinstance(v, tuple):
        return Measured(None, why=str(v[1]))
    v = getattr(v, "value", v)  # a cell flagged as wider than the precision target
    if not isinstance(v, float):
        return Measured(None, why="no value")
    low, high, level = _interval(ctx, p, value, time, statistic)
    if low is None or high is None:
        return Measured(v)
    if value in layouts.TIMES_ALL:
        f = layouts.TIME_UNITS.get(shown or "s", 1.0)
        return Measured(v, low * f, high * f, level=level)
    if value == "throughput":  # a time interval reaching 0 bounds no rate from above
        per = layouts.RATE_UNITS[shown or "MB/s"]
        top = units.rate(p.size_bytes, low, per)
        bottom = units.rate(p.size_bytes, high, per) or 0.0
        return Measured(v, bottom, math.inf if top is None else top, level=level)
    if value == "efficiency":
        return Measured(v, low / p.p, high / p.p, level=level)
    return Measured(v, low, high, level=level)


def _estimate(
    ctx: Context, pid: str | None, col: str, statistic: str
) -> stats.Estimate | None:
    """A point's estimate of one summary column, None where it has no interval: none
    recorded, or a single value (coverage 0, low and high the value itself)."""
    row = None if pid is None else ctx.by_point.get(pid)
    e = None if row is None else stats.row_estimate(row, statistic, prefix=col)
    if e is None or math.isnan(e.level) or (e.level <= 0 and e.low == e.high):
        return None
    return e


def _interval(
    ctx: Context, p: Point, value: str, time: str, statistic: str
) -> tuple[float | None, float | None, float | None]:
    """The statistics module's interval of a time (seconds) or of a speedup, with the
    level it was computed at."""
    if value in ("speedup", "efficiency"):
        b = layouts.baseline_ids(ctx).get(p.id)
        num, den = (
            _estimate(ctx, b, time, statistic),
            _estimate(ctx, p.id, time, statistic),
        )
        r = stats.ratio(num, den) if num and den else None
        return (r.low, r.high, r.level) if r else (None, None, None)
    col = time if value == "throughput" else value  # a rate: its time's
    e = _estimate(ctx, p.id, col, statistic)
    return (e.low, e.high, e.level) if e else (None, None, None)


def _object_size(ctx: Context, p: Point) -> Measured:
    """Compiled size (text + data + bss) of the point's algorithm object file in its
    build, from the binary-size records of the build rules (ciphersweep.job.build)."""
    sizes = build.load_sizes(ctx.cfg) if "build" in ctx.cfg else {}
    name = p.impl.replace("-", "_")
    for r in sizes.get(build.build_name(p.variant), []):
        if r.get("part") == "object" and r.get("name") == name:
            total = float(r["total"])  # exact: an interval of width 0
            return Measured(total, total, total, level=1.0)
    return Measured(None, why=f"no size record of {name}.o in this campaign's build")


def _power(ctx: Context, p: Point, statistic: str) -> Measured:
    """Mean power of the timed region (W): its energy over its time, with the
    interval of the two (n/a where the machine has no energy source)."""
    j = measured(ctx, p, "joules", "J", statistic)
    t = measured(ctx, p, "t_total", "s", statistic)
    if j.value is None:
        return Measured(None, why=f"no energy measured ({j.why or 'no RAPL/likwid'})")
    if t.value is None or t.value <= 0:
        return Measured(None, why=t.why or "no time")
    return factor(j, t, False)


def _same_cell(q: Point) -> tuple[Any, ...]:
    """A point's axes but its operation: its encrypt and decrypt twins share these."""
    skip = ("op", "id", "command", "inject_fault")
    return tuple(v for k, v in q.as_dict().items() if k not in skip)


def _enc_dec_ratio(ctx: Context, p: Point, statistic: str) -> Measured:
    """T(encrypt) / T(decrypt) of the same cell (the point and its other operation)."""
    twin = {q.op: q for q in ctx.points if _same_cell(q) == _same_cell(p)}
    if "encrypt" not in twin or "decrypt" not in twin:
        return Measured(None, why="needs both encrypt and decrypt points")
    te = measured(ctx, twin["encrypt"], "t_total", "s", statistic)
    td = measured(ctx, twin["decrypt"], "t_total", "s", statistic)
    if te.value is None or td.value is None or td.value <= 0:
        return Measured(None, why=te.why or td.why or "no time")
    return factor(td, te, True)  # T(encrypt) / T(decrypt) with its interval


def cell(
    ctx: Context,
    where: dict[str, Any],
    measure: str,
    unit: str,
    statistic: str | None = None,
) -> Measured:
    """The one measured cell a selector names (n/a with the reason otherwise), in the
    campaign's statistic unless one is given."""
    pts = matching(ctx.points, where)
    if measure == "enc_dec_ratio":
        pts = [p for p in pts if p.op == "encrypt"]
    if not pts:
        return Measured(None, why="not measured by this campaign")
    if measure == "binary_bytes":  # one binary serves every point of an impl
        sizes = {measured(ctx, p, measure, unit).value for p in pts} - {None}
        if len(sizes) == 1:
            size = sizes.pop()
            return Measured(size, size, size, level=1.0)
    if len(pts) > 1:
        return Measured(
            None,
            why=f"{len(pts)} measured cells match (give more keys): {pts[0].id} ...",
        )
    return measured(ctx, pts[0], measure, unit, statistic)
