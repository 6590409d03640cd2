"""The ``compare`` rule: every comparison a campaign's ``compare`` key asks for,
written as CSV and Markdown under results/<campaign>/compare/."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from tabulate import tabulate

from ciphersweep.analysis.compare.campaign import campaign_rows
from ciphersweep.analysis.compare.claims import claim_rows
from ciphersweep.analysis.compare.published import published_rows, rank_rows
from ciphersweep.analysis.compare.references import reference_rows
from ciphersweep.analysis.render import md_escape
from ciphersweep.analysis.tables.model import Context
from ciphersweep.plan.study_files import load_claims, load_published
from ciphersweep.plan.sweep import Point

COLUMNS = {
    "published": [
        "source",
        "row",
        "column",
        "measure",
        "impl",
        "unit",
        "paper",
        "measured",
        "ci_low",
        "ci_high",
        "ratio",
        "difference",
        "closest",
        "note",
    ],
    "ranks": ["source", "measure", "cells", "spearman", "kendall"],
    "claims": ["id", "claim", "source", "kind", "verdict", "numbers"],
    "campaign": [
        "point",
        "reference",
        "reference_ci_low",
        "reference_ci_high",
        "measured",
        "ci_low",
        "ci_high",
        "ratio",
        "verdict",
    ],
    "references": [
        "reference",
        "point",
        "quantity",
        "unit",
        "value",
        "lower",
        "upper",
        "measured",
        "verdict",
    ],
}


def output_names(cfg: dict[str, Any]) -> list[str]:
    """Comparison tables this campaign writes (results/<campaign>/compare/<name>.csv)."""
    comp = cfg.get("compare") or {}
    names = []
    if "published" in comp:
        names += ["published", "ranks"]
    if "claims" in comp:
        names.append("claims")
    if "campaign" in comp:
        names.append("campaign")
    if comp.get("references"):
        names.append("references")
    return names


def build(ctx: Context) -> dict[str, list[dict[str, Any]]]:
    """Every comparison the campaign's ``compare`` key asks for."""
    comp = ctx.cfg.get("compare") or {}
    out: dict[str, list[dict[str, Any]]] = {}
    pub = load_published(comp["published"]) if "published" in comp else None
    if pub is not None:
        out["published"] = published_rows(ctx, pub)
        out["ranks"] = rank_rows(out["published"])
    if "claims" in comp:
        out["claims"] = claim_rows(ctx, load_claims(comp["claims"]), pub)
    if "campaign" in comp:
        other = pd.read_csv(Path(comp["campaign"]) / "summary.csv")
        out["campaign"] = campaign_rows(ctx, other)
    if comp.get("references"):
        out["references"] = reference_rows(ctx, comp["references"])
    return out


def markdown(name: str, rows: list[dict[str, Any]]) -> str:
    """One comparison as a Markdown table (cells escaped, numbers to 4 digits)."""
    cols = COLUMNS[name]
    body = [
        [
            ""
            if r.get(c) is None
            else (f"{r[c]:.4g}" if isinstance(r[c], float) else md_escape(str(r[c])))
            for c in cols
        ]
        for r in rows
    ]
    return tabulate(body, headers=cols, tablefmt="github", disable_numparse=True) + "\n"


def write(
    cfg: dict[str, Any],
    points: Sequence[Point],
    summary_path: str,
    outdir: str,
    log: str | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """The ``compare`` rule: every comparison as CSV and Markdown."""
    ctx = Context(cfg, points, pd.read_csv(summary_path))
    result = build(ctx)
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in result.items():
        pd.DataFrame(rows, columns=COLUMNS[name]).to_csv(
            out / f"{name}.csv", index=False
        )
        (out / f"{name}.md").write_text(markdown(name, rows))
    if log:
        with open(log, "w") as fh:
            for name, rows in result.items():
                print(f"## {name}\n\n{markdown(name, rows)}", file=fh)
    return result
