"""The comparisons as tables of the campaign's report: the study's published numbers
next to the measured ones, and its findings with their verdicts. :data:`BUILDERS` is
listed in :data:`ciphersweep.analysis.tables.registry.BUILDERS`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ciphersweep.analysis.compare.claims import claim_rows
from ciphersweep.analysis.compare.published import published_rows
from ciphersweep.analysis.tables.model import NA, Builder, Context, Table
from ciphersweep.plan.study_files import load_claims, load_published
from ciphersweep.plan.sweep import Point

_PUBLISHED_CAPTION = (
    "Measured values are in the study's unit; ratio = measured / paper; "
    "difference = measured - paper for speedups. Where a printed number could "
    "be more than one quantity (total or compute-only time) or implementation "
    "(a library's AES-NI or portable AES code), each is shown and the closest "
    "one is marked where the measured intervals tell it."
)


def _label(r: dict[str, Any], multi: set[tuple[str, str, str]]) -> str:
    """A printed cell's row label (with its quantity or implementation where it could
    be several)."""
    label = f"{r['source']} | {r['row']} | {r['column']}"
    if (r["source"], r["row"], r["column"]) in multi:
        label += f" [{r['alternative']}]"
    return label


def published_table(ctx: Context) -> Table:
    """Paper value, measured value (in the paper's unit, with its interval), ratio and
    difference, one row per printed cell (and per quantity it could be)."""
    rows = published_rows(ctx, load_published(ctx.cfg["compare"]["published"]))
    seen: dict[tuple[str, str, str], int] = {}
    for r in rows:
        k = (r["source"], r["row"], r["column"])
        seen[k] = seen.get(k, 0) + 1
    multi = {k for k, n in seen.items() if n > 1}
    cols = ["paper", "unit", "measured", "ratio", "difference", "closest"]
    t = Table(
        "published",
        "The study's published numbers next to the measured ones",
        [],
        cols,
        {},
        digits=4,
        row_header="table | row | column",
        caption=_PUBLISHED_CAPTION,
    )
    for r in rows:
        label = _label(r, multi)
        t.rows.append(label)
        t.cells[(label, "paper")] = r["paper"]
        t.cells[(label, "unit")] = r["unit"]
        for c in ("measured", "ratio", "difference"):
            t.cells[(label, c)] = NA if r[c] is None else float(r[c])
        t.cells[(label, "closest")] = r["closest"]
        if r["note"]:
            where = "measured" if r["measured"] is None else "paper"
            t.notes[(label, where)] = r["note"]
        if r["ci_low"] is not None and r["ci_high"] is not None:
            t.intervals[(label, "measured")] = (r["ci_low"], r["ci_high"])
    return t


def claims_table(ctx: Context) -> Table:
    """Every stated finding: holds / does not hold here, with the deciding numbers."""
    comp = ctx.cfg["compare"]
    pub = load_published(comp["published"]) if "published" in comp else None
    rows = claim_rows(ctx, load_claims(comp["claims"]), pub)
    cols = ["claim", "source", "verdict", "numbers"]
    t = Table(
        "claims",
        "The study's findings, checked on this campaign's measurements",
        [r["id"] for r in rows],
        cols,
        {},
        row_header="claim",
        caption=(
            "holds / does not hold here / inconclusive / not measured here, with the "
            "numbers that decide it, each with its interval and the level it was "
            "computed at (a factor's: the product of its two cells'): a claim holds when "
            "the intervals lie wholly within what was stated, does not hold when they "
            "lie wholly outside, and is inconclusive when they reach both; kind paper: "
            "whether the study's own printed numbers agree."
        ),
    )
    for r in rows:
        for c in cols:
            t.cells[(r["id"], c)] = r[c]
    return t


def _names(key: str) -> Callable[[dict[str, Any], Sequence[Point]], bool]:
    """A builder's condition: the campaign's ``compare`` key names ``key``."""
    return lambda cfg, points: key in (cfg.get("compare") or {})


BUILDERS = [
    Builder("published", published_table, _names("published")),
    Builder("claims", claims_table, _names("claims")),
]
