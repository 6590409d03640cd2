"""Drawing a campaign's plots: one plotter per plot name
(:data:`ciphersweep.analysis.plots.catalog.CAPTIONS`), each taking a
:class:`~ciphersweep.analysis.tables.model.Context` and returning a matplotlib Figure
(object API, no global pyplot state), written as PNG, PDF and SVG, every file or none."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ciphersweep.analysis.plots.catalog import FORMATS, plot_names
from ciphersweep.analysis.plots.files import save_figure
from ciphersweep.analysis.plots.parts import plot_cuda_copy, plot_energy
from ciphersweep.analysis.plots.speedup import plot_speedup
from ciphersweep.analysis.plots.timing import plot_throughput, plot_time, plot_variants
from ciphersweep.analysis.tables.model import Context
from ciphersweep.core.atomic import replacing
from ciphersweep.plan.sweep import Point

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
    ctx = Context(cfg, points, pd.read_csv(summary_csv))
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    names = plot_names(cfg, points)
    written = [out / f"{name}.{ext}" for name in names for ext in FORMATS]
    with replacing(written) as tmps:  # every plot file or none
        for i, name in enumerate(names):
            save_figure(
                PLOTTERS[name](ctx), tmps[i * len(FORMATS) : (i + 1) * len(FORMATS)]
            )
    if log:
        Path(log).write_text("\n".join(str(p) for p in written) + "\n")
    return written
