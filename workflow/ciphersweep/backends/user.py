"""aes-user (job/kernel_user.py): the user's own kernels (backends.user.kernels,
docs/kernel-contract.md), built, launched, verified and tabled like the built-ins."""

from __future__ import annotations

from typing import Any

from ciphersweep.backends.base import Backend, count


def _args(p: Any) -> list[str]:
    """aes-user's: the kernel, its program and shape, its own arguments (its MPI
    launcher follows them: ciphersweep.job.launch.build)."""
    args = ["--name", p.impl, "--program", p.program]
    args += ["--ranks", str(p.ranks), "--threads", str(p.threads)]
    args += ["--gpus", str(p.gpus)]
    return args + [f"--kernel-arg={a}" for a in p.command]


def _label(p: Any, multi_gpu: bool) -> str:
    """The kernel's name, cipher and shape: ``mykernel aes-128-ctr (2 ranks)``."""
    shape = [count(p.ranks, "rank")] + [count(p.threads, "thread")] * (p.threads > 1)
    shape += [count(p.gpus, "GPU")] * (p.gpus > 0)
    return f"{p.impl} {p.cipher} ({', '.join(shape)})"


BACKEND = Backend(
    name="user",
    kind="user",
    order=90,
    kernel_module="kernel_user",
    named=True,
    cipher_flag=True,
    mpi="ranks",
    impl_kinds={"": "user"},
    traits=None,  # what a user's kernel reads nobody knows: every switch
    native_only=True,
    label=_label,
    tail_args=_args,
)
