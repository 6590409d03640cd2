"""The record schema (``workflow/schemas/record.schema.yaml``) as data, and the field
names the package derives from it: THE one place they are written on the Python side.

* :data:`TIMINGS`: the timing fields ``t_*`` of a record, in the schema's order (the
  C kernels write the same list, ``CS_TIMINGS`` in ``kernels/src/timings.h``; tests
  hold the two, and the config schema's table values, to it).
* :data:`GPU`: the record's name for the number of GPUs a repetition used. Records say
  ``gpu`` (the schema's name since version 1, which users' records keep); everything
  the plan makes (points, fingerprints, ``summary.csv``, the history) says ``gpus``,
  as the campaign's keys do. A record is made from a point with ``GPU`` as its key, and
  that is the only place the two names meet.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ciphersweep.core import paths, yamlfile

RECORD_SCHEMA = paths.SCHEMAS / "record.schema.yaml"

# the number of GPUs: the record's field (the plan's name is ``gpus``)
GPU = "gpu"


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The record schema, read once."""
    with open(RECORD_SCHEMA) as fh:
        return yamlfile.safe_load(fh)


def _timings() -> tuple[str, ...]:
    return tuple(k for k in schema()["properties"] if k.startswith("t_"))


# the timing fields t_total, t_compute, t_keyexp, ... (seconds; null: does not apply)
TIMINGS: tuple[str, ...] = _timings()
