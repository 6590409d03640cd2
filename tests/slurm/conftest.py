"""The private Slurm cluster of each module in this folder: module-scoped, so every
module starts one of its own and the modules run side by side under pytest-xdist. One
node declaring 32 CPUs, unless the module names another shape in ``CLUSTER_SHAPE``
(tests/cluster/up.sh arguments) or other settings in ``CLUSTER_ENV`` (up.sh's knobs,
e.g. a short ``CS_SLURM_SLURMDTIMEOUT`` where a test kills a node)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from slurmtools import Cluster, cluster_fixture

SINGLE_NODE = ("--nodes", "1", "--cpus", "32")


@pytest.fixture(scope="module")
def cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    shape = getattr(request.module, "CLUSTER_SHAPE", SINGLE_NODE)
    env = {**os.environ, **getattr(request.module, "CLUSTER_ENV", {})}
    yield from cluster_fixture(tmp_path_factory, *shape, env=env)
