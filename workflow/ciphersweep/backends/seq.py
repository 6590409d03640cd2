"""aes-seq: the sequential C kernel (kernels/src/main_seq.c), AES and the AEADs."""

from __future__ import annotations

from typing import Any

from ciphersweep.backends.base import CPU_IMPLS, Backend


def _label(p: Any, multi_gpu: bool) -> str:
    return "seq"


BACKEND = Backend(
    name="seq",
    kind="native",
    order=10,
    impls=CPU_IMPLS,
    traits={"": ("impl-dispatch", "native")},
    label=_label,
)
