"""aes-omp: the OpenMP C kernel (kernels/src/main_omp.c), threads on one node."""

from __future__ import annotations

from typing import Any

from ciphersweep.backends.base import CPU_IMPLS, Backend, axis, count, section


def _label(p: Any, multi_gpu: bool) -> str:
    return f"omp ({count(p.threads, 'thread')})"


# backends.omp in a campaign file (the JSON Schema of its section)
CONFIG = section({"impls": axis("string", ["auto"]), "threads": axis("integer", [2])})

BACKEND = Backend(
    name="omp",
    kind="native",
    order=20,
    impls=CPU_IMPLS,
    traits={"": ("impl-dispatch", "native", "openmp")},
    label=_label,
    shape_args=lambda p: ["--threads", str(p.threads)],
    config=CONFIG,
)
