"""THE list of a campaign's tables: every builder, in the order the report shows them
(the generic tables of ciphersweep.analysis.tables.generic, then energy, provenance,
the build sizes, the comparisons with a study), which ones apply to a campaign, and the
``tables`` rule that builds and writes them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ciphersweep.analysis import compare
from ciphersweep.analysis.render import render_markdown, write_table
from ciphersweep.analysis.tables import (
    build,
    energy,
    generic,
    layout_tables,
    layouts,
    provenance,
)
from ciphersweep.analysis.tables.model import Builder, Context, Table
from ciphersweep.plan.sweep import Point

BUILDERS: list[Builder] = [
    *generic.BUILDERS,
    *energy.BUILDERS,
    *provenance.BUILDERS,
    *build.BUILDERS,
    *compare.BUILDERS,
]


def builders(cfg: dict[str, Any], points: Sequence[Point]) -> list[Builder]:
    """The builders whose tables a campaign has."""
    return [b for b in BUILDERS if b.applies(cfg, points)]


def table_names(cfg: dict[str, Any], points: Sequence[Point]) -> list[str]:
    """Every table of a campaign: the builders' and the campaign's own layouts."""
    return [b.name for b in builders(cfg, points)] + layouts.table_names(cfg, points)


def build_all(ctx: Context) -> list[Table]:
    """Every table of a campaign: the builders', then its own layouts'."""
    generic = [b.build(ctx) for b in builders(ctx.cfg, ctx.points)]
    return generic + layout_tables.build(ctx)


def context_from_files(
    cfg: dict[str, Any],
    points: Sequence[Point],
    inputs: Any,
    facts: Mapping[str, Any] | None = None,
) -> Context:
    """The tables' context from the gathered files (``inputs.summary`` and, where it
    holds rows, ``inputs.measurements``), with the run's host ``facts``."""
    summary = pd.read_csv(inputs.summary)
    meas = None
    mpath = getattr(inputs, "measurements", None)
    if mpath and Path(mpath).exists() and Path(mpath).stat().st_size > 0:
        try:
            meas = pd.read_parquet(mpath)
        except Exception:  # noqa: BLE001 - an empty campaign writes an empty parquet
            meas = None
    return Context(cfg, points, summary, meas, facts)


def write_tables(
    cfg: dict[str, Any],
    points: Sequence[Point],
    inputs: Any,
    outdir: str,
    log: str | None = None,
    facts: Mapping[str, Any] | None = None,
) -> list[Table]:
    """The ``tables`` rule: build every table from summary.csv and write it three ways
    (``facts``: the run's host facts, which the report's tables share)."""
    tables = build_all(context_from_files(cfg, points, inputs, facts))
    for t in tables:
        write_table(t, outdir)
    if log:
        with open(log, "w") as fh:
            for t in tables:
                print(render_markdown(t), file=fh)
    return tables
