"""The speedup plot: speedup vs P, one panel per parallel CPU backend, one line per
data size, the ideal line S = P, oversubscribed points ringed; GPU speedups in a panel
of their own against the data size. Values and intervals are the speedup table's
(:func:`ciphersweep.analysis.tables.formulas.ratio_cell`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.ticker import MaxNLocator

from ciphersweep.analysis.plots import style
from ciphersweep.analysis.plots.catalog import CAPTIONS
from ciphersweep.analysis.plots.titles import title
from ciphersweep.analysis.tables import formulas
from ciphersweep.analysis.tables.model import Context, row_labels
from ciphersweep.plan.sweep import Point


def speedup_points(
    ctx: Context,
) -> dict[str, list[tuple[Point, float, tuple[float, float] | None, bool, bool]]]:
    """Backend -> (point, speedup, (low, high), oversubscribed, wide) of every measured
    point with a measured baseline; the interval and the flag are the speedup table's
    (ciphersweep.core.stats)."""
    base = ctx.baseline
    out: dict[str, list] = {}
    for p in ctx.points:
        r, b = ctx.by_point.get(p.id), ctx.by_point.get(base.get(p.id, ""))
        if not (style.ok(r) and style.ok(b)):
            continue
        c = formulas.ratio_cell(ctx, b, r)  # type: ignore[arg-type]
        if c is None:
            continue
        over = style.truthy(r.get("oversubscribed"))  # type: ignore[union-attr]
        out.setdefault(p.backend, []).append(
            (p, c.value, (c.low, c.high), over, bool(c.note))
        )
    return out


def _speedup_panel(ax: Any, backend: str, pts: list, styles: dict) -> None:
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
            yerr=style.yerr(ys, [x[2] for x in items]),
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
                edgecolors=style.OVERSUBSCRIBED,
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
    title(ax, backend)
    ax.grid(True, alpha=0.3)
    style.legend(ax, title="data size")


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
            yerr=style.yerr(ys, [x[2] for x in items]),
            label=label,
            capsize=3,
            **style.series_style(i),
        )
    style.log_scale(ax)
    style.log_ticks(ax)
    style.size_axis(ax, sizes)
    ax.axhline(1.0, color="k", linestyle="--", linewidth=1)
    ax.set_ylabel("speedup Ts/Tp")
    title(ax, "GPU (vs data size)")
    ax.grid(True, which="major", alpha=0.3)
    style.legend(ax)


def plot_speedup(ctx: Context) -> Any:
    groups = speedup_points(ctx)
    cpu = [b for b in ("omp", "mpi") if b in groups] + sorted(
        b for b in groups if b not in ("omp", "mpi", "cuda", "openssl")
    )
    panels = cpu + (["cuda"] if "cuda" in groups else [])
    fig, axes = style.figure(max(1, len(panels)))
    styles = style.size_styles(list(ctx.columns))
    for ax, backend in zip(axes, panels):
        if backend == "cuda":
            _gpu_panel(ax, groups[backend], list(ctx.columns))
        else:
            _speedup_panel(ax, backend, groups[backend], styles)
    if not panels:
        why = "no speedup measured (reasons in failures.csv)"
        style.nothing_drawn(axes[0], style.empty_note(ctx, why))
    fig.suptitle(CAPTIONS["speedup_vs_p"][0])
    style.flag_note(fig, any(x[4] for pts in groups.values() for x in pts), ctx)
    return fig
