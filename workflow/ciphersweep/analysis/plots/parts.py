"""Where the time and the energy go: the CUDA time breakdown (host-device copies,
kernel and the rest of the timed region, a stacked bar per data size) and the energy
per MB, each from the campaign's statistic over the repetitions."""

from __future__ import annotations

from typing import Any

from ciphersweep.analysis.plots import style
from ciphersweep.analysis.plots.catalog import CAPTIONS
from ciphersweep.analysis.plots.titles import title
from ciphersweep.analysis.tables.formulas import NOT_RECORDED, UNTIMED, untimed_part
from ciphersweep.analysis.tables.model import Context, row_labels
from ciphersweep.core import units
from ciphersweep.core.stats import number

# label, summary column (None: the total less the parts above), colour
CUDA_PARTS = (
    ("copy host-device", "t_h2d", "#4c72b0"),
    ("kernel", "t_compute", "#55a868"),
    ("copy device-host", "t_d2h", "#c44e52"),
    (UNTIMED, None, "#8c8c8c"),
)


def _part(
    r: dict[str, Any], label: str, col: str | None, stat: str
) -> tuple[float | None, str]:
    """A part of the timed region in seconds, or None and what the n/a note above its
    bar says of it."""
    if col is not None:
        return number(r.get(f"{col}_{stat}")), label
    rest = untimed_part(r, stat)
    if not isinstance(rest, tuple):
        return rest, label
    if rest[1].startswith(NOT_RECORDED):
        return None, "other (a part missing)"
    return None, "other (parts > total)"


def plot_cuda_copy(ctx: Context) -> Any:
    fig, (ax,) = style.figure(width=9.0)  # the legend beside the axes
    cuda = [
        (p, ctx.by_point[p.id])
        for p in ctx.points
        if p.backend == "cuda" and style.ok(ctx.by_point.get(p.id))
    ]
    cuda.sort(key=lambda x: x[0].size_bytes)
    xs = list(range(len(cuda)))
    bottoms = [0.0] * len(cuda)
    stat = ctx.statistic
    missing: list[list[str]] = [[] for _ in cuda]  # parts not measured, per bar
    for label, col, color in CUDA_PARTS:
        shares = []
        for k, (p, r) in enumerate(cuda):
            total = number(r.get(f"t_total_{stat}"))
            part, why = _part(r, label, col, stat)
            if total and part is not None:
                shares.append(100 * part / total)
            else:  # no bar segment, and said so above the bar: never a 0 %
                shares.append(0.0)
                missing[k].append(why)
        ax.bar(xs, shares, bottom=bottoms, label=label, color=color)
        bottoms = [b + s for b, s in zip(bottoms, shares)]
    for x, (b, gone) in enumerate(zip(bottoms, missing)):
        if gone:
            ax.annotate("n/a:\n" + "\n".join(gone), (x, b), xytext=(0, 3),
                        textcoords="offset points", ha="center", va="bottom",
                        fontsize="x-small")  # fmt: skip
    several = len({row_labels(ctx.points, ctx.ran)[p.id] for p, _ in cuda}) > 1
    names = [
        p.input_name + (f"\n{row_labels(ctx.points, ctx.ran)[p.id]}" if several else "")
        for p, _ in cuda
    ]
    for x, (p, r) in zip(xs, cuda):
        ax.annotate(
            _seconds(number(r.get(f"t_total_{stat}"))),
            (x, 100),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            fontsize="x-small",
        )
    ax.set_xticks(xs)
    ax.set_xticklabels(names)
    ax.set_xlabel("data size")
    ax.set_ylim(0, 112)
    ax.set_ylabel("share of the timed region (%)")
    title(ax, CAPTIONS["cuda_copy"][0])
    if cuda:  # beside the axes: inside, every place covers a bar that reaches 100 %
        style.legend(ax, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    else:
        why = "no CUDA point measured (reasons in failures.csv)"
        style.nothing_drawn(ax, style.empty_note(ctx, why))
    style.flag_note(fig, False, ctx, interval=False)
    return fig


def _seconds(t: float | None) -> str:
    return "n/a" if t is None else f"{t:.3g} s"


def plot_energy(ctx: Context) -> Any:
    fig, (ax,) = style.figure()
    sizes = list(ctx.columns)
    drawn = 0
    for i, (label, pts) in enumerate(style.series(ctx).items()):
        xs, ys = [], []
        for p, r in pts:
            j = number(r.get(f"joules_{ctx.statistic}"))
            if j is not None and j > 0:
                xs.append(sizes.index(p.input_name))
                ys.append(units.per_mb(j, p.size_bytes))
        if xs:
            ax.plot(xs, ys, label=label, **style.series_style(i))
            drawn += 1
    style.size_axis(ax, sizes)
    ax.set_ylabel("energy (J/MB)")
    title(ax, CAPTIONS["energy_per_mb"][0])
    if drawn:
        style.log_scale(ax)
        style.log_ticks(ax)
        ax.grid(True, which="major", alpha=0.3)
        style.legend(ax)
    else:
        why = "no energy measured (reasons in the energy table's notes)"
        style.nothing_drawn(ax, style.empty_note(ctx, why))
    style.flag_note(fig, False, ctx, interval=False)
    return fig
