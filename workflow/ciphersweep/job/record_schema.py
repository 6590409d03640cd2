"""The record contract between the kernels and the orchestrator: a record checked
against ``workflow/schemas/record.schema.yaml``, and the ``attempt`` token of a point
measured for the first time.

Every kernel (C or Python-side) writes records of this schema; the bench job refuses a
kernel's records that do not match it (:mod:`ciphersweep.job.kernel_process`) and admission
refuses a raw file's (:mod:`ciphersweep.verdict.admission`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import fastjsonschema
import jsonschema

from ciphersweep.core.record_fields import schema

# The records' ``attempt`` field of a point measured for the first time (a point
# measured again carries ``rerun <digest>``, :func:`ciphersweep.verdict.admission.replan`).
FIRST = "first"


@lru_cache(maxsize=1)
def _record_validator() -> Any:
    return jsonschema.Draft202012Validator(schema())


@lru_cache(maxsize=1)
def _record_check() -> Any:
    """The schema compiled to Python (fastjsonschema): about 50 us a record where
    jsonschema takes about 700 us, and a finished campaign holds tens of thousands of
    records that every run judges again. The schema uses only keywords whose meaning
    no draft changed (type, properties, required, enum, const, minimum, maximum,
    pattern, additionalProperties); tests/unit/test_record_schema.py holds the two
    validators to the same verdicts."""
    return fastjsonschema.compile(schema())


def validate_record(rec: dict[str, Any]) -> str | None:
    """None when the record matches the record schema, else a one-line reason
    (jsonschema's, which names the field)."""
    try:
        _record_check()(rec)
        return None
    except fastjsonschema.JsonSchemaException:
        pass
    err = next(iter(_record_validator().iter_errors(rec)), None)
    if err is None:  # pragma: no cover - the test holds the two to one verdict
        return "record: refused by the compiled schema check"
    where = ".".join(str(p) for p in err.absolute_path) or "record"
    return f"{where}: {err.message}"
