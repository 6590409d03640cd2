"""What a run (or a dry run) is about to measure, in a screenful at any size.

THE place the plan's summary is worded: how many points, counted per backend and shape
(ranks, threads, GPUs) and per kind of reason (no records, failed, changed), and the
first and last of them with why. The full per-point list is the workflow's
``ciphersweep: to measure: <point> (<why>)`` lines, which the console shows with
``--verbose``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from ciphersweep.plan.sweep import Point
from ciphersweep.verdict.admission import KINDS, reason_kind

MAX_SHAPES = 8


def shape(p: Point) -> str:
    """A point's backend and launch shape: ``mpi 8 ranks``, ``omp 4 threads``,
    ``cuda 1 GPU``, ``seq``."""
    parts = [p.backend]
    if p.ranks > 1:
        parts.append(f"{p.ranks} ranks")
    if p.threads > 1:
        parts.append(f"{p.threads} threads")
    if p.gpus:
        parts.append(f"{p.gpus} GPU{'s' if p.gpus > 1 else ''}")
    return " ".join(parts)


def _counted(counts: Counter[str], limit: int) -> str:
    shown = [f"{k} {n}" for k, n in counts.most_common(limit)]
    rest = len(counts) - limit
    if rest > 0:
        shown.append(f"{rest} more shape{'s' if rest > 1 else ''}")
    return ", ".join(shown)


def lines(
    todo: Mapping[str, str], points: Mapping[str, Point], limit: int = MAX_SHAPES
) -> list[str]:
    """The summary of ``todo`` (point id -> why it is measured, in plan order): at
    most ``limit`` + 4 lines whatever its size; none when nothing is measured."""
    if not todo:
        return []
    kinds = Counter(reason_kind(why) for why in todo.values())
    shapes = Counter(shape(points[pid]) for pid in todo)
    out = [
        "why: " + ", ".join(f"{kinds[k]} {k}" for k in KINDS if kinds[k]),
        f"by backend and shape: {_counted(shapes, limit)}",
    ]
    first, last = next(iter(todo)), list(todo)[-1]
    out.append(f"first: {first} ({todo[first]})")
    if last != first:
        out.append(f"last: {last} ({todo[last]})")
    return out
