"""How far a cell may move between two runs with nothing changed: the band of "no
change" a regression verdict is judged against (:mod:`.regress`).

One run's interval covers the noise inside that run, not the drift of a machine from
one run to the next (clock, thermal and load state). The drift is estimated from what
the history holds, and the largest of three figures sets the band:

* ``history.min_change``, the floor the user sets;
* **control cells**: the cells the two runs both measured with the same code (the
  same digest of their records' fingerprint); their factors new / old are drift alone, and the 90th
  percentile of ``|log factor|`` over them (their largest when fewer than ten) is the
  drift between these two runs;
* **this cell**: its factors between consecutive earlier runs of one build on that
  machine, the largest of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

FLOOR, CONTROLS, CELL = "history.min_change", "control cells", "this cell's history"
Cell = Mapping[str, Any]


@dataclass(frozen=True)
class Band:
    """A relative drift ``d`` (the band is ``[1 / (1 + d), 1 + d]``), what set it and
    how (e.g. ``14 cells unchanged in both runs``)."""

    drift: float
    source: str
    detail: str


def _est(c: Cell) -> float | None:
    try:
        v = float(c.get("estimate"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) and v > 0 and c.get("status") == "ok" else None


def _log_factor(a: Cell, b: Cell) -> float | None:
    x, y = _est(a), _est(b)
    return None if x is None or y is None else abs(math.log(x / y))


def _spread(logs: Sequence[float]) -> float:
    """The drift a set of control factors shows (as a relative change)."""
    top = (
        float(np.quantile(logs, 0.9, method="higher")) if len(logs) >= 10 else max(logs)
    )
    return math.expm1(top)


def key(c: Cell, machines: bool) -> tuple[Any, ...]:
    """What makes two cells the same cell (point, size and, unless machines are
    compared, the machine)."""
    return (c.get("point"), str(c.get("bytes")), None if machines else c.get("machine"))


def controls(
    latest: Iterable[Cell],
    baseline_run: Iterable[Cell],
    machines: bool,
    unchanged: Callable[[Cell, Cell], bool],
) -> tuple[float, int] | None:
    """The drift between two runs from their control cells, and how many there were
    (None: no cell was measured by the same build in both)."""
    index = {key(c, machines): c for c in baseline_run}
    logs = []
    for c in latest:
        old = index.get(key(c, machines))
        if old is not None and unchanged(c, old):
            lf = _log_factor(c, old)
            if lf is not None:
                logs.append(lf)
    return (_spread(logs), len(logs)) if logs else None


def own_history(
    cell: Cell,
    earlier: Sequence[Sequence[Cell]],
    machines: bool,
    unchanged: Callable[[Cell, Cell], bool],
) -> tuple[float, int] | None:
    """The cell's largest factor between consecutive earlier runs of one build (and
    one statistic), with the number of such pairs (None: no pair)."""
    k = key(cell, machines)
    mine = [
        c
        for run in earlier
        for c in run
        if key(c, machines) == k and c.get("statistic") == cell.get("statistic")
    ]
    logs = []
    for a, b in pairwise(mine):
        if unchanged(a, b):
            lf = _log_factor(b, a)
            if lf is not None:
                logs.append(lf)
    return (math.expm1(max(logs)), len(logs)) if logs else None


def band(
    floor: float,
    between: tuple[float, int] | None,
    own: tuple[float, int] | None,
) -> Band:
    """The largest of the floor, the runs' control drift and the cell's own drift."""
    out = Band(floor, FLOOR, f"{FLOOR}: {floor:g}")
    if between is not None and between[0] > out.drift:
        out = Band(between[0], CONTROLS, f"{between[1]} cells unchanged in both runs")
    if own is not None and own[0] > out.drift:
        out = Band(own[0], CELL, f"{own[1]} earlier pairs of runs of one build")
    return out
