"""The list of a pack: which points (or generated inputs) shared one allocation.

Written by the job that joins a pack's points into one connected Snakemake group
(rules ``pack`` and ``inputs_made``); the analysis does not read it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def write_members(path: str | Path, members: Sequence[str], log: str | Path) -> None:
    """``path``: one member per line; ``log``: how many."""
    Path(path).write_text("".join(f"{m}\n" for m in members))
    Path(log).write_text(f"{Path(path).stem}: {len(members)} member(s)\n")
