"""Plots that answer the study's questions (PNG for the report, PDF and SVG beside).

* ``time_vs_size``: median time vs data size (log-log), one line per backend / P,
  error bars from the confidence interval of the median (or the quartiles where the
  summary has no interval).
* ``speedup_vs_p``: speedup vs P, one panel per parallel CPU backend, one line per data
  size (sequential colour map, and a marker and line style of its own), integer ticks,
  the ideal line S = P, oversubscribed points ringed; GPU speedups in a panel of their
  own against the data size (P means nothing there).
* ``throughput``: MB/s vs data size per backend / P on a log axis with 1-2-5 ticks.
* ``cuda_copy``: where a CUDA run's time goes, a stacked bar per data size.
* ``energy_per_mb``: J/MB per backend / P and data size, where energy was measured.

Every plotter takes a :class:`~ciphersweep.analysis.tables.model.Context` and returns a matplotlib
Figure (object API, no global pyplot state). Values and intervals come from
:mod:`ciphersweep.core.stats` through the tables' cells (the campaign's statistic); a point
whose interval is wider than the precision target is drawn hollow, and the plot says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ciphersweep.analysis.tables.model import (
    Context,
    Measured,
    _t,
    baseline_of,
    plot_names,
    ratio_cell,
    row_labels,
    throughput_cell,
    time_cell,
)
from ciphersweep.core.atomic import replacing
from ciphersweep.plan.sweep import Point

FORMATS = ("png", "pdf", "svg")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")
LINESTYLES = ("-", "--", "-.", ":")
OVERSUBSCRIBED = "#d62728"

# name -> (title, caption): the report shows them under each plot
CAPTIONS: dict[str, tuple[str, str]] = {
    "time_vs_size": (
        "Execution time vs data size",
        (
            "Median time of the timed region (t_total) against the data size, both axes "
            "logarithmic, one line per backend and degree of parallelism (the mean with "
            "statistic: mean). Error bars: the 95 % confidence interval; hollow markers: "
            "an interval wider than the precision target (or fewer than 6 repetitions)."
        ),
    ),
    "speedup_vs_p": (
        "Speedup vs P",
        (
            "Speedup Ts/Tp against the sequential kernel (same implementation, mode, "
            "operation and size) for P = MPI ranks x OpenMP threads, one panel per "
            "backend, one line per data size (darker = larger). The dashed line is ideal "
            "scaling S = P; error bars span Ts_low/Tp_high .. Ts_high/Tp_low from the "
            "95 % confidence intervals of both times; hollow markers: a time behind the "
            "point is wider than the precision target; ringed points ran oversubscribed "
            "(more ranks than cores). GPU speedups are shown against the data size in a "
            "panel of their own."
        ),
    ),
    "time_vs_variant": (
        "Time vs compiler flags",
        (
            "Median time at the largest data size for each build variant (the compiler "
            "flags of build.variants), one line per kernel and implementation, one panel "
            "per operation; error bars as in the time plot."
        ),
    ),
    "throughput": (
        "Throughput vs data size",
        (
            "Data size / median time in MB/s (MB = 10^6 bytes), one line per backend and "
            "degree of parallelism, on a logarithmic axis; hollow markers where the time's "
            "95 % confidence interval is wider than the precision target."
        ),
    ),
    "cuda_copy": (
        "CUDA time breakdown",
        (
            "Share of the timed region spent copying host to device, in the kernel and "
            "copying device to host, per data size (medians over the repetitions); the "
            "total median time is written above each bar."
        ),
    ),
    "energy_per_mb": (
        "Energy per MB",
        (
            "Median energy of the timed region divided by the data size (J/MB, MB = 10^6 "
            "bytes) per backend and degree of parallelism, where a source measured it "
            "(cells without a source are n/a in the energy table, never 0)."
        ),
    ),
}


# ------------------------------------------------------------------ helpers


def _figure(ncols: int = 1, width: float = 7.0) -> Any:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(max(width, 4.2 * ncols), 4.6), dpi=110, layout="constrained")
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, axes


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def interval(row: dict[str, Any], col: str = "t_total") -> tuple[float, float] | None:
    """(low, high) of a point's median: the confidence interval where the summary has
    one (``<col>_ci_low``/``_ci_high`` or ``ci_low``/``ci_high``), else the quartiles."""
    for lo_key, hi_key in (
        (f"{col}_ci_low", f"{col}_ci_high"),
        ("ci_low", "ci_high"),
        (f"{col}_q1", f"{col}_q3"),
    ):
        lo, hi = _num(row.get(lo_key)), _num(row.get(hi_key))
        if lo is not None and hi is not None:
            return lo, hi
    return None


def _yerr(values: Sequence[float], bounds: Sequence[tuple[float, float] | None]) -> Any:
    """matplotlib's asymmetric yerr from (low, high) bounds (0 where unknown)."""
    lows = [max(0.0, v - b[0]) if b else 0.0 for v, b in zip(values, bounds)]
    highs = [max(0.0, b[1] - v) if b else 0.0 for v, b in zip(values, bounds)]
    return [lows, highs]


