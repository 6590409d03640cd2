"""PNG plots: time vs size (log-log), speedup vs P with the ideal line, throughput."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .sweep import Point
from .tables import (
    Context,
    _t,
    baseline_of,
    plot_names,
    row_labels,
    speedup,
    throughput_mbps,
)


def _figure() -> Any:
    from matplotlib.figure import Figure  # object API: no global pyplot state

    fig = Figure(figsize=(7, 4.5), dpi=110)
    return fig, fig.add_subplot(1, 1, 1)


def _series(ctx: Context) -> dict[str, list[tuple[Point, dict[str, Any]]]]:
    labels = row_labels(ctx.points)
    out: dict[str, list[tuple[Point, dict[str, Any]]]] = {}
    for p in ctx.points:
        r = ctx.by_point.get(p.id)
        if r is None or r.get("status") != "ok":
            continue
        out.setdefault(labels[p.id], []).append((p, r))
    return out


def plot_time(ctx: Context, path: Path) -> None:
    fig, ax = _figure()
    for label, pts in _series(ctx).items():
        pts = sorted(pts, key=lambda x: x[0].size_bytes)
        xs = [p.size_bytes for p, _ in pts]
        ys = [_t(r) for _, r in pts]
        ax.plot(xs, ys, marker="o", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("data size (bytes)")
    ax.set_ylabel("time (s, median)")
    ax.set_title("Execution time vs data size")
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)


def plot_speedup(ctx: Context, path: Path) -> None:
    fig, ax = _figure()
    base = baseline_of(ctx)
    groups: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for p in ctx.points:
        if p.id not in base or p.backend not in ("omp", "mpi"):
            continue
        r, b = ctx.by_point.get(p.id), ctx.by_point.get(base[p.id])
        if not r or not b or r.get("status") != "ok" or b.get("status") != "ok":
            continue
        s = speedup(_t(b), _t(r))
        if s is not None:
            groups.setdefault((p.backend, p.input_name), []).append((p.p, s))
    maxp = 1
    for (backend, size), pts in groups.items():
        pts.sort()
        maxp = max(maxp, pts[-1][0])
        ax.plot(
            [x for x, _ in pts],
            [y for _, y in pts],
            marker="o",
            label=f"{backend} {size}",
        )
    ax.plot([1, maxp], [1, maxp], "k--", label="ideal (S = P)")
    ax.set_xlabel("P (ranks x threads)")
    ax.set_ylabel("speedup Ts/Tp")
    ax.set_title("Speedup vs P")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)


def plot_throughput(ctx: Context, path: Path) -> None:
    fig, ax = _figure()
    series = _series(ctx)
    cols = ctx.columns
    width = 0.8 / max(1, len(series))
    for i, (label, pts) in enumerate(series.items()):
        vals = {
            p.input_name: throughput_mbps(p.size_bytes, _t(r)) or 0.0 for p, r in pts
        }
        xs = [j + i * width for j in range(len(cols))]
        ax.bar(xs, [vals.get(c, 0.0) for c in cols], width=width, label=label)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cols))])
    ax.set_xticklabels(cols)
    ax.set_yscale("log")
    ax.set_xlabel("data size")
    ax.set_ylabel("throughput (MB/s)")
    ax.set_title("Throughput by backend")
    ax.grid(True, axis="y", alpha=0.3)
    if series:
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)


PLOTTERS = {
    "time_vs_size": plot_time,
    "speedup_vs_p": plot_speedup,
    "throughput": plot_throughput,
}


def write_plots(
    cfg: dict[str, Any],
    points: Sequence[Point],
    summary_csv: str,
    outdir: str,
    log: str | None = None,
) -> list[Path]:
    import pandas as pd

    ctx = Context(cfg, points, pd.read_csv(summary_csv))
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in plot_names(cfg, points):
        path = out / f"{name}.png"
        PLOTTERS[name](ctx, path)
        written.append(path)
    if log:
        Path(log).write_text("\n".join(str(p) for p in written) + "\n")
    return written
