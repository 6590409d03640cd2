"""Where the package sits in the project: THE place paths relative to the source tree
are derived from (the schemas, the project root, the Python-side kernels)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
"""``workflow/ciphersweep``."""
WORKFLOW = PACKAGE.parent
"""``workflow``: the directory on ``PYTHONPATH`` for the Python-side kernels."""
PROJECT = WORKFLOW.parent
"""The project root (``Snakefile``, ``kernels/``, ``config/``)."""
SCHEMAS = WORKFLOW / "schemas"
KERNEL_PACKAGE = "ciphersweep.job"
"""The package holding the Python-side kernels (``python -m ciphersweep.job.kernel_X``)."""


def python_kernel(module: str) -> Path:
    """The source file of a Python-side kernel module (``kernel_command`` ...)."""
    return PACKAGE / "job" / f"{module}.py"


def verdict_sources() -> list[Path]:
    """The files whose code decides whether a record is admitted: the record schema,
    its validation, the fingerprint comparison, admission and gathering. Their digest
    is a parameter of the gather step, so a change to any of them judges every raw
    file again (Snakemake follows a rule's own code, not the code it calls)."""
    files = sorted((PACKAGE / "verdict").glob("*.py"))
    files += [PACKAGE / "plan" / "fingerprint.py", PACKAGE / "job" / "record_schema.py"]
    files += [PACKAGE / "core" / "record_fields.py"]  # the schema's field lists
    files += [PACKAGE / "backends" / "codepath.py"]  # the summary's code-path columns
    return [*files, SCHEMAS / "record.schema.yaml"]
