"""What every plot shares: the figure, the styles of its series, log ticks, error bars
from intervals, hollow markers for cells wider than the precision target, and the
measured points of each row label."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.ticker import (
    FuncFormatter,
    LogFormatterSciNotation,
    LogLocator,
    NullFormatter,
)

from ciphersweep.analysis.plots.legend import place
from ciphersweep.analysis.tables.model import Context, Measured, row_labels
from ciphersweep.core import outcome, stats
from ciphersweep.plan.sweep import Point

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")
LINESTYLES = ("-", "--", "-.", ":")
OVERSUBSCRIBED = "#d62728"


def figure(ncols: int = 1, width: float = 7.0) -> Any:
    fig = Figure(figsize=(max(width, 4.2 * ncols), 4.6), dpi=110, layout="constrained")
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, axes


def yerr(values: Sequence[float], bounds: Sequence[tuple[float, float] | None]) -> Any:
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


NOTE_LINE_IN = 0.21  # height of one line of the note under the axes (inches)


def flag_note(fig: Any, any_wide: bool, ctx: Context, interval: bool = True) -> None:
    """The note under the axes: what the values rest on (the statistic, the level of
    their intervals unless ``interval`` is False, the repetitions as they ran:
    :meth:`ciphersweep.analysis.tables.model.Context.basis`) and, where a marker is
    hollow, what that means. The constrained layout keeps a strip at the bottom for it
    (it lays out axes and their labels, not free text)."""
    lines = [f"values: {ctx.basis().title(interval)}"]
    if any_wide:
        lines.append(
            f"hollow: interval wider than ±{100 * ctx.target:g}% (or too few "
            f"repetitions for a {stats.percent_number(stats.CONFIDENCE)}% interval)"
        )
    strip = NOTE_LINE_IN * len(lines) / fig.get_size_inches()[1]
    fig.get_layout_engine().set(rect=(0, strip, 1, 1 - strip))
    fig.text(0.01, 0.005, "\n".join(lines), fontsize="small", va="bottom")


def measured_bounds(cells: Sequence[Measured]) -> list[tuple[float, float]]:
    return [(c.low, c.high) for c in cells]


def ok(row: dict[str, Any] | None) -> bool:
    return row is not None and row.get("status") == "ok"


def truthy(v: Any) -> bool:
    return str(v).strip().lower() in ("true", "1", "1.0", "yes")


def series(
    ctx: Context, points: Sequence[Point] | None = None
) -> dict[str, list[tuple[Point, dict[str, Any]]]]:
    """Row label -> the label's measured points, by data size (labels made over
    ``points``, default all the campaign's)."""
    points = ctx.points if points is None else points
    labels = row_labels(points, ctx.ran)
    out: dict[str, list[tuple[Point, dict[str, Any]]]] = {}
    for p in points:
        r = ctx.by_point.get(p.id)
        if ok(r):
            out.setdefault(labels[p.id], []).append((p, r))  # type: ignore[arg-type]
    for pts in out.values():
        pts.sort(key=lambda x: x[0].size_bytes)
    return out


def series_style(i: int) -> dict[str, Any]:
    """Marker, line style and colour of the i-th series (distinct for 48 series)."""
    cmap = colormaps["tab10"]
    return {
        "color": cmap(i % 10),
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": LINESTYLES[(i // 10) % len(LINESTYLES)],
    }


def size_styles(sizes: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Data size -> style: sequential colour map (darker = larger), marker, line style."""
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


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_MATHTEXT = re.compile(r"^\$\\mathdefault\{(.*)\}\$$")
_POWER = re.compile(r"\^\{(-?\d+)\}")


class TextLogFormatter(LogFormatterSciNotation):
    """matplotlib's log-axis labels (the same ticks labelled) as plain text: ``10⁻³``,
    ``2×10⁻³``, ``0.5``. Its own labels are mathtext, whose parser takes about 20 ms a
    label in every process that draws, more than the rest of a small plot's ticks."""

    def __call__(self, x: float, pos: int | None = None) -> str:
        return plain_label(super().__call__(x, pos))


def plain_label(label: str) -> str:
    """A mathtext log label (``$\\mathdefault{2\\times10^{-3}}$``) as plain text."""
    m = _MATHTEXT.match(label)
    if not m:
        return label
    text = m.group(1).replace("\\times", "\u00d7")
    return _POWER.sub(lambda e: e.group(1).translate(_SUPERSCRIPT), text)


def log_scale(ax: Any, axis: str = "y") -> None:
    """THE way an axis becomes logarithmic: matplotlib's log scale and ticks, labelled
    as plain text (:class:`TextLogFormatter`)."""
    if axis == "y":
        ax.set_yscale("log")
    else:
        ax.set_xscale("log")
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(TextLogFormatter(10))
    target.set_minor_formatter(TextLogFormatter(10, labelOnlyBase=False))


def log_ticks(ax: Any, axis: str = "y") -> None:
    """Readable log ticks: 1-2-5 per decade, plain numbers."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())


def size_axis(ax: Any, sizes: Sequence[str]) -> None:
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels(sizes, rotation=30 if len(sizes) > 5 else 0)
    ax.set_xlabel("data size")


def nothing_drawn(ax: Any, note: str) -> None:
    """THE note of axes with nothing to draw: centred in the axes, whatever their data
    limits, which show no ticks or grid (the reason, never an empty or zero-looking
    plot)."""
    ax.tick_params(which="both", bottom=False, left=False)
    ax.tick_params(which="both", labelbottom=False, labelleft=False)
    ax.grid(False)
    ax.text(0.5, 0.5, note, ha="center", va="center", transform=ax.transAxes)


def empty_note(ctx: Context, otherwise: str) -> str:
    """What axes with nothing to draw say: the campaign's "nothing measured: N of N
    points failed (see failures.csv)" when none of its points was measured
    (:mod:`ciphersweep.core.outcome`), else ``otherwise`` (why these axes have none)."""
    measured = sum(ok(ctx.by_point.get(p.id)) for p in ctx.points)
    return outcome.nothing_measured(len(ctx.points), measured) or otherwise


def legend(ax: Any, **kw: Any) -> None:
    """The axes' legend, laid out by :func:`ciphersweep.analysis.plots.legend.place`."""
    place(ax, "the tables", **kw)
