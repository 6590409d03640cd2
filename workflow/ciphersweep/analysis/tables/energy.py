"""The energy and CPU-utilisation tables: J per run, J/MB and mean W per point and size
(from the energy readings the job recorded, ciphersweep.job.energy), and the getrusage
CPU utilisation, each the campaign's statistic over the repetitions
(:func:`ciphersweep.core.stats.central`); n/a with the reason where nothing could
measure a cell, never 0."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ciphersweep.analysis.tables.model import (
    NA,
    Builder,
    CellValue,
    Context,
    Table,
    add_note,
    mark_oversubscribed,
    status_cell,
)
from ciphersweep.core import stats, units
from ciphersweep.plan.sweep import Point

ENERGY_PARTS = ("J per run", "J/MB", "mean W")
NO_SOURCE = "no energy measurement"
TOO_SHORT = "energy below the counter's resolution (timed region too short)"
SHORT_REGION_S = 0.01
COARSE_ENERGY = "timed region < 10 ms: energy counters update about every millisecond, the value is coarse"
COARSE_CPU = "timed region < 10 ms: getrusage CPU times are too coarse there (values above 100 % possible)"


def _missing(v: Any) -> bool:
    if v is None:
        return True
    try:
        return math.isnan(float(v))
    except (TypeError, ValueError):
        return True


def _common_note(reps: Sequence[Mapping[str, Any]]) -> str | None:
    notes = [
        str(r["energy_note"]) for r in reps if not _missing_text(r.get("energy_note"))
    ]
    return Counter(notes).most_common(1)[0][0] if notes else None


def _missing_text(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or str(v).strip() == ""


def energy_cells(
    reps: Sequence[Mapping[str, Any]], nbytes: int, statistic: str = "median"
) -> dict[str, float] | str:
    """The energy table's three cells for one point, or the reason there are none.

    ``reps``: the point's records (one per timed repetition). J per run = the
    ``statistic`` (median or mean) of ``joules``; J/MB = that / (bytes / 10^6);
    mean W = the ``statistic`` over repetitions of ``joules / t_total``. A point whose ``joules`` are all null (or not positive) gives
    a reason string instead -- the table shows "n/a" with it as a footnote, never 0.
    """
    joules = [float(r["joules"]) for r in reps if not _missing(r.get("joules"))]
    if not joules:
        note = _common_note(reps)
        return f"{NO_SOURCE}: {note}" if note else NO_SOURCE
    j = stats.central(joules, statistic)
    if j is None or j <= 0:
        return TOO_SHORT
    watts = [
        float(r["joules"]) / float(r["t_total"])
        for r in reps
        if not _missing(r.get("joules"))
        and not _missing(r.get("t_total"))
        and float(r["t_total"]) > 0
    ]
    out = {"J per run": j, "J/MB": units.per_mb(j, nbytes)}
    w = stats.central(watts, statistic)
    if w is not None:
        out["mean W"] = w
    return out


def cpu_util_cell(
    reps: Sequence[Mapping[str, Any]], statistic: str = "median"
) -> float | str:
    """CPU utilisation in percent (``statistic`` over the repetitions), or why there
    is none."""
    vals = [
        float(r["cpu_util"]) * 100.0 for r in reps if not _missing(r.get("cpu_util"))
    ]
    v = stats.central(vals, statistic)
    if v is None:
        return "no CPU times (getrusage) in the records"
    return v


# The record fields the energy and CPU-utilisation cells read.
_REP_FIELDS = ("joules", "t_total", "cpu_util", "energy_note", "energy_window_s")


def _reps_by_point(ctx: Context) -> dict[str, list[dict[str, Any]]]:
    """Point id -> its repetition records, from the tidy measurements (or the summary)."""
    meas = ctx.measurements
    if meas is not None and len(meas) and "point" in meas:
        return ctx.ok_reps(_REP_FIELDS)
    out: dict[str, list[dict[str, Any]]] = {}
    # no measurements: one pseudo-repetition from the summary's statistic
    stat = ctx.statistic
    for pid, row in ctx.by_point.items():
        out[pid] = [
            {
                "joules": row.get(f"joules_{stat}"),
                "t_total": row.get(f"t_total_{stat}"),
                "cpu_util": row.get(f"cpu_util_{stat}"),
                "energy_note": row.get("energy_note"),
            }
        ]
    return out


def build_energy_table(ctx: Context) -> Table:
    """Energy table: rows backend / P x quantity (J per run, J/MB, mean W), columns sizes."""
    reps = _reps_by_point(ctx)
    rows: list[str] = []
    b = ctx.basis()
    t = Table(
        "energy",
        f"Energy of the timed region: J per run ({ctx.statistic}), J/MB, mean power W "
        f"({ctx.statistic} of J / t_total); {b.title(interval=False)}",
        rows,
        list(ctx.columns),
        {},
        row_header="backend: quantity",
        caption="Energy of the timed region per backend and data size: J per run is the "
        f"{ctx.statistic} over repetitions of the energy of one timed run, J/MB that "
        f"divided by the data size (MB = 10^6 bytes), mean W the {ctx.statistic} of "
        "energy / wall time. The "
        "counters are socket-wide (GPU: the whole board), so a value means something "
        "only on an exclusive node; n/a means no source could measure the cell (reason "
        "in the footnote), never 0. " + b.sentence(interval=False),
    )
    for p in ctx.points:
        label = ctx.row_of[p.id]
        srow = ctx.by_point.get(p.id)
        cells: dict[str, float] | str | None = None
        if srow is not None and srow.get("status") == "ok":
            cells = energy_cells(reps.get(p.id, []), p.size_bytes, ctx.statistic)
        for part in ENERGY_PARTS:
            row = f"{label}: {part}"
            if row not in rows:
                rows.append(row)
            key = (row, p.input_name)
            missing = status_cell(srow)
            if missing is not None:
                t.cells[key], t.notes[key] = missing
            elif isinstance(cells, str):
                t.cells[key] = NA
                t.notes[key] = cells
            elif cells is not None and part in cells:
                t.cells[key] = float(cells[part])
                if _short(reps.get(p.id, [])) and not _windowed(reps.get(p.id, [])):
                    t.notes[key] = COARSE_ENERGY
            else:
                t.cells[key] = NA
                t.notes[key] = "no repetition with both energy and time"
            mark_oversubscribed(t, key, p, srow)
    return t


def build_cpu_util_table(ctx: Context) -> Table:
    """CPU utilisation (%) per point: the campaign's statistic over repetitions, like
    the seed's "CPU %"."""
    reps = _reps_by_point(ctx)

    def cell(p: Point, row: Mapping[str, Any]) -> CellValue:
        v = cpu_util_cell(reps.get(p.id, []), ctx.statistic)
        return (NA, v) if isinstance(v, str) else v

    b = ctx.basis()
    t = ctx.grid(
        "cpu_util",
        "CPU utilisation (%) = (user + sys CPU time) / (wall time x cores used), "
        f"{b.title(interval=False)}",
        cell,
        caption="CPU utilisation = (user + system CPU time) / (wall time x cores used), "
        f"from getrusage, {ctx.statistic} over repetitions, in percent. Values above 100 % come "
        "from timed regions too short for getrusage's resolution (footnoted). "
        + b.sentence(interval=False),
    )
    for p in ctx.points:
        key = (ctx.row_of[p.id], p.input_name)
        if isinstance(t.cells.get(key), float) and _short(reps.get(p.id, [])):
            add_note(t, key, COARSE_CPU)
    return t


def _short(reps: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a point's median timed region is shorter than :data:`SHORT_REGION_S`."""
    times = [float(r["t_total"]) for r in reps if not _missing(r.get("t_total"))]
    median = stats.central(times, "median")
    return median is not None and median < SHORT_REGION_S


def _windowed(reps: Sequence[Mapping[str, Any]]) -> bool:
    """Whether every repetition's energy comes from a window of whole repetitions at
    least :data:`SHORT_REGION_S` long (aes-cuda's NVML windows: J per repetition is the
    window's energy over its repetitions, however short one repetition is)."""
    windows = [r.get("energy_window_s") for r in reps]
    return bool(windows) and all(
        not _missing(w) and float(w) >= SHORT_REGION_S for w in windows
    )


BUILDERS = [
    Builder("energy", build_energy_table),
    Builder("cpu_util", build_cpu_util_table),
]