def hollow(ax: Any, xs: Sequence[float], cells: Sequence[Measured], style: Any) -> bool:
    """Redraw the cells wider than the target with a hollow marker; True if any."""
    wide = [(x, c.value) for x, c in zip(xs, cells) if c.note]
    if wide:
        ax.plot(
            [x for x, _ in wide],
            [y for _, y in wide],
            linestyle="none",
            marker=style.get("marker", "o"),
            markersize=9,
            markerfacecolor="white",
            markeredgecolor=style.get("color"),
            zorder=4,
        )
    return bool(wide)


def _flag_note(fig: Any, any_wide: bool, ctx: Context) -> None:
    if any_wide:
        fig.text(
            0.01,
            0.005,
            f"hollow: 95% interval wider than ±{100 * ctx.target:g}% "
            "(or too few repetitions)",
            fontsize="small",
        )


def _measured_bounds(cells: Sequence[Measured]) -> list[tuple[float, float]]:
    return [(c.low, c.high) for c in cells]


def _ok(row: dict[str, Any] | None) -> bool:
    return row is not None and row.get("status") == "ok"


def _truthy(v: Any) -> bool:
    return str(v).strip().lower() in ("true", "1", "1.0", "yes")


def _series(
    ctx: Context, points: Sequence[Point] | None = None
) -> dict[str, list[tuple[Point, dict[str, Any]]]]:
    """Row label -> the label's measured points, by data size (labels made over
    ``points``, default all the campaign's)."""
    points = ctx.points if points is None else points
    labels = row_labels(points)
    out: dict[str, list[tuple[Point, dict[str, Any]]]] = {}
    for p in points:
        r = ctx.by_point.get(p.id)
        if _ok(r):
            out.setdefault(labels[p.id], []).append((p, r))  # type: ignore[arg-type]
    for pts in out.values():
        pts.sort(key=lambda x: x[0].size_bytes)
    return out


def _style(i: int) -> dict[str, Any]:
    """Marker, line style and colour of the i-th series (distinct for 48 series)."""
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return {
        "color": cmap(i % 10),
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": LINESTYLES[(i // 10) % len(LINESTYLES)],
    }


def _size_styles(sizes: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Data size -> style: sequential colour map (darker = larger), marker, line style."""
    from matplotlib import colormaps

    cmap = colormaps["viridis"]
    n = max(1, len(sizes) - 1)
    return {
        s: {
            "color": cmap(0.85 - 0.85 * i / n),
            "marker": MARKERS[i % len(MARKERS)],
            "linestyle": LINESTYLES[i % len(LINESTYLES)],
        }
        for i, s in enumerate(sizes)
    }


def _log_ticks(ax: Any, axis: str = "y") -> None:
    """Readable log ticks: 1-2-5 per decade, plain numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())


def _size_axis(ax: Any, sizes: Sequence[str]) -> None:
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels(sizes, rotation=30 if len(sizes) > 5 else 0)
    ax.set_xlabel("data size")


def _legend(ax: Any, **kw: Any) -> None:
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", **kw)


# ------------------------------------------------------------------ time, throughput


def _variants(points: Sequence[Point]) -> list[str]:
    """The campaign's build variants in config order ([""]: the one default build)."""
    out: list[str] = []
    for p in points:
        if p.variant not in out:
            out.append(p.variant)
    return out


