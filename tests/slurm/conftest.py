"""The private Slurm cluster of each module in this folder: module-scoped, so every
module starts one of its own and the modules run side by side under pytest-xdist. One
node declaring 32 CPUs, unless the module names another shape in ``CLUSTER_SHAPE``
(tests/cluster/up.sh arguments)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slurmtools import Cluster, cluster_fixture

SINGLE_NODE = ("--nodes", "1", "--cpus", "32")


@pytest.fixture(scope="module")
def cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    shape = getattr(request.module, "CLUSTER_SHAPE", SINGLE_NODE)
    yield from cluster_fixture(tmp_path_factory, *shape)
