"""Whether a campaign measured anything, in one line.

A campaign whose every point failed has no number to show: its console summary, its
plots and its report say so with the same words, naming the file the reasons are in,
and the run ends with a non-zero exit status (ciphersweep.campaign.console). A campaign
where some points failed is measured: it names them (the console's summary, the
report's failures section, the tables' footnotes) and ends as usual.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

FAILURES = "failures.csv"  # the file the reasons are in (the gather rule writes it)


def measured(rows: Iterable[Mapping[str, Any]]) -> int:
    """Points of summary.csv's ``rows`` that were measured and verified."""
    return sum(1 for r in rows if r.get("status") == "ok")


def nothing_measured(total: int, measured: int, where: str = FAILURES) -> str | None:
    """``nothing measured: N of N points failed (see failures.csv)`` when none of a
    campaign's ``total`` points was measured; None when one was (or there are none)."""
    if total <= 0 or measured > 0:
        return None
    word = "point" if total == 1 else "points"
    return f"nothing measured: {total} of {total} {word} failed (see {where})"
