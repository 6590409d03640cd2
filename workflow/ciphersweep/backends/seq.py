"""aes-seq: the sequential C kernel (kernels/src/main_seq.c), AES and the AEADs."""

from __future__ import annotations

from typing import Any

from ciphersweep.backends.base import CPU_IMPLS, Backend


def _label(p: Any, multi_gpu: bool) -> str:
    return "seq"


# backends.seq in a campaign file (the JSON Schema of its section)
CONFIG: dict[str, Any] = {
    "type": ["object", "null"],
    "additionalProperties": False,
    "properties": {
        "impls": {
            "type": "array",
            "items": {"type": "string"},
            "default": ["auto"],
            "description": "AES ECB/CTR impls run over `modes` (may "
            "be empty when `aead` is given)",
        },
        "aead": {
            "type": "object",
            "default": {},
            "description": "AEADs aes-seq runs, cipher -> impls, e.g. "
            "{ascon-aead128: [ascon-ref, ascon-opt64]}",
            "propertyNames": {"enum": ["ascon-aead128", "aes-128-gcm"]},
            "additionalProperties": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "string"},
            },
        },
    },
}

BACKEND = Backend(
    name="seq",
    kind="native",
    order=10,
    impls=CPU_IMPLS,
    traits={"": ("impl-dispatch", "native")},
    label=_label,
    config=CONFIG,
)
