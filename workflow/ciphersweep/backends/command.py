"""aes-command (job/kernel_command.py): any program, given as an argument list,
timed as a whole process (openssl enc, ...)."""

from __future__ import annotations

from typing import Any

from ciphersweep.backends.base import Backend


def _label(p: Any, multi_gpu: bool) -> str:
    return f"{p.impl} {p.cipher}"


# backends.command in a campaign file (the JSON Schema of its section)
CONFIG: dict[str, Any] = {
    "type": ["object", "null"],
    "additionalProperties": False,
    "description": "programs timed as whole processes (aes-command), e.g. openssl enc",
    "required": ["programs"],
    "properties": {
        "programs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "ciphers", "encrypt"],
                "properties": {
                    "name": {
                        "type": "string",
                        "pattern": "^[A-Za-z][A-Za-z0-9_.+-]{0,39}$",
                        "description": "the program's name in point ids and tables",
                    },
                    "ciphers": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "string"},
                    },
                    "encrypt": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "argument "
                        "list "
                        "with "
                        "placeholders "
                        "{input} "
                        "{output} "
                        "{key} "
                        "{iv} "
                        "{cipher}; "
                        "no "
                        "shell",
                    },
                    "decrypt": {"type": "array", "items": {"type": "string"}},
                },
            },
        }
    },
}

BACKEND = Backend(
    name="command",
    kind="command",
    order=80,
    kernel_module="kernel_command",
    named=True,
    library_mode=True,
    cipher_flag=True,
    start_s=0.05,
    start_per_run=True,
    impl_kinds={"": "cli"},
    traits={"": ("native", "openssl")},
    native_only=True,
    label=_label,
    # the program's name, then its argument list (placeholders filled in per run)
    tail_args=lambda p: ["--program", p.impl, "--", *p.command],
    config=CONFIG,
)
