"""aes-cuda: the CUDA kernel (kernels/src/main_cuda.c), GPUs, host-device copies."""

from __future__ import annotations

from typing import Any

from ciphersweep.backends.base import Backend, axis, count, section

CUDA_IMPLS = ("auto", "gpu-lanes", "gpu-ttable", "gpu-ref")  # what aes-cuda accepts


def _args(p: Any) -> list[str]:
    """Threads per block, and the streams the copies overlap on (more than one)."""
    args = ["--block-threads", str(p.block_threads or 256)]
    return args + (["--streams", str(p.streams)] if p.streams > 1 else [])


def _label(p: Any, multi_gpu: bool) -> str:
    return (
        f"cuda ({p.block_threads} threads/block"
        + (f", {p.gpus} GPUs" if multi_gpu else "")
        + (f", {count(p.streams, 'stream')})" if p.streams > 1 else ")")
    )


# backends.cuda in a campaign file (the JSON Schema of its section)
CONFIG = section(
    {
        "impls": axis("string", ["gpu-ttable"]),
        "block_threads": axis("integer", [256]),
        "gpus": axis("integer", [1]),
        "streams": axis(
            "integer",
            [1],
            description="1: copies and kernel in sequence (the study's); N > 1: "
            "overlapped over N streams (--streams N), a row of its own",
        ),
    }
)

BACKEND = Backend(
    name="cuda",
    kind="native",
    order=50,
    impls=CUDA_IMPLS,
    start_s=4.0,  # NVML update-period detection and two energy windows (gpu-energy.md)
    impl_kinds={"": "gpu"},
    traits={"": ("native", "cuda")},
    label=_label,
    shape_args=_args,
    config=CONFIG,
)
