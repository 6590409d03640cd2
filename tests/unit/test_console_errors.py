"""Errors a run ends with, as the console shows them: a step that cannot write its
results is one line naming the file and the reason; Snakemake's reports around it are
condensed to that line, and its "no backup found" notes (nothing to keep) are dropped."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from ciphersweep.campaign import console
from snakemake_logger_plugin_ciphersweep import condensed


def _fails(exc: OSError) -> None:
    raise exc


def test_write_step_names_the_file_and_the_reason(tmp_path: Path) -> None:
    err = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "t.csv"))
    with pytest.raises(console.ResultsError) as got:
        console.write_step([str(tmp_path / "t.csv")], _fails, err)
    msg = str(got.value)
    assert "\n" not in msg
    assert msg.startswith(f"ciphersweep: cannot write {tmp_path / 't.csv'}: ")
    assert "No space left on device" in msg


def test_write_step_without_a_file_names_the_outputs_directory() -> None:
    err = OSError(errno.EROFS, "Read-only file system")
    outs = ["results/c/tables/time.csv", "results/c/tables/time.md"]
    with pytest.raises(
        console.ResultsError, match="cannot write results/c/tables: Read-only"
    ):
        console.write_step(outs, _fails, err)


def test_write_step_passes_results_and_other_errors() -> None:
    assert console.write_step([], lambda a, b: a + b, 1, 2) == 3
    with pytest.raises(ValueError):
        console.write_step([], _fails_value)


def _fails_value() -> None:
    raise ValueError("a bug is not a disk fault")


RULE_EXCEPTION = (
    "RuleException:\n"
    'ResultsError in file "/p/workflow/rules/analyse.smk", line 50:\n'
    "ciphersweep: cannot write results/c/tables/time.csv: No space left on device\n"
    '  File "/p/workflow/rules/analyse.smk", line 50, in __rule_tables\n'
    '  File "/p/workflow/ciphersweep/campaign/console.py", line 70, in write_step\n'
)


def test_a_rule_exception_with_the_workflows_line_is_that_line() -> None:
    assert condensed(RULE_EXCEPTION) == (
        "ciphersweep: cannot write results/c/tables/time.csv: No space left on device"
    )


def test_no_backup_notes_are_dropped_and_other_text_kept() -> None:
    assert (
        condensed("Cannot restore results/c/tables/time.csv: no backup found.") is None
    )
    other = 'RuleException:\nKeyError in file "x", line 3:\n\'k\'\n  File "x", line 3'
    assert condensed(other) == other  # a bug keeps its frames


def test_write_protected_outputs_are_one_line() -> None:
    text = (
        'ProtectedOutputException in rule tables in file "/p/analyse.smk", line 44:\n'
        "Write-protected output files for rule tables:\n"
        "    output: results/c/tables/time.csv, results/c/tables/time.md\n"
        "    affected files:\n"
        "        results/c/tables/time.csv\n"
        "        results/c/tables/time.md\n"
    )
    line = condensed(text)
    assert line is not None and "\n" not in line
    assert line.startswith(
        "ciphersweep: cannot write results/c/tables/time.csv and 1 more"
    )
    assert "rule tables" in line and "read-only" in line