def plot_time(ctx: Context) -> Any:
    """Time vs size; a campaign with build variants gets one panel per variant."""
    variants = _variants(ctx.points)
    fig, axes = _figure(ncols=len(variants))
    any_wide = False
    for ax, variant in zip(axes, variants):
        pts_v = [p for p in ctx.points if p.variant == variant]
        for i, (label, pts) in enumerate(_series(ctx, pts_v).items()):
            got = [(p.size_bytes, time_cell(ctx, r)) for p, r in pts]
            xs = [x for x, c in got if c is not None]
            cells = [c for _, c in got if c is not None]
            ys = [c.value for c in cells]
            bounds = _measured_bounds(cells)
            ax.errorbar(
                xs, ys, yerr=_yerr(ys, bounds), label=label, capsize=3, **_style(i)
            )
            any_wide |= hollow(ax, xs, cells, _style(i))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("data size (bytes)")
        ax.set_ylabel(f"time (s, {ctx.statistic})")
        title = CAPTIONS["time_vs_size"][0]
        ax.set_title(f"{title} [{variant}]" if variant else title)
        ax.grid(True, which="major", alpha=0.3)
        _legend(ax)
    _flag_note(fig, any_wide, ctx)
    if len(variants) > 1:  # one y range, so that panels compare at a glance
        lows, highs = zip(*(ax.get_ylim() for ax in axes))
        for ax in axes:
            ax.set_ylim(min(lows), max(highs))
    return fig


def plot_variants(ctx: Context) -> Any:
    """Time at the largest data size against the build variants, one line per row of
    the generic tables (without the variant), one panel per operation."""
    variants = _variants(ctx.points)
    largest = max(ctx.points, key=lambda p: p.size_bytes).input_name
    at = [p for p in ctx.points if p.input_name == largest]
    ops = sorted({p.op for p in at}, reverse=True)  # encrypt before decrypt
    fig, axes = _figure(ncols=len(ops))
    any_wide = False
    for ax, op in zip(axes, ops):
        base = [p for p in at if p.op == op and p.variant == variants[0]]
        labels = row_labels(base)
        for i, b in enumerate(base):
            xs, cells = [], []
            for j, v in enumerate(variants):
                p = next(
                    (
                        q
                        for q in at
                        if q.op == op and q.variant == v and _same_but_variant(q, b)
                    ),
                    None,
                )
                r = ctx.by_point.get(p.id) if p else None
                c = time_cell(ctx, r) if _ok(r) else None
                if c is not None:
                    xs.append(j)
                    cells.append(c)
            ys = [c.value for c in cells]
            bounds = _measured_bounds(cells)
            any_wide |= hollow(ax, xs, cells, _style(i))
            ax.errorbar(
                xs,
                ys,
                yerr=_yerr(ys, bounds),
                label=labels[b.id],
                capsize=3,
                **_style(i),
            )
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels(variants, rotation=30)
        ax.set_xlabel("build variant (compiler flags)")
        ax.set_yscale("log")
        ax.set_ylabel(f"time at {largest} (s, {ctx.statistic})")
        ax.set_title(f"{CAPTIONS['time_vs_variant'][0]}, {op}")
        ax.grid(True, which="major", alpha=0.3)
        _legend(ax)
    _flag_note(fig, any_wide, ctx)
    return fig


def _same_but_variant(a: Point, b: Point) -> bool:
    return a.id.removesuffix(f"-v{a.variant}") == b.id.removesuffix(f"-v{b.variant}")


def plot_throughput(ctx: Context) -> Any:
    fig, (ax,) = _figure()
    sizes = list(ctx.columns)
    any_wide = False
    for i, (label, pts) in enumerate(_series(ctx).items()):
        xs, cells = [], []
        for p, r in pts:
            c = throughput_cell(ctx, p, r)
            if c is not None:
                xs.append(sizes.index(p.input_name))
                cells.append(c)
        ax.plot(xs, [c.value for c in cells], label=label, **_style(i))
        any_wide |= hollow(ax, xs, cells, _style(i))
    _flag_note(fig, any_wide, ctx)
    ax.set_yscale("log")
    _log_ticks(ax)
    _size_axis(ax, sizes)
    ax.set_ylabel("throughput (MB/s)")
    ax.set_title(CAPTIONS["throughput"][0])
    ax.grid(True, which="major", alpha=0.3)
    _legend(ax)
    return fig


# ------------------------------------------------------------------ speedup


