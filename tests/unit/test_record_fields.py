"""The record's timing fields have one definition, the record schema's ``t_*``
properties (:mod:`ciphersweep.core.record_fields`): the C kernels' list
(``CS_TIMINGS`` in kernels/src/timings.h) and what their records carry, the Python-side
kernels' records, the config schema's table values and the package's lists all equal
it, in its order."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ciphersweep.core import paths, record_fields, yamlfile
from ciphersweep.job import kernel_user
from ciphersweep.plan import catalogue
from ciphersweep.verdict import records
from support import KERNELS

SCHEMA_TIMINGS = (
    "t_total",
    "t_compute",
    "t_keyexp",
    "t_h2d",
    "t_d2h",
    "t_bcast",
    "t_scatter",
    "t_gather",
)


def _timings_of(rec: dict[str, Any]) -> tuple[str, ...]:
    return tuple(k for k in rec if k.startswith("t_"))


def test_timings_are_the_record_schemas_t_fields_in_order() -> None:
    props = record_fields.schema()["properties"]
    assert record_fields.TIMINGS == SCHEMA_TIMINGS
    assert all(t in props for t in record_fields.TIMINGS)
    assert set(record_fields.schema()["required"]) >= {"t_total", "t_compute"}


def test_c_list_is_the_schemas(tmp_path: Path) -> None:
    """CS_TIMINGS itself, compiled: the names it expands to, in its order."""
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "no C compiler (the kernels need one)"
    src = tmp_path / "list.c"
    src.write_text(
        '#include <stdio.h>\n#include "timings.h"\n'
        "int main(void) {\n"
        "    cs_timings t;\n"
        "    cs_timings_unset(&t);\n"
        '#define SHOW(f) printf("%s %d\\n", #f, isnan(t.f) ? 1 : 0);\n'
        "    CS_TIMINGS(SHOW)\n"
        "    return 0;\n}\n"
    )
    exe = tmp_path / "list"
    inc = paths.PROJECT / "kernels" / "src"
    subprocess.run(
        [
            cc,
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{inc}",
            str(src),
            "-o",
            str(exe),
            "-lm",
        ],
        check=True,
    )
    lines = subprocess.run(
        [str(exe)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert tuple(lines[0::2]) == record_fields.TIMINGS
    assert set(lines[1::2]) == {"1"}  # every timing unset (null) until measured


@pytest.mark.parametrize("batch", [[], ["--batch", "2"]])
def test_c_kernel_records_carry_every_timing_in_order(batch: list[str]) -> None:
    binary = KERNELS / "aes-seq"
    if not binary.exists():
        pytest.fail("kernels not built (run scripts/build-kernels.sh build/kernels)")
    out = subprocess.run(
        [str(binary), "--size", "1KiB", "--reps", "2", *batch],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    recs = [json.loads(line) for line in out.splitlines()]
    assert recs
    for rec in recs:
        assert _timings_of(rec) == record_fields.TIMINGS
        assert rec["t_total"] > 0 and rec["t_h2d"] is None  # no copies on a CPU


def test_python_kernel_records_carry_every_timing(tmp_path: Path) -> None:
    data = tmp_path / "in.bin"
    data.write_bytes(bytes(range(64)))
    env = {**os.environ, "PYTHONPATH": str(paths.WORKFLOW)}
    argv = [sys.executable, "-m", "ciphersweep.job.kernel_purepy"]
    argv += ["--cipher", "aes-128-ecb", "--input", str(data), "--reps", "2"]
    argv += ["--warmup", "0", "--energy", "none"]
    out = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
    recs = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(recs) == 2
    for rec in recs:
        assert set(_timings_of(rec)) == set(record_fields.TIMINGS)
        assert rec["t_total"] > 0 and rec["t_bcast"] is None
        assert rec[record_fields.GPU] == 0


def _enum_timings(enum: list[str]) -> tuple[str, ...]:
    return tuple(v for v in enum if v.startswith("t_"))


def test_config_schema_table_values_name_every_timing() -> None:
    with open(paths.SCHEMAS / "config.schema.yaml") as fh:
        cfg = yamlfile.safe_load(fh)
    layout = cfg["$defs"]["layout"]["properties"]
    measure = layout["measures"]["items"]["properties"]
    assert _enum_timings(layout["value"]["enum"]) == record_fields.TIMINGS
    assert _enum_timings(measure["value"]["enum"]) == record_fields.TIMINGS


def test_package_lists_are_derived_from_the_schema() -> None:
    assert catalogue.TIMES_ALL == record_fields.TIMINGS
    assert records.NUMERIC[: len(record_fields.TIMINGS)] == record_fields.TIMINGS
    assert ("t_total", *kernel_user._PARTS) == record_fields.TIMINGS
    assert all(t in catalogue.LAYOUT_UNITS for t in record_fields.TIMINGS)
