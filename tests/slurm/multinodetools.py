"""Helpers of the multi-node Slurm tests (test_multinode.py,
test_multinode_node_loss.py): the shape of their four-node clusters, Slurm's compressed
node lists, and the cut-down pousa2011 campaign they run."""

from __future__ import annotations

import re
from typing import Any

import yaml
from slurmtools import KERNELS, ROOT, SLOW_START_S, Cluster

NODES = 4
CPUS = 8
FOUR_NODES = ("--nodes", str(NODES), "--cpus", str(CPUS))  # up.sh arguments


def expand_nodes(nodelist: str) -> list[str]:
    """node[1-3],node5 -> [node1, node2, node3, node5] (Slurm's compressed lists)."""
    out: list[str] = []
    for prefix, rng, single in re.findall(r"(\w+?)\[([\d,-]+)\]|(\w+)", nodelist):
        if single:
            out.append(single)
            continue
        for part in rng.split(","):
            lo, _, hi = part.partition("-")
            out += [f"{prefix}{i}" for i in range(int(lo), int(hi or lo) + 1)]
    return out


def pousa_config(
    c: Cluster, campaign: str, ranks: tuple[int, ...] = (8, 16, 32), **over: Any
) -> dict[str, Any]:
    """config/campaigns/pousa2011.yaml cut down for a 2-core machine: its smallest
    size, one repetition, its sequential baseline and MPI points (8, 16, 32 ranks)
    only, no energy probe."""
    cfg = yaml.safe_load((ROOT / "config" / "campaigns" / "pousa2011.yaml").read_text())
    study = cfg["backends"]
    cfg.update(
        campaign=campaign,
        sizes=cfg["sizes"][:1],
        reps=1,
        warmup=0,
        backends={"seq": study["seq"], "mpi": {**study["mpi"], "ranks": list(ranks)}},
    )
    cfg["platform"] = {"container": {"runtime": "none"}, "energy": "none"}
    cfg["build"] = {"dir": str(KERNELS)}
    cfg["timeout_s"] = SLOW_START_S
    cfg["cluster"] = {
        **cfg["cluster"],
        "cores_per_node": CPUS,
        "gpus_per_node": 0,
        "mpi_network": c.env["CS_SUBNET"],
    }
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(cfg.get(k), dict):
            cfg[k] = {**cfg[k], **v}
        else:
            cfg[k] = v
    return cfg
