"""The generic tables every campaign has (where they apply): time, speedup,
efficiency, throughput and the CUDA copy table, rows = backend / P, columns = data
size. Their cells come from :mod:`ciphersweep.analysis.tables.formulas`;
:data:`ciphersweep.analysis.tables.registry.BUILDERS` lists them with the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ciphersweep.analysis.tables import formulas
from ciphersweep.analysis.tables.model import (
    NAMED_BACKENDS,
    Builder,
    CellValue,
    Context,
    Table,
    compared_with_baseline,
    mark_oversubscribed,
    row_labels,
    status_cell,
)
from ciphersweep.core import wording
from ciphersweep.plan.sweep import Point


def build_time(ctx: Context) -> Table:
    b = ctx.basis()
    return ctx.grid(
        "time",
        f"Execution time (s), {b.title()}",
        lambda p, r: formulas.time_cell(ctx, r),
        caption="Wall time of the timed region (t_total, seconds) of each backend and "
        f"degree of parallelism (rows) for each data size (columns): the {ctx.statistic} "
        "over the verified timed repetitions, warm-ups excluded. A cell whose "
        f"confidence interval is wider than ±{100 * ctx.target:g}% has a footnote; the "
        "interval and the spread (min, max, quartiles) of every cell are in summary.csv. "
        + b.sentence(),
    )


def build_speedup(ctx: Context) -> Table:
    b = ctx.basis()
    t = ctx.grid(
        "speedup",
        f"Speedup Ts/Tp vs the sequential kernel (same impl, mode, op, size), "
        f"{b.title()}",
        lambda p, r: formulas.speedup_cell(ctx, p, r),
        keep=compared_with_baseline(ctx.cfg),
        caption=f"Speedup S = Ts / Tp: the {ctx.statistic} time of the baseline kernel "
        f"({ctx.cfg.get('baseline', {}).get('backend', 'seq')}, same implementation, "
        f"mode, operation and data size) divided by the {ctx.statistic} time of the "
        "row's kernel. Above 1 the row is faster than the baseline. [low..high] is "
        "the interval Ts_low / Tp_high .. Ts_high / Tp_low from the two times' "
        f"intervals (coverage at least {ratio_level(b)}); a footnote flags a cell whose "
        f"times are wider than the ±{100 * ctx.target:g}% target. " + b.sentence(),
    )
    t.show_intervals = True
    return t


def build_efficiency(ctx: Context) -> Table:
    def cell(p: Point, r: dict[str, Any]) -> CellValue:
        if not p.p or p.p <= 0:
            return None
        return formulas.speedup_cell(ctx, p, r, scale=float(p.p))

    keep = compared_with_baseline(ctx.cfg)
    b = ctx.basis()
    t = ctx.grid(
        "efficiency",
        f"Efficiency = speedup / P, {b.title()}",
        cell,
        keep=lambda p: keep(p) and p.backend != "cuda",
        caption="Efficiency E = S / P: the speedup divided by the number of processing "
        "elements P = MPI ranks x OpenMP threads; 1 is ideal scaling, [low..high] its "
        "interval as for the speedup (coverage at least "
        f"{ratio_level(b)}). GPU rows are left out (P is not meaningful there). "
        + b.sentence(),
    )
    t.show_intervals = True
    return t


def build_throughput(ctx: Context) -> Table:
    b = ctx.basis()
    return ctx.grid(
        "throughput",
        f"Throughput (MB/s, MB = 10^6 bytes), from the time's {b.title()}",
        lambda p, r: formulas.throughput_cell(ctx, p, r),
        caption=f"Throughput = data size / {ctx.statistic} time, in MB/s with "
        "MB = 10^6 bytes, for each backend and data size. " + b.sentence(),
    )


def ratio_level(b: wording.Basis) -> str:
    """The least coverage of a ratio's interval: the product of its two times' levels
    (:func:`ciphersweep.core.stats.ratio`)."""
    if b.levels is None:
        return "unknown (no interval)"
    return wording.level_range((b.levels[0] ** 2, b.levels[1] ** 2))


CUDA_PARTS = (
    ("copy host-device", "t_h2d"),
    ("copy device-host", "t_d2h"),
    ("kernel", "t_compute"),
    (formulas.UNTIMED, None),  # t_total less the three above
    ("total", "t_total"),
)


def build_cuda_copy(ctx: Context) -> Table:
    """Host-device copy table like the reference study: H2D, kernel, D2H, what the
    kernel's timers leave out, total, each the campaign's statistic."""
    cuda = [p for p in ctx.points if p.backend == "cuda"]
    labels = row_labels(ctx.points, ctx.ran)
    several = len({labels[p.id] for p in cuda}) > 1
    rows: list[str] = []
    b = ctx.basis(points=cuda)
    t = Table(
        "cuda_copy",
        f"CUDA host-device copies and kernel time (s), {b.title(interval=False)}",
        rows,
        ctx.columns,
        {},
        row_header="part",
        caption="Where the time of a CUDA run goes: host-to-device copy, kernel, "
        "device-to-host copy, the rest of the timed region the kernel's own timers "
        "leave out (launches, synchronisation: the total less the three) and the "
        f"total timed region, each the {ctx.statistic} over the repetitions in seconds "
        "(the reference study's copy-overhead table). " + b.sentence(interval=False),
    )
    for p in cuda:
        r = ctx.by_point.get(p.id)
        for label, col in CUDA_PARTS:
            row = f"{labels[p.id]}: {label}" if several else label
            if row not in rows:
                rows.append(row)
            key = (row, p.input_name)
            missing = status_cell(r)
            if missing is not None:
                t.cells[key], t.notes[key] = missing
            else:
                assert r is not None
                t.put(
                    key,
                    r.get(f"{col}_{ctx.statistic}")
                    if col
                    else formulas.untimed_part(r, ctx.statistic),
                )
            mark_oversubscribed(t, key, p, r)
    return t


def has_backend(backend: str) -> Callable[[dict[str, Any], Sequence[Point]], bool]:
    return lambda cfg, points: any(p.backend == backend for p in points)


def has_parallel(cfg: dict[str, Any], points: Sequence[Point]) -> bool:
    """Whether a campaign has a baseline and something to compare with it."""
    bb = cfg.get("baseline", {}).get("backend", "seq")
    return any(p.backend == bb for p in points) and any(
        p.backend != bb and p.backend not in NAMED_BACKENDS for p in points
    )


def _has_efficiency(cfg: dict[str, Any], points: Sequence[Point]) -> bool:
    return has_parallel(cfg, points) and any(
        x.backend in ("omp", "mpi") for x in points
    )


BUILDERS = [
    Builder("time", build_time),
    Builder("speedup", build_speedup, has_parallel),
    Builder("efficiency", build_efficiency, _has_efficiency),
    Builder("throughput", build_throughput),
    Builder("cuda_copy", build_cuda_copy, has_backend("cuda")),
]
"""The generic tables; ciphersweep.analysis.tables.registry lists them with the rest."""
