"""What a campaign needs before it runs: GPU, MPI ranks, threads, memory, time.

    PYTHONPATH=workflow .venv/bin/python -m ciphersweep.plan.needs config/config.yaml config/campaigns/*.yaml

prints one Markdown row per campaign (the README's table). Time is the sum of the
workflow's own per-point estimates (:func:`ciphersweep.plan.resources.estimate_seconds`, the
basis of the Slurm time limits: generous on a fast machine), for a run that measures
one point after another as the local profile does; building the kernels comes on top.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ciphersweep.core import paths
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import resources as cs_resources
from ciphersweep.plan import sweep as cs_sweep


@dataclass(frozen=True)
class Needs:
    campaign: str
    points: int
    gpu: bool
    max_ranks: int
    max_threads: int
    max_mem_mb: int
    minutes: int

    def row(self, name: str) -> str:
        gpu = "yes (CUDA)" if self.gpu else "no"
        mem = f"{math.ceil(self.max_mem_mb / 1024)} GiB"
        return (
            f"| `{name}` | {self.points} | {gpu} | {self.max_ranks} | "
            f"{self.max_threads} | {mem} | ~{self.minutes} min |"
        )


def campaign_needs(cfg: dict[str, Any], points: Sequence[Any]) -> Needs:
    res = [
        cs_resources.resources(p, cfg["cluster"], cfg.get("timeout_s")) for p in points
    ]
    seconds = sum(cs_resources.estimate_seconds(p) for p in points)
    return Needs(
        campaign=str(cfg["campaign"]),
        points=len(points),
        gpu=any(p.gpus > 0 for p in points),
        max_ranks=max((p.ranks for p in points), default=0),
        max_threads=max((p.threads for p in points), default=0),
        max_mem_mb=max((r["mem_mb"] for r in res), default=0),
        minutes=max(1, math.ceil(seconds / 60)),
    )


HEADER = (
    "| campaign | points | GPU | MPI ranks (max) | threads (max) | memory per point "
    "(max) | time, one point after another |\n|---|---|---|---|---|---|---|"
)


def main(argv: Sequence[str]) -> int:
    root = paths.PROJECT
    print(HEADER)
    for path in argv:
        try:
            cfg = cs_config.validate(cs_config.load_file(path), root=root, workdir=root)
        except cs_config.ConfigError as exc:
            print(f"{path}: {cs_config.format_error(exc)}", file=sys.stderr)
            return 1
        print(campaign_needs(cfg, cs_sweep.expand(cfg)).row(path))
    return 0


if __name__ == "__main__":  # pragma: no cover - python -m ciphersweep.plan.needs
    sys.exit(main(sys.argv[1:]))