def speedup_points(
    ctx: Context,
) -> dict[str, list[tuple[Point, float, tuple[float, float] | None, bool, bool]]]:
    """Backend -> (point, speedup, (low, high), oversubscribed, wide) of every measured
    point with a measured baseline; the interval and the flag are the speedup table's
    (ciphersweep.core.stats)."""
    base = baseline_of(ctx)
    out: dict[str, list] = {}
    for p in ctx.points:
        r, b = ctx.by_point.get(p.id), ctx.by_point.get(base.get(p.id, ""))
        if not (_ok(r) and _ok(b)):
            continue
        c = ratio_cell(ctx, b, r)  # type: ignore[arg-type]
        if c is None:
            continue
        over = _truthy(r.get("oversubscribed"))  # type: ignore[union-attr]
        out.setdefault(p.backend, []).append(
            (p, c.value, (c.low, c.high), over, bool(c.note))
        )
    return out


def _speedup_panel(ax: Any, backend: str, pts: list, styles: dict) -> None:
    from matplotlib.ticker import MaxNLocator

    by_size: dict[str, list] = {}
    for item in pts:
        by_size.setdefault(item[0].input_name, []).append(item)
    ps: set[int] = set()
    for size, items in by_size.items():
        items.sort(key=lambda x: x[0].p)
        xs = [x[0].p for x in items]
        ys = [x[1] for x in items]
        ps.update(xs)
        ax.errorbar(
            xs,
            ys,
            yerr=_yerr(ys, [x[2] for x in items]),
            label=size,
            capsize=3,
            **styles[size],
        )
        wide = [x for x in items if x[4]]
        if wide:
            ax.plot(
                [x[0].p for x in wide],
                [x[1] for x in wide],
                linestyle="none",
                marker=styles[size]["marker"],
                markersize=9,
                markerfacecolor="white",
                markeredgecolor=styles[size]["color"],
                zorder=4,
            )
        over = [(x[0].p, x[1]) for x in items if x[3]]
        if over:
            ax.scatter(
                [o[0] for o in over],
                [o[1] for o in over],
                s=160,
                facecolors="none",
                edgecolors=OVERSUBSCRIBED,
                linewidths=1.6,
                zorder=5,
                label="oversubscribed",
            )
    top = max(ps | {1})
    ax.plot([1, top], [1, top], "k--", linewidth=1, label="ideal (S = P)")
    if len(ps) <= 12:
        ax.set_xticks(sorted(ps | {1}))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("P (ranks x threads)")
    ax.set_ylabel("speedup Ts/Tp")
    ax.set_title(backend)
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), fontsize="small", title="data size")


def _gpu_panel(ax: Any, pts: list, sizes: Sequence[str]) -> None:
    labels = row_labels([x[0] for x in pts])
    series: dict[str, list] = {}
    for item in pts:
        series.setdefault(labels[item[0].id], []).append(item)
    for i, (label, items) in enumerate(series.items()):
        items.sort(key=lambda x: x[0].size_bytes)
        xs = [sizes.index(x[0].input_name) for x in items]
        ys = [x[1] for x in items]
        ax.errorbar(
            xs,
            ys,
            yerr=_yerr(ys, [x[2] for x in items]),
            label=label,
            capsize=3,
            **_style(i),
        )
    ax.set_yscale("log")
    _log_ticks(ax)
    _size_axis(ax, sizes)
    ax.axhline(1.0, color="k", linestyle="--", linewidth=1)
    ax.set_ylabel("speedup Ts/Tp")
    ax.set_title("GPU (vs data size)")
    ax.grid(True, which="major", alpha=0.3)
    _legend(ax)


def plot_speedup(ctx: Context) -> Any:
    groups = speedup_points(ctx)
    cpu = [b for b in ("omp", "mpi") if b in groups] + sorted(
        b for b in groups if b not in ("omp", "mpi", "cuda", "openssl")
    )
    panels = cpu + (["cuda"] if "cuda" in groups else [])
    fig, axes = _figure(max(1, len(panels)))
    styles = _size_styles(list(ctx.columns))
    for ax, backend in zip(axes, panels):
        if backend == "cuda":
            _gpu_panel(ax, groups[backend], list(ctx.columns))
        else:
            _speedup_panel(ax, backend, groups[backend], styles)
    if not panels:
        axes[0].text(0.5, 0.5, "no speedup measured", ha="center", va="center")
        axes[0].set_axis_off()
    fig.suptitle(CAPTIONS["speedup_vs_p"][0])
    _flag_note(fig, any(x[4] for pts in groups.values() for x in pts), ctx)
    return fig


