"""Measured cells side by side with a reference: a study's published numbers, another
campaign's results, or performance references with tolerances. One module serves all
three (config key ``compare``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _resolve(path: str, root: str | Path, workdir: str | Path) -> Path:
    p = Path(path)
    if p.is_absolute():
        return p
    for base in (Path(workdir), Path(root)):
        if (base / p).exists():
            return base / p
    return Path(workdir) / p


def check_config(cfg: dict[str, Any], root: str | Path, workdir: str | Path) -> None:
    """The files named under ``compare`` exist (ValueError names the key); their
    paths are resolved in place (against the working directory, then the project)."""
    comp = cfg.get("compare") or {}
    for key in ("published", "claims"):
        if key not in comp:
            continue
        path = _resolve(comp[key], root, workdir)
        if not path.is_file():
            raise ValueError(
                f"compare.{key}: {comp[key]!r}: no such file (allowed: an existing file)"
            )
        comp[key] = str(path.resolve())
    if "campaign" in comp:
        d = _resolve(comp["campaign"], root, workdir)
        if not (d / "summary.csv").is_file():
            raise ValueError(
                f"compare.campaign: {comp['campaign']!r} has no summary.csv "
                "(allowed: the results directory of a finished campaign)"
            )
