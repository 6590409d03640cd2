"""The record schema's two validators give one verdict: the compiled check that admits
records (fastjsonschema) and jsonschema, which names what is wrong. Real records of
the seq (AES and Ascon) and OpenSSL kernels, and each of them broken one field at a
time in every way the schema's keywords can refuse, must be judged alike."""

from __future__ import annotations

import copy
import json
import subprocess
from typing import Any

import pytest
from ciphersweep.core import record_fields
from ciphersweep.job import record_schema
from support import KERNELS

BAD_VALUES: list[Any] = [
    None,
    "text",
    "",
    -1,
    0,
    1,
    1.0,
    1.5,
    -0.5,
    1e300,
    True,
    False,
    [],
    {},
    "first",
    "rerun 0123",
    "sha256:" + "0" * 64,
    "0" * 64,
]


def _kernel_records() -> list[dict[str, Any]]:
    runs = [
        ["aes-seq", "--impl", "ttable", "--size", "1KiB", "--reps", "2"],
        ["aes-seq", "--impl", "ref", "--mode", "ecb", "--op", "decrypt"],
        ["aes-seq", "--cipher", "ascon-aead128", "--impl", "ascon-ref", "--size", "9"],
        ["aes-openssl", "--cipher", "aes-256-gcm", "--size", "100B", "--reps", "2"],
    ]
    recs = []
    for argv in runs:
        binary = KERNELS / argv[0]
        if not binary.exists():
            pytest.fail(
                "kernels not built (run scripts/build-kernels.sh build/kernels)"
            )
        out = subprocess.run(
            [str(binary), *argv[1:]], capture_output=True, text=True, check=True
        ).stdout
        # one record of each run: its other repetitions' records hold the same fields
        # with other timings, and judging their variants again costs seconds
        rec = json.loads(out.splitlines()[0])
        rec.update(point="p", status="ok", attempt="first", campaign="c")
        recs.append(rec)
    return recs


def _jsonschema_ok(rec: dict[str, Any]) -> bool:
    return record_schema._record_validator().is_valid(rec)


def _compiled_ok(rec: dict[str, Any]) -> bool:
    try:
        record_schema._record_check()(rec)
    except record_schema.fastjsonschema.JsonSchemaException:
        return False
    return True


def _variants(rec: dict[str, Any]) -> list[dict[str, Any]]:
    """The record, and the record with one field changed, dropped or added."""
    schema = record_fields.schema()
    fields = set(schema["properties"]) | set(rec)
    out = [rec]
    for name in sorted(fields):
        for value in BAD_VALUES:
            changed = copy.deepcopy(rec)
            changed[name] = value
            out.append(changed)
        dropped = {k: v for k, v in rec.items() if k != name}
        out.append(dropped)
    out.append({**rec, "no_such_field": 1})
    return out


def test_the_compiled_check_and_jsonschema_agree_on_every_variant() -> None:
    recs = _kernel_records()
    seen = {True: 0, False: 0}
    disagree = []
    for i, rec in enumerate(recs):
        for v in _variants(rec):
            want = _jsonschema_ok(v)
            seen[want] += 1
            if _compiled_ok(v) != want:
                diff = {k for k in set(v) | set(rec) if v.get(k, rec) != rec.get(k, v)}
                disagree.append((want, {k: v.get(k, "(dropped)") for k in diff}))
            if i == 0:  # a reason exactly for a refused record
                reason = record_schema.validate_record(v)
                assert (reason is None) == want, (reason, want)
    assert disagree == []
    # both verdicts occur often: the variants exercise the schema, not one branch
    assert seen[True] > 100 and seen[False] > 1000, seen


def test_a_refused_record_names_the_field() -> None:
    rec = _kernel_records()[0]
    rec["t_total"] = -1.0
    assert record_schema.validate_record(rec).startswith("t_total: ")
    del rec["t_total"]
    assert "'t_total' is a required property" in record_schema.validate_record(rec)
