"""The list of a pack: which points (or generated inputs) shared one allocation.

Written by the job that joins a pack's points into one connected Snakemake group
(rules ``pack`` and ``inputs_made``); the analysis does not read it."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path


def write_members(path: str | Path, members: Sequence[str], log: str | Path) -> None:
    """``path``: one member per line; ``log``: where the list was made."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(f"{m}\n" for m in members))
    where = os.environ.get("SLURM_JOB_ID")
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    Path(log).write_text(
        f"{out.stem}: {len(members)} member(s), "
        + (f"Slurm job {where}\n" if where else "run locally\n")
    )
