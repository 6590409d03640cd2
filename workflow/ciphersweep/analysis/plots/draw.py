"""Drawing one of a campaign's plots: one plotter per plot name
(:data:`ciphersweep.analysis.plots.catalog.CAPTIONS`), each taking a
:class:`~ciphersweep.analysis.tables.model.Context` and returning a matplotlib Figure
(object API, no global pyplot state), written as PNG, PDF and SVG. Imported where the
plots are drawn (:mod:`ciphersweep.analysis.plots.drawing`): it loads matplotlib."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ciphersweep.analysis.plots.files import save_figure
from ciphersweep.analysis.plots.parts import plot_cuda_copy, plot_energy
from ciphersweep.analysis.plots.speedup import plot_speedup
from ciphersweep.analysis.plots.timing import plot_throughput, plot_time, plot_variants
from ciphersweep.analysis.tables.model import Context

PLOTTERS: dict[str, Callable[[Context], Any]] = {
    "time_vs_size": plot_time,
    "time_vs_variant": plot_variants,
    "speedup_vs_p": plot_speedup,
    "throughput": plot_throughput,
    "cuda_copy": plot_cuda_copy,
    "energy_per_mb": plot_energy,
}


def draw_one(job: tuple[Context, str, Sequence[Path]]) -> None:
    """One plot (``job``: the campaign, the plot's name, its files), drawn and written
    to each of its files."""
    ctx, name, paths = job
    save_figure(PLOTTERS[name](ctx), paths)
