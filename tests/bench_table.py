"""The pure part of tests/bench_reframe.py: paired measurements -> ratios, slopes and a
table with each row's target and verdict. Nothing here runs a process.

Every figure is shown as median [min–max] over the repetitions of the benchmark; a
ratio is ciphersweep / ReFrame, taken per repetition (the two sides of one repetition
ran next to each other, so a load drift hits both), then summarised the same way.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from scipy import stats

# the targets: ciphersweep / ReFrame at most
TARGETS = {"dry run": 0.15, "end to end": 1.0, "per extra point": 0.5}


@dataclass
class Spread:
    """Median and range of repeated values (n = how many)."""

    median: float
    low: float
    high: float
    n: int

    def text(self, unit: str = "", digits: int = 2) -> str:
        if self.n == 0:
            return "n/a"
        if self.n == 1:
            return f"{self.median:.{digits}f}{unit}"
        return (
            f"{self.median:.{digits}f}{unit} "
            f"[{self.low:.{digits}f}–{self.high:.{digits}f}]"
        )


@dataclass
class Row:
    work: str
    reframe: Spread
    ciphersweep: Spread
    ratio: Spread
    target: float | None
    unit: str = " s"

    @property
    def verdict(self) -> str:
        """PASS: every repetition's ratio within the target; MISS: none; MIXED: some."""
        if self.target is None or self.ratio.n == 0:
            return "—"
        if self.ratio.high <= self.target:
            return "PASS"
        if self.ratio.low > self.target:
            return "MISS"
        return "MIXED"


def spread(values: Sequence[float]) -> Spread:
    if not values:
        return Spread(float("nan"), float("nan"), float("nan"), 0)
    return Spread(statistics.median(values), min(values), max(values), len(values))


def ratios(reframe: Sequence[float], ciphersweep: Sequence[float]) -> list[float]:
    """ciphersweep / ReFrame per repetition. A pair with a figure <= 0 is left out: a
    derived overhead can come out negative when the load drifts, and a ratio of it
    would mean nothing."""
    if len(reframe) != len(ciphersweep):
        raise ValueError(f"unpaired: {len(reframe)} ReFrame vs {len(ciphersweep)}")
    return [c / r for r, c in zip(reframe, ciphersweep) if r > 0 and c > 0]


def overhead(wall: float, kernel: float) -> float:
    """What the orchestration added: wall time less the kernels' own t_total."""
    return wall - kernel


def slope(points: Sequence[int], overheads: Sequence[float]) -> float:
    """Overhead per extra point: least-squares slope of overhead over points."""
    if len(set(points)) < 2:
        raise ValueError("a slope needs campaigns of at least two sizes")
    return float(stats.linregress(points, overheads).slope)


def fixed_cost(wall: float, kernel: float, points: int, per_point: float) -> float:
    """What a run costs beyond its kernels and its points' share."""
    return wall - kernel - points * per_point


def row(
    work: str,
    reframe: Sequence[float],
    ciphersweep: Sequence[float],
    target: float | None,
    unit: str = " s",
) -> Row:
    return Row(
        work,
        spread(reframe),
        spread(ciphersweep),
        spread(ratios(reframe, ciphersweep)),
        target,
        unit,
    )


def markdown(rows: Sequence[Row], digits: int = 2) -> str:
    lines = [
        "| work | ReFrame | ciphersweep | ratio | target | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        target = "—" if r.target is None else f"≤ {r.target:g}×"
        ratio = r.ratio.text("", 2)
        if r.ratio.n < min(r.reframe.n, r.ciphersweep.n):
            ratio += f" ({r.ratio.n} of {min(r.reframe.n, r.ciphersweep.n)} pairs > 0)"
        lines.append(
            f"| {r.work} | {r.reframe.text(r.unit, digits)} | "
            f"{r.ciphersweep.text(r.unit, digits)} | {ratio} | {target} | {r.verdict} |"
        )
    return "\n".join(lines)


def _finite(value: object) -> object:
    """NaN (nothing measured) as null: JSON has no NaN."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def as_json(rows: Sequence[Row], meta: dict) -> str:
    out = [_finite({**asdict(r), "verdict": r.verdict}) for r in rows]
    return json.dumps({"meta": meta, "rows": out}, indent=2, allow_nan=False)
