"""aes-mpi: the MPI C kernel (kernels/src/main_mpi.c), ranks under the site's
launcher."""

from __future__ import annotations

from typing import Any

from ciphersweep.backends.base import CPU_IMPLS, Backend, axis, count, section


def _label(p: Any, multi_gpu: bool) -> str:
    return f"mpi ({count(p.ranks, 'rank')})"


# backends.mpi in a campaign file (the JSON Schema of its section)
CONFIG = section({"impls": axis("string", ["auto"]), "ranks": axis("integer", [1, 2])})

BACKEND = Backend(
    name="mpi",
    kind="native",
    order=30,
    impls=CPU_IMPLS,
    mpi="always",
    traits={"": ("impl-dispatch", "native", "mpi")},
    label=_label,
    config=CONFIG,
)