# ------------------------------------------------------------------ CUDA, energy


CUDA_PARTS = (
    ("copy host-device", "t_h2d_median", "#4c72b0"),
    ("kernel", "t_compute_median", "#55a868"),
    ("copy device-host", "t_d2h_median", "#c44e52"),
)


def plot_cuda_copy(ctx: Context) -> Any:
    fig, (ax,) = _figure()
    cuda = [
        (p, ctx.by_point[p.id])
        for p in ctx.points
        if p.backend == "cuda" and _ok(ctx.by_point.get(p.id))
    ]
    cuda.sort(key=lambda x: x[0].size_bytes)
    xs = list(range(len(cuda)))
    bottoms = [0.0] * len(cuda)
    for label, col, color in CUDA_PARTS:
        shares = []
        for p, r in cuda:
            total, part = _t(r), _num(r.get(col))
            shares.append(100 * part / total if total and part is not None else 0.0)
        ax.bar(xs, shares, bottom=bottoms, label=label, color=color)
        bottoms = [b + s for b, s in zip(bottoms, shares)]
    several = len({row_labels(ctx.points)[p.id] for p, _ in cuda}) > 1
    names = [
        p.input_name + (f"\n{row_labels(ctx.points)[p.id]}" if several else "")
        for p, _ in cuda
    ]
    for x, (p, r) in zip(xs, cuda):
        ax.annotate(
            f"{_t(r):.3g} s",
            (x, 100),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            fontsize="small",
        )
    ax.set_xticks(xs)
    ax.set_xticklabels(names)
    ax.set_xlabel("data size")
    ax.set_ylim(0, 112)
    ax.set_ylabel("share of the timed region (%)")
    ax.set_title(CAPTIONS["cuda_copy"][0])
    if not cuda:
        ax.text(0.5, 0.5, "no CUDA point measured", ha="center", va="center")
    _legend(ax, loc="lower right")
    return fig


def plot_energy(ctx: Context) -> Any:
    fig, (ax,) = _figure()
    sizes = list(ctx.columns)
    drawn = 0
    for i, (label, pts) in enumerate(_series(ctx).items()):
        xs, ys = [], []
        for p, r in pts:
            j = _num(r.get("joules_median"))
            if j is not None and j > 0:
                xs.append(sizes.index(p.input_name))
                ys.append(j / (p.size_bytes / 1e6))
        if xs:
            ax.plot(xs, ys, label=label, **_style(i))
            drawn += 1
    _size_axis(ax, sizes)
    ax.set_ylabel("energy (J/MB)")
    ax.set_title(CAPTIONS["energy_per_mb"][0])
    if drawn:
        ax.set_yscale("log")
        _log_ticks(ax)
        ax.grid(True, which="major", alpha=0.3)
        _legend(ax)
    else:
        ax.text(
            0.5,
            0.5,
            "no energy measured (reasons in the energy table's notes)",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    return fig


PLOTTERS: dict[str, Callable[[Context], Any]] = {
    "time_vs_size": plot_time,
    "time_vs_variant": plot_variants,
    "speedup_vs_p": plot_speedup,
    "throughput": plot_throughput,
    "cuda_copy": plot_cuda_copy,
    "energy_per_mb": plot_energy,
}


def write_plots(
    cfg: dict[str, Any],
    points: Sequence[Point],
    summary_csv: str,
    outdir: str,
    log: str | None = None,
) -> list[Path]:
    """The ``plots`` rule: every plot of the campaign as PNG, PDF and SVG."""
    import pandas as pd

    ctx = Context(cfg, points, pd.read_csv(summary_csv))
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    names = [
        (name, out / f"{name}.{ext}") for name in plot_names(cfg, points) for ext in FORMATS
    ]
    written = [path for _, path in names]
    with replacing(written) as tmps:  # every plot file or none
        for (name, path), tmp in zip(names, tmps):
            fig = PLOTTERS[name](ctx)
            fig.savefig(tmp, metadata={"Date": None} if path.suffix == ".svg" else None)
    if log:
        Path(log).write_text("\n".join(str(p) for p in written) + "\n")
    return written
