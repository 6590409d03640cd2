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


# backends.user in a campaign file (the JSON Schema of its section)
CONFIG: dict[str, Any] = {
    "type": ["object", "null"],
    "additionalProperties": False,
    "description": "the user's own kernels, speaking docs/kernel-contract.md; built, "
    "launched, verified and tabled like the built-ins",
    "required": ["kernels"],
    "properties": {
        "kernels": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "ciphers"],
                "properties": {
                    "name": {
                        "type": "string",
                        "pattern": "^[A-Za-z][A-Za-z0-9_.+-]{0,39}$",
                        "description": "the kernel's name in point ids and tables",
                    },
                    "source": {
                        "type": "string",
                        "minLength": 1,
                        "description": "a "
                        "CMake "
                        "project "
                        "(a "
                        "directory "
                        "with "
                        "CMakeLists.txt) "
                        "the "
                        "workflow "
                        "builds "
                        "into "
                        "build/user/; "
                        "relative "
                        "to "
                        "the "
                        "working "
                        "directory",
                    },
                    "program": {
                        "type": "string",
                        "minLength": 1,
                        "description": "an "
                        "executable "
                        "(a "
                        "path; "
                        "relative "
                        "to "
                        "the "
                        "working "
                        "directory) "
                        "instead "
                        "of "
                        "source",
                    },
                    "target": {
                        "type": "string",
                        "pattern": "^[A-Za-z0-9_.+-]{1,80}$",
                        "description": "source: "
                        "the "
                        "executable "
                        "the "
                        "CMake "
                        "project "
                        "builds "
                        "(default: "
                        "the "
                        "kernel's "
                        "name, "
                        "or "
                        "its "
                        "one "
                        "executable)",
                    },
                    "cmake_args": {
                        "type": "array",
                        "items": {"type": "string"},
                        "default": [],
                        "description": "source: "
                        "arguments "
                        "added "
                        "to "
                        "cmake's "
                        "configure "
                        "step "
                        "(part "
                        "of "
                        "the "
                        "build "
                        "key)",
                    },
                    "ciphers": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "string"},
                        "description": "ciphers "
                        "it "
                        "is "
                        "measured "
                        "with "
                        "(its "
                        "--mode "
                        "is "
                        "the "
                        "cipher's "
                        "mode)",
                    },
                    "ranks": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "integer"},
                        "default": [1],
                        "description": "MPI "
                        "ranks "
                        "(more "
                        "than "
                        "1: "
                        "started "
                        "under "
                        "cluster.mpi_launcher)",
                    },
                    "threads": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "integer"},
                        "description": "threads, "
                        "passed "
                        "as "
                        "--threads "
                        "T "
                        "(absent: "
                        "1 "
                        "thread, "
                        "no "
                        "--threads)",
                    },
                    "gpus": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "integer"},
                        "description": "GPUs "
                        "asked "
                        "of "
                        "the "
                        "scheduler, "
                        "passed "
                        "as "
                        "--gpus "
                        "G "
                        "(absent: "
                        "none)",
                    },
                    "args": {
                        "type": "array",
                        "items": {"type": "string"},
                        "default": [],
                        "description": "further "
                        "arguments "
                        "after "
                        "the "
                        "contract's "
                        "flags "
                        "(one "
                        "argument "
                        "each; "
                        "no "
                        "shell)",
                    },
                },
            },
        }
    },
}

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
    config=CONFIG,
)
