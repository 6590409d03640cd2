"""The study files a campaign's ``compare`` key names, read and checked when the
campaign is read: a study's published numbers (one row per printed cell), its stated
findings (claims), another campaign's results directory. Each problem is a ValueError
naming the key, the file and its line or claim.

Their paths are resolved in place (against the working directory, then the project),
so the analysis reads the same files later.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from ciphersweep.core import yamlfile
from ciphersweep.plan.catalogue import (
    CLAIM_KINDS,
    MEASURES,
    PUBLISHED_COLUMNS,
    PUBLISHED_UNITS,
    SPECIAL,
)
from ciphersweep.plan.impl_kinds import KINDS, claim_sides, stated_kinds

# the keys each kind of claim needs
_NEEDS = {
    "values": ("quantity", "expect"),
    "factor": ("quantity", "faster", "slower", "expect"),
    "order": ("quantity", "order"),
    "paper": ("value", "ratio"),
}
# a paper claim that two of its order claims state a pair of cells both ways round
_CONTRADICTION_NEEDS = ("contradicts",)


def _resolve(path: str, root: str | Path, workdir: str | Path) -> Path:
    p = Path(path)
    if p.is_absolute():
        return p
    for base in (Path(workdir), Path(root)):
        if (base / p).exists():
            return base / p
    return Path(workdir) / p


def check_config(cfg: dict[str, Any], root: str | Path, workdir: str | Path) -> None:
    """The files named under ``compare`` exist and parse (ValueError names the key);
    their paths are resolved in place (against the working directory, then the project)."""
    comp = cfg.get("compare") or {}
    for key, loader in (("published", load_published), ("claims", load_claims)):
        if key not in comp:
            continue
        path = _resolve(comp[key], root, workdir)
        if not path.is_file():
            raise ValueError(
                f"compare.{key}: {comp[key]!r}: no such file (allowed: an existing file)"
            )
        try:
            loader(path)
        except ValueError as exc:
            raise ValueError(f"compare.{key}: {exc}") from None
        comp[key] = str(path.resolve())
    if "campaign" in comp:
        d = _resolve(comp["campaign"], root, workdir)
        if not (d / "summary.csv").is_file():
            raise ValueError(
                f"compare.campaign: {comp['campaign']!r} has no summary.csv "
                "(allowed: the results directory of a finished campaign)"
            )
        comp["campaign"] = str(d.resolve())
    for i, ref in enumerate(comp.get("references", [])):
        if ref.get("quantity", "t_total") not in MEASURES:
            raise ValueError(f"compare.references[{i}].quantity: not a measure")


def load_published(path: str | Path) -> pd.DataFrame:
    """A study's published numbers: one row per printed cell (ValueError: what is wrong,
    with the file's line)."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    name = Path(path).name
    missing = [c for c in PUBLISHED_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{name}: missing column(s) {', '.join(missing)}")
    for i, r in frame.iterrows():
        line = f"{name}:{int(str(i)) + 2}"
        try:
            float(r["value"])
        except ValueError:
            raise ValueError(f"{line}: value {r['value']!r} is not a number") from None
        if r["unit"] not in PUBLISHED_UNITS:
            raise ValueError(
                f"{line}: unit {r['unit']!r} (allowed: {', '.join(sorted(PUBLISHED_UNITS))})"
            )
        for m in str(r["measure"]).split("|"):
            if m not in MEASURES and m not in SPECIAL:
                raise ValueError(
                    f"{line}: measure {m!r} (allowed: "
                    f"{', '.join(list(MEASURES) + list(SPECIAL))}, or several joined by |)"
                )
    return frame


def load_claims(path: str | Path) -> list[dict[str, Any]]:
    """A study's stated findings (ValueError names the claim and key)."""
    name = Path(path).name
    try:
        data = yamlfile.safe_load(Path(path).read_text()) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{name}: not YAML ({exc.__class__.__name__})") from None
    claims = data.get("claims") if isinstance(data, dict) else None
    if not claims:
        raise ValueError(f"{name}: needs a list under 'claims'")
    for i, c in enumerate(claims):
        where = f"{name}: claims[{i}]"
        for key in ("id", "text", "kind"):
            if key not in c:
                raise ValueError(f"{where}: missing {key!r}")
        if c["kind"] not in CLAIM_KINDS:
            raise ValueError(
                f"{where}.kind: {c['kind']!r} (allowed: {', '.join(CLAIM_KINDS)})"
            )
        needs = _CONTRADICTION_NEEDS if "contradicts" in c else _NEEDS[c["kind"]]
        for key in needs:
            if key not in c:
                raise ValueError(f"{where}: kind {c['kind']} needs {key!r}")
        q = c.get("quantity")
        if q is not None and q not in MEASURES and q not in SPECIAL:
            raise ValueError(f"{where}.quantity: {q!r} is not a measure")
        _check_kinds(c, where)
    for i, c in enumerate(claims):
        if "contradicts" in c:
            _check_contradiction(claims, c, f"{name}: claims[{i}].contradicts")
    return claims


def _check_kinds(c: dict[str, Any], where: str) -> None:
    """Every kind of implementation a side or the claim's ``where`` names is one
    :mod:`ciphersweep.plan.impl_kinds` declares."""
    sel = c.get("where") if isinstance(c.get("where"), dict) else {}
    for side in [sel, *claim_sides(c)]:
        for k in stated_kinds(side, {}):
            if k not in KINDS:
                raise ValueError(
                    f"{where}: kind of implementation {k!r} "
                    f"(allowed: {', '.join(KINDS)}, or a list of them)"
                )


def _check_contradiction(
    claims: list[dict[str, Any]], c: dict[str, Any], where: str
) -> None:
    """``contradicts``: a paper claim naming two order claims of this file about the
    same quantity."""
    ids = c["contradicts"]
    orders = {x.get("id"): x for x in claims if x.get("kind") == "order"}
    if c["kind"] != "paper" or not isinstance(ids, list) or len(ids) != 2:
        raise ValueError(
            f"{where}: {ids!r} (allowed: on a claim of kind paper, the ids of two "
            "order claims of this file)"
        )
    for i in ids:
        if i not in orders:
            raise ValueError(
                f"{where}: {i!r} is not an order claim of this file "
                f"(allowed: {', '.join(map(str, orders))})"
            )
    if orders[ids[0]].get("quantity") != orders[ids[1]].get("quantity"):
        raise ValueError(f"{where}: {ids[0]} and {ids[1]} order different quantities")
