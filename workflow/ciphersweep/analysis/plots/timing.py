"""The time and throughput plots: time vs data size (one panel per build variant),
time vs build variant at the largest size, throughput vs data size. Values and
intervals are the tables' cells (:mod:`ciphersweep.analysis.tables.formulas`, the
campaign's statistic)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ciphersweep.analysis.plots import style
from ciphersweep.analysis.plots.catalog import CAPTIONS
from ciphersweep.analysis.plots.titles import title
from ciphersweep.analysis.tables import formulas
from ciphersweep.analysis.tables.model import Context, row_labels
from ciphersweep.plan.sweep import Point


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
    fig, axes = style.figure(ncols=len(variants))
    any_wide = False
    drawn = []  # the panels with a measured point
    for ax, variant in zip(axes, variants):
        pts_v = [p for p in ctx.points if p.variant == variant]
        lines = style.series(ctx, pts_v)
        for i, (label, pts) in enumerate(lines.items()):
            got = [(p.size_bytes, formulas.time_cell(ctx, r)) for p, r in pts]
            xs = [x for x, c in got if c is not None]
            cells = [c for _, c in got if c is not None]
            ys = [c.value for c in cells]
            bounds = style.measured_bounds(cells)
            ax.errorbar(
                xs,
                ys,
                yerr=style.yerr(ys, bounds),
                label=label,
                capsize=3,
                **style.series_style(i),
            )
            any_wide |= style.hollow(ax, xs, cells, style.series_style(i))
        style.log_scale(ax, "x")
        style.log_scale(ax)
        ax.set_xlabel("data size (bytes)")
        ax.set_ylabel(f"time (s, {ctx.statistic})")
        caption = CAPTIONS["time_vs_size"][0]
        title(ax, f"{caption} [{variant}]" if variant else caption)
        ax.grid(True, which="major", alpha=0.3)
        if lines:
            style.legend(ax)
            drawn.append(ax)
        else:
            why = f"no point of build {variant} measured (reasons in failures.csv)"
            style.nothing_drawn(ax, style.empty_note(ctx, why))
    style.flag_note(fig, any_wide, ctx)
    if len(drawn) > 1:  # one y range, so that panels compare at a glance
        lows, highs = zip(*(ax.get_ylim() for ax in drawn))
        for ax in drawn:
            ax.set_ylim(min(lows), max(highs))
    return fig


def plot_variants(ctx: Context) -> Any:
    """Time at the largest data size against the build variants, one line per row of
    the generic tables (without the variant), one panel per operation."""
    variants = _variants(ctx.points)
    largest = max(ctx.points, key=lambda p: p.size_bytes).input_name
    at = [p for p in ctx.points if p.input_name == largest]
    ops = sorted({p.op for p in at}, reverse=True)  # encrypt before decrypt
    fig, axes = style.figure(ncols=len(ops))
    any_wide = False
    for ax, op in zip(axes, ops):
        base = [p for p in at if p.op == op and p.variant == variants[0]]
        labels = row_labels(base, ctx.ran)
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
                c = formulas.time_cell(ctx, r) if style.ok(r) else None
                if c is not None:
                    xs.append(j)
                    cells.append(c)
            ys = [c.value for c in cells]
            bounds = style.measured_bounds(cells)
            any_wide |= style.hollow(ax, xs, cells, style.series_style(i))
            ax.errorbar(
                xs,
                ys,
                yerr=style.yerr(ys, bounds),
                label=labels[b.id],
                capsize=3,
                **style.series_style(i),
            )
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels(variants, rotation=30)
        ax.set_xlabel("build variant (compiler flags)")
        style.log_scale(ax)
        ax.set_ylabel(f"time at {largest} (s, {ctx.statistic})")
        title(ax, f"{CAPTIONS['time_vs_variant'][0]}, {op}")
        ax.grid(True, which="major", alpha=0.3)
        if any(len(line.get_xdata()) for line in ax.get_lines()):
            style.legend(ax)
        else:
            why = f"no point at {largest} measured (reasons in failures.csv)"
            style.nothing_drawn(ax, style.empty_note(ctx, why))
    style.flag_note(fig, any_wide, ctx)
    return fig


def _same_but_variant(a: Point, b: Point) -> bool:
    return a.id.removesuffix(f"-v{a.variant}") == b.id.removesuffix(f"-v{b.variant}")


def plot_throughput(ctx: Context) -> Any:
    fig, (ax,) = style.figure()
    sizes = list(ctx.columns)
    any_wide = False
    lines = style.series(ctx)
    for i, (label, pts) in enumerate(lines.items()):
        xs, cells = [], []
        for p, r in pts:
            c = formulas.throughput_cell(ctx, p, r)
            if c is not None:
                xs.append(sizes.index(p.input_name))
                cells.append(c)
        ax.plot(xs, [c.value for c in cells], label=label, **style.series_style(i))
        any_wide |= style.hollow(ax, xs, cells, style.series_style(i))
    style.flag_note(fig, any_wide, ctx)
    style.log_scale(ax)
    style.log_ticks(ax)
    style.size_axis(ax, sizes)
    ax.set_ylabel("throughput (MB/s)")
    title(ax, CAPTIONS["throughput"][0])
    ax.grid(True, which="major", alpha=0.3)
    if lines:
        style.legend(ax)
    else:
        style.nothing_drawn(ax, style.empty_note(ctx, "no point measured"))
    return fig
