"""Tables laid out like the reference study: rows = backend / P, columns = data size.

Every table is written as CSV (numbers; failed cells say ``failed``), Markdown and LaTeX
(failed cells say ``failed`` with a footnote giving the reason). Timing cells are the
campaign's statistic (median or mean) with its 95% interval (:mod:`ciphersweep.core.stats`):
a cell whose interval is wider than the precision target gets a footnote with its +-%,
and speedup and efficiency cells show their interval in Markdown and LaTeX.

The generic builders are listed in :data:`BUILDERS`; every table of a campaign, these
and the others (energy, provenance, sizes, comparisons), is listed in one plain list,
:data:`ciphersweep.analysis.tables.registry.BUILDERS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ciphersweep.core import stats
from ciphersweep.plan.sweep import Point

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

# backends whose rows are named by their cipher; they have no sequential baseline
NAMED_BACKENDS = ("openssl", "pycryptodome", "purepy", "command")
FAILED = "failed"
NA = "n/a"
# ------------------------------------------------------------------ the one formula


def speedup(ts: float | None, tp: float | None) -> float | None:
    """Speedup S = Ts / Tp (Ts: baseline median time, Tp: the point's median time)."""
    if ts is None or tp is None or _nan(ts) or _nan(tp) or tp <= 0:
        return None
    return ts / tp


def efficiency(s: float | None, p: int | None) -> float | None:
    """Efficiency E = S / P."""
    if s is None or not p or p <= 0:
        return None
    return s / p


def throughput_mbps(nbytes: int, t: float | None) -> float | None:
    """Throughput in MB/s (MB = 10^6 bytes)."""
    if t is None or _nan(t) or t <= 0:
        return None
    return nbytes / 1e6 / t


def _nan(v: Any) -> bool:
    try:
        return v is None or math.isnan(float(v))
    except (TypeError, ValueError):
        return True


def impl_family(impl: str) -> str:
    """Implementation family, so that e.g. gpu-ttable compares with ttable."""
    return impl.removeprefix("gpu-")


# ------------------------------------------------------------------ table model


def status_cell(row: dict[str, Any] | None) -> tuple[str, str] | None:
    """Cell and footnote of a point that has no value to show (not measured, or failed
    with its reason); None when the point ran. Every table marks such cells this way."""
    if row is None:
        return NA, "not measured"
    if row.get("status") != "ok":
        return FAILED, str(row.get("reason") or "failed")
    return None


@dataclass(frozen=True)
class Measured:
    """A cell value with its interval; ``note`` flags a cell wider than the target.
    ``low``/``high`` None: no interval is known; ``value`` None: nothing was measured,
    ``why`` says why (the comparisons with a study show such cells as n/a)."""

    value: float | None
    low: float | None = None
    high: float | None = None
    note: str | None = None
    why: str = ""


@dataclass
class Table:
    name: str
    title: str
    rows: list[str]
    columns: list[str]
    cells: dict[tuple[str, str], Any]  # float, or a string such as "failed"/"n/a"
    notes: dict[tuple[str, str], str] = field(default_factory=dict)  # cell -> footnote
    digits: int = 3  # significant digits of every number shown (ciphersweep.analysis.render)
    row_header: str = "backend"
    caption: str = ""  # what the table shows and how it was computed (the report)
    # cell -> (low, high) of its interval; shown beside the value when show_intervals
    intervals: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    show_intervals: bool = False

    def value(self, row: str, col: str) -> Any:
        return self.cells.get((row, col))


@dataclass
class Context:
    cfg: dict[str, Any]
    points: Sequence[Point]
    summary: pd.DataFrame
    measurements: pd.DataFrame | None = None

    def __post_init__(self) -> None:
        self.by_point = (
            {r["point"]: r for r in self.summary.to_dict("records")}
            if len(self.summary)
            else {}
        )
        self.columns = _columns(self.points)
        self.row_of = row_labels(self.points)
        self.statistic = stats.statistic_of(self.cfg)
        self.target = stats.target_of(self.cfg)

    def estimate(self, row: dict[str, Any] | None) -> stats.Estimate | None:
        """The campaign's statistic of a point's time, with its interval."""
        return None if row is None else stats.row_estimate(row, self.statistic)

    def rows(self, keep: Callable[[Point], bool] = lambda p: True) -> list[str]:
        out: list[str] = []
        for p in self.points:
            if keep(p) and self.row_of[p.id] not in out:
                out.append(self.row_of[p.id])
        return out

    def grid(
        self,
        name: str,
        title: str,
        value: Callable[[Point, dict[str, Any]], Any],
        keep: Callable[[Point], bool] = lambda p: True,
        digits: int = 3,
        caption: str = "",
    ) -> Table:
        """A rows x sizes table; ``value(point, summary_row)`` gives a cell (None: n/a)."""
        # labels over the rows shown: an impl shared by every row is not repeated
        labels = row_labels([p for p in self.points if keep(p)])
        rows = list(dict.fromkeys(labels[p.id] for p in self.points if keep(p)))
        t = Table(name, title, rows, self.columns, {}, digits=digits, caption=caption)
        for p in self.points:
            if not keep(p):
                continue
            key = (labels[p.id], p.input_name)
            row = self.by_point.get(p.id)
            missing = status_cell(row)
            if missing is not None:
                t.cells[key], t.notes[key] = missing
            else:
                v = value(p, row)
                if isinstance(v, tuple):  # (n/a, reason)
                    t.cells[key] = NA
                    t.notes[key] = v[1]
                elif isinstance(v, Measured):
                    t.cells[key] = float(v.value)
                    t.intervals[key] = (v.low, v.high)
                    if v.note:
                        t.notes[key] = v.note
                elif v is None or _nan(v):
                    t.cells[key] = NA
                else:
                    t.cells[key] = float(v)
        return t


@dataclass
class Builder:
    name: str
    build: Callable[[Context], Table]
    applies: Callable[[dict[str, Any], Sequence[Point]], bool] = lambda cfg, points: (
        True
    )


# ------------------------------------------------------------------ rows and columns


def _columns(points: Sequence[Point]) -> list[str]:
    seen: dict[str, tuple[int, int]] = {}
    for p in points:
        if p.input_name not in seen:
            seen[p.input_name] = (1 if p.input_path else 0, p.size_bytes)
    return sorted(seen, key=lambda n: seen[n])


def _row_key(p: Point) -> tuple[Any, ...]:
    return (
        p.backend,
        p.impl,
        p.mode,
        p.op,
        p.cipher,
        p.ranks,
        p.threads,
        p.gpus,
        p.block_threads,
        p.variant,
        p.streams,
    )


def _n(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def row_labels(points: Sequence[Point]) -> dict[str, str]:
    """Point id -> row label such as ``mpi (16 ranks)``; impl/mode/op are added only
    where the campaign has more than one of them."""
    named = NAMED_BACKENDS
    native = [p for p in points if p.backend not in named]
    vary = {
        "impl": len({impl_family(p.impl) for p in native}) > 1,
        "mode": len({p.mode for p in native}) > 1,
        "op": len({p.op for p in points}) > 1,
        "variant": len({p.variant for p in points}) > 1,
    }
    multi_gpu = len({p.gpus for p in points if p.backend == "cuda"}) > 1
    out: dict[str, str] = {}
    for p in points:
        if p.backend == "seq":
            base = "seq"
        elif p.backend == "omp":
            base = f"omp ({_n(p.threads, 'thread')})"
        elif p.backend == "mpi":
            base = f"mpi ({_n(p.ranks, 'rank')})"
        elif p.backend == "cuda":
            base = (
                f"cuda ({p.block_threads} threads/block"
                + (f", {p.gpus} GPUs" if multi_gpu else "")
                + (f", {_n(p.streams, 'stream')})" if p.streams > 1 else ")")
            )
        elif p.backend == "command":
            base = f"{p.impl} {p.cipher}"
        else:
            base = f"{p.backend} {p.cipher}"
        if p.key_bits is not None:
            base += f" ({p.key_bits}-bit key)"
        extra = []
        if p.backend not in named:
            if vary["impl"]:
                extra.append(p.impl)
            if vary["mode"]:
                extra.append(p.mode)
        if vary["op"]:
            extra.append(p.op)
        if vary["variant"]:
            extra.append(p.variant)
        out[p.id] = base + (f" [{' '.join(extra)}]" if extra else "")
    return out


# ------------------------------------------------------------------ the built-in tables


def baseline_of(ctx: Context) -> dict[str, str]:
    """Point id -> id of its baseline point: same mode, op and input, and the impl that
    ``baseline.impl`` names (default: the point's own impl family)."""
    bb = ctx.cfg.get("baseline", {}).get("backend", "seq")
    named = ctx.cfg.get("baseline", {}).get("impl")

    def family(p: Point) -> str:
        return named or impl_family(p.impl)

    base: dict[tuple[str, ...], str] = {}
    for p in ctx.points:
        if p.backend == bb and (named is None or p.impl == named):
            base[(impl_family(p.impl), p.mode, p.op, p.input_name, p.variant)] = p.id
    out = {}
    for p in ctx.points:
        if p.backend == bb and (named is None or p.impl == named):
            continue
        b = base.get((family(p), p.mode, p.op, p.input_name, p.variant))
        if b is None and p.backend in NAMED_BACKENDS:
            continue
        if b is not None:
            out[p.id] = b
    return out


def _t(row: dict[str, Any]) -> float | None:
    v = row.get("t_total_median")
    return None if _nan(v) else float(v)


def time_cell(ctx: Context, r: dict[str, Any]) -> Measured | None:
    """The point's time (campaign statistic) with its interval, flagged when wide."""
    e = ctx.estimate(r)
    if e is None:
        return None
    note = stats.wide_note(e, ctx.target, ctx.statistic) if e.wide(ctx.target) else None
    return Measured(e.value, e.low, e.high, note)


def build_time(ctx: Context) -> Table:
    return ctx.grid(
        "time",
        f"Execution time (s), {ctx.statistic} over repetitions",
        lambda p, r: time_cell(ctx, r),
        caption="Wall time of the timed region (t_total, seconds) of each backend and "
        f"degree of parallelism (rows) for each data size (columns): the {ctx.statistic} "
        "over the verified timed repetitions, warm-ups excluded. A cell whose 95% "
        f"confidence interval is wider than ±{100 * ctx.target:g}% has a footnote; the "
        "interval and the spread (min, max, quartiles) of every cell are in summary.csv.",
    )


def ratio_cell(
    ctx: Context, base_row: dict[str, Any], r: dict[str, Any], scale: float = 1.0
) -> Measured | None:
    """Ts / (scale Tp) with the interval from both times' intervals (ciphersweep.core.stats)."""
    num, den = ctx.estimate(base_row), ctx.estimate(r)
    if num is None or den is None or speedup(num.value, den.value) is None:
        return None
    q = stats.ratio(num, den, scale)
    if q is None:
        return None
    wide = stats.ratio_wide(num, den, ctx.target)
    note = stats.ratio_note(num, den, q, ctx.target) if wide else None
    return Measured(q.value, q.low, q.high, note)


def _baseline_row(
    ctx: Context, base: dict[str, str], p: Point
) -> dict[str, Any] | tuple[str, str]:
    b = base.get(p.id)
    if b is None:
        bcfg = ctx.cfg.get("baseline", {})
        return (
            NA,
            (
                f"no {bcfg.get('backend', 'seq')} baseline with impl "
                f"{bcfg.get('impl') or p.impl}, mode {p.mode}"
            ),
        )
    brow = ctx.by_point.get(b)
    if brow is None or brow.get("status") != "ok":
        return (NA, f"baseline {b} failed")
    return brow


def _speedup_cell(
    ctx: Context, base: dict[str, str], p: Point, r: dict[str, Any], scale: float = 1.0
) -> Any:
    brow = _baseline_row(ctx, base, p)
    if isinstance(brow, tuple):
        return brow
    return ratio_cell(ctx, brow, r, scale)


def _is_baseline(ctx: Context) -> Callable[[Point], bool]:
    bb = ctx.cfg.get("baseline", {}).get("backend", "seq")
    named = ctx.cfg.get("baseline", {}).get("impl")
    return lambda p: (
        p.backend not in NAMED_BACKENDS
        and (p.backend != bb or (named is not None and p.impl != named))
    )


def build_speedup(ctx: Context) -> Table:
    base = baseline_of(ctx)
    t = ctx.grid(
        "speedup",
        "Speedup Ts/Tp vs the sequential kernel (same impl, mode, op, size)",
        lambda p, r: _speedup_cell(ctx, base, p, r),
        keep=_is_baseline(ctx),
        caption=f"Speedup S = Ts / Tp: the {ctx.statistic} time of the baseline kernel "
        f"({ctx.cfg.get('baseline', {}).get('backend', 'seq')}, same implementation, "
        f"mode, operation and data size) divided by the {ctx.statistic} time of the "
        "row's kernel. Above 1 the row is faster than the baseline. [low..high] is "
        "the interval Ts_low / Tp_high .. Ts_high / Tp_low from the two 95% intervals "
        "(coverage at least 90%); a footnote flags a cell whose times are wider than "
        f"the ±{100 * ctx.target:g}% target.",
    )
    t.show_intervals = True
    return t


def build_efficiency(ctx: Context) -> Table:
    base = baseline_of(ctx)

    def cell(p: Point, r: dict[str, Any]) -> Any:
        if not p.p or p.p <= 0:
            return None
        return _speedup_cell(ctx, base, p, r, scale=float(p.p))

    keep = _is_baseline(ctx)
    t = ctx.grid(
        "efficiency",
        "Efficiency = speedup / P",
        cell,
        keep=lambda p: keep(p) and p.backend != "cuda",
        caption="Efficiency E = S / P: the speedup divided by the number of processing "
        "elements P = MPI ranks x OpenMP threads; 1 is ideal scaling, [low..high] its "
        "interval as for the speedup. GPU rows are left out (P is not meaningful there).",
    )
    t.show_intervals = True
    return t


def throughput_cell(ctx: Context, p: Point, r: dict[str, Any]) -> Measured | None:
    t = time_cell(ctx, r)
    v = throughput_mbps(p.size_bytes, t.value if t else None)
    if t is None or v is None:
        return None
    hi = throughput_mbps(p.size_bytes, t.low) or math.inf
    return Measured(v, throughput_mbps(p.size_bytes, t.high) or 0.0, hi, t.note)


def build_throughput(ctx: Context) -> Table:
    return ctx.grid(
        "throughput",
        f"Throughput (MB/s, MB = 10^6 bytes), from the {ctx.statistic} time",
        lambda p, r: throughput_cell(ctx, p, r),
        caption=f"Throughput = data size / {ctx.statistic} time, in MB/s with "
        "MB = 10^6 bytes, for each backend and data size.",
    )


def build_cuda_copy(ctx: Context) -> Table:
    """Host-device copy table like the reference study: H2D, kernel, D2H, total."""
    cuda = [p for p in ctx.points if p.backend == "cuda"]
    labels = row_labels(ctx.points)
    several = len({labels[p.id] for p in cuda}) > 1
    parts = [
        ("copy host-device", "t_h2d_median"),
        ("copy device-host", "t_d2h_median"),
        ("kernel", "t_compute_median"),
        ("total", "t_total_median"),
    ]
    rows: list[str] = []
    t = Table(
        "cuda_copy",
        "CUDA host-device copies and kernel time (s), medians",
        rows,
        ctx.columns,
        {},
        row_header="part",
        caption="Where the time of a CUDA run goes: host-to-device copy, kernel, "
        "device-to-host copy and the total timed region, each the median over the "
        "repetitions in seconds (the reference study's copy-overhead table).",
    )
    for p in cuda:
        r = ctx.by_point.get(p.id)
        for label, col in parts:
            row = f"{labels[p.id]}: {label}" if several else label
            if row not in rows:
                rows.append(row)
            key = (row, p.input_name)
            if r is None:
                t.cells[key] = NA
            elif r.get("status") != "ok":
                t.cells[key] = FAILED
                t.notes[key] = str(r.get("reason") or "failed")
            else:
                v = r.get(col)
                t.cells[key] = NA if _nan(v) else float(v)
    return t


def _has(backend: str) -> Callable[[dict[str, Any], Sequence[Point]], bool]:
    return lambda cfg, points: any(p.backend == backend for p in points)


def _has_parallel(cfg: dict[str, Any], points: Sequence[Point]) -> bool:
    bb = cfg.get("baseline", {}).get("backend", "seq")
    return any(p.backend == bb for p in points) and any(
        p.backend != bb and p.backend not in NAMED_BACKENDS for p in points
    )


def _has_efficiency(cfg: dict[str, Any], points: Sequence[Point]) -> bool:
    return _has_parallel(cfg, points) and any(x.backend in ("omp", "mpi") for x in points)


BUILDERS = [
    Builder("time", build_time),
    Builder("speedup", build_speedup, _has_parallel),
    Builder("efficiency", build_efficiency, _has_efficiency),
    Builder("throughput", build_throughput),
    Builder("cuda_copy", build_cuda_copy, _has("cuda")),
]
"""The generic tables; ciphersweep.analysis.tables.registry lists them with the rest."""


def plot_names(cfg: dict[str, Any], points: Sequence[Point]) -> list[str]:
    """Plots of a campaign (ciphersweep.analysis.plots draws them)."""
    names = ["time_vs_size", "throughput"]
    if len({p.variant for p in points}) > 1:
        names.insert(1, "time_vs_variant")
    if _has_parallel(cfg, points):
        names.insert(1, "speedup_vs_p")
    if any(p.backend == "cuda" for p in points):
        names.append("cuda_copy")
    if cfg.get("platform", {}).get("energy", "auto") != "none":
        names.append("energy_per_mb")
    return names
