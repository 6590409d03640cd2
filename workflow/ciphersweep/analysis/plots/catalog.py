"""The plots of a campaign: their names (which ones a campaign has) and the title and
caption of each (the report shows them under each plot). Drawing them is
:mod:`ciphersweep.analysis.plots.draw`'s; this module needs no plotting library, so the
workflow can name the plot files at every parse without loading one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ciphersweep.analysis.tables.generic import has_parallel
from ciphersweep.core.wording import Basis
from ciphersweep.plan.sweep import Point

FORMATS = ("png", "pdf", "svg")

# name -> (title, caption): the report shows them under each plot, the caption followed
# by what the values rest on (:func:`words`); neither names a statistic or a level
CAPTIONS: dict[str, tuple[str, str]] = {
    "time_vs_size": (
        "Execution time vs data size",
        (
            "Time of the timed region (t_total) against the data size, both axes "
            "logarithmic, one line per backend and degree of parallelism. Error bars: "
            "the confidence interval; hollow markers: an interval wider than the "
            "precision target (or too few repetitions for one)."
        ),
    ),
    "speedup_vs_p": (
        "Speedup vs P",
        (
            "Speedup Ts/Tp against the sequential kernel (same implementation, mode, "
            "operation and size) for P = MPI ranks x OpenMP threads, one panel per "
            "backend, one line per data size (darker = larger). The dashed line is ideal "
            "scaling S = P; error bars span Ts_low/Tp_high .. Ts_high/Tp_low from the "
            "confidence intervals of both times; hollow markers: a time behind the "
            "point is wider than the precision target; ringed points ran oversubscribed "
            "(more ranks than cores). GPU speedups are shown against the data size in a "
            "panel of their own."
        ),
    ),
    "time_vs_variant": (
        "Time vs compiler flags",
        (
            "Time at the largest data size for each build variant (the compiler flags "
            "of build.variants), one line per kernel and implementation, one panel per "
            "operation; error bars as in the time plot."
        ),
    ),
    "throughput": (
        "Throughput vs data size",
        (
            "Data size / time in MB/s (MB = 10^6 bytes), one line per backend and "
            "degree of parallelism, on a logarithmic axis; hollow markers where the time's "
            "confidence interval is wider than the precision target."
        ),
    ),
    "cuda_copy": (
        "CUDA time breakdown",
        (
            "Share of the timed region spent copying host to device, in the kernel, "
            "copying device to host, and in the rest the kernel's own timers leave out "
            "(launches, synchronisation: the total less the three; n/a with the reason "
            "where a part is missing or the parts exceed the total), per data size; the "
            "total time is written above each bar, the legend beside the axes."
        ),
    ),
    "energy_per_mb": (
        "Energy per MB",
        (
            "Energy of the timed region divided by the data size (J/MB, MB = 10^6 "
            "bytes) per backend and degree of parallelism, where a source measured it "
            "(cells without a source are n/a in the energy table, never 0)."
        ),
    ),
}


# plots whose values carry no interval: their words name no level
NO_INTERVAL = ("cuda_copy", "energy_per_mb")


def words(name: str, basis: Basis) -> tuple[str, str]:
    """A plot's title and caption for the report: each with what the values rest on
    (the statistic, the level of the intervals, the repetitions as they ran)."""
    title, caption = CAPTIONS[name]
    interval = name not in NO_INTERVAL
    return (
        f"{title} ({basis.title(interval)})",
        f"{caption} {basis.sentence(interval)}",
    )


def plot_names(cfg: dict[str, Any], points: Sequence[Point]) -> list[str]:
    """Plots of a campaign (:mod:`ciphersweep.analysis.plots.draw` draws them)."""
    names = ["time_vs_size", "throughput"]
    if len({p.variant for p in points}) > 1:
        names.insert(1, "time_vs_variant")
    if has_parallel(cfg, points):
        names.insert(1, "speedup_vs_p")
    if any(p.backend == "cuda" for p in points):
        names.append("cuda_copy")
    if cfg.get("platform", {}).get("energy", "auto") != "none":
        names.append("energy_per_mb")
    return names
