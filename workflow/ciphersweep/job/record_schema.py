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

import jsonschema
import yaml

from ciphersweep.core import paths

RECORD_SCHEMA = paths.SCHEMAS / "record.schema.yaml"

# The records' ``attempt`` field of a point measured for the first time (a point
# measured again carries ``rerun <digest>``, :func:`ciphersweep.verdict.admission.replan`).
FIRST = "first"


@lru_cache(maxsize=1)
def _record_validator() -> Any:
    with open(RECORD_SCHEMA) as fh:
        return jsonschema.Draft202012Validator(yaml.safe_load(fh))


def validate_record(rec: dict[str, Any]) -> str | None:
    """None when the record matches the record schema, else a one-line reason."""
    err = next(iter(_record_validator().iter_errors(rec)), None)
    if err is None:
        return None
    where = ".".join(str(p) for p in err.absolute_path) or "record"
    return f"{where}: {err.message}"
