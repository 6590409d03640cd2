"""Plots that answer the study's questions (PNG for the report, PDF and SVG beside).

* ``time_vs_size``: time vs data size (log-log), one line per backend / P, error bars
  from the interval of the campaign's statistic.
* ``speedup_vs_p``: speedup vs P, one panel per parallel CPU backend, one line per data
  size (sequential colour map, and a marker and line style of its own), integer ticks,
  the ideal line S = P, oversubscribed points ringed; GPU speedups in a panel of their
  own against the data size (P means nothing there).
* ``time_vs_variant``: time at the largest size against the build variants.
* ``throughput``: MB/s vs data size per backend / P on a log axis with 1-2-5 ticks.
* ``cuda_copy``: where a CUDA run's time goes (copies, kernel, and the rest the kernel's
  timers leave out), a stacked bar per data size.
* ``energy_per_mb``: J/MB per backend / P and data size, where energy was measured.

Modules: :mod:`.catalog` (which plots a campaign has, their titles and captions; no
plotting library), :mod:`.style` (what every plot shares), :mod:`.timing`,
:mod:`.speedup`, :mod:`.parts` (the plotters) and :mod:`.draw` (writing them). Values
and intervals come from :mod:`ciphersweep.core.stats` through the tables' cells (the
campaign's statistic); a point whose interval is wider than the precision target is
drawn hollow, and the plot says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ciphersweep.analysis.plots.catalog import CAPTIONS, FORMATS, plot_names, words
from ciphersweep.analysis.plots.drawing import Drawing, draw_jobs
from ciphersweep.analysis.tables.model import Context
from ciphersweep.core.atomic import replacing
from ciphersweep.plan.sweep import Point

__all__ = ["CAPTIONS", "FORMATS", "Drawing", "plot_names", "words", "write_plots"]

DRAW = "ciphersweep.analysis.plots.draw"  # the module of the plotters (matplotlib)


def write_plots(
    cfg: dict[str, Any],
    points: Sequence[Point],
    summary_csv: str,
    outdir: str,
    log: str | None = None,
    drawing: Drawing | None = None,
) -> list[Path]:
    """The ``plots`` rule: every plot of the campaign as PNG, PDF and SVG, every file
    or none, drawn side by side by the run's drawing process (``drawing``,
    :mod:`ciphersweep.analysis.plots.drawing`), or here, one after another, without
    one. A system error while they are written is raised here as the same OSError."""
    import pandas as pd  # here: the drawing process imports this package, never pandas

    ctx = Context(cfg, points, pd.read_csv(summary_csv))
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    names = plot_names(cfg, points)
    written = [out / f"{name}.{ext}" for name in names for ext in FORMATS]
    n = len(FORMATS)
    with replacing(written) as tmps:
        jobs = [(ctx, name, tmps[i * n : (i + 1) * n]) for i, name in enumerate(names)]
        draw_jobs(drawing, DRAW, "draw_one", jobs)
    if log:
        Path(log).write_text("\n".join(str(p) for p in written) + "\n")
    return written
