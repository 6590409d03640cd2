"""Drawing a campaign's plots: one plotter per plot name
(:data:`ciphersweep.analysis.plots.catalog.CAPTIONS`), each taking a
:class:`~ciphersweep.analysis.tables.model.Context` and returning a matplotlib Figure
(object API, no global pyplot state), written as PNG, PDF and SVG, every file or none."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
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
    workers: int = 1,
) -> list[Path]:
    """The ``plots`` rule: every plot of the campaign as PNG, PDF and SVG; with
    ``workers`` > 1, the plots drawn side by side in that many forked processes."""
    ctx = Context(cfg, points, pd.read_csv(summary_csv))
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    names = plot_names(cfg, points)
    written = [out / f"{name}.{ext}" for name in names for ext in FORMATS]
    n = len(FORMATS)
    with replacing(written) as tmps:  # every plot file or none
        jobs = [(ctx, name, tmps[i * n : (i + 1) * n]) for i, name in enumerate(names)]
        if workers < 2 or len(jobs) < 2:
            for job in jobs:
                _draw(job)
        else:
            # forked: the children have matplotlib and pandas imported already (the
            # process that draws has no threads of its own to fork)
            fork = multiprocessing.get_context("fork")
            workers = min(workers, len(jobs))
            with ProcessPoolExecutor(workers, mp_context=fork) as pool:
                list(pool.map(_draw, jobs))
    if log:
        Path(log).write_text("\n".join(str(p) for p in written) + "\n")
    return written


def _draw(job: tuple[Context, str, Sequence[Path]]) -> None:
    """One plot, written to each of its files."""
    ctx, name, paths = job
    save_figure(PLOTTERS[name](ctx), paths)
