"""The console of an interrupted run: one line, however many jobs the interruption
stopped; a kernel stopped from outside in a run that goes on is still shown."""

from __future__ import annotations

import io
import logging

from snakemake_interface_logger_plugins.common import LogEvent
from snakemake_logger_plugin_ciphersweep import LogHandler
from support import console
from support import log_record as _rec

STOPPED = (
    'RuleException:\nInterrupted in file "/x/bench.smk", line 48:\n'
    "ciphersweep: interrupted: ssl-1KiB: the kernel was stopped by SIGINT (its "
    "previous records are kept; the same command measures it)\n"
    '  File "/x/bench.smk", line 48, in __rule_bench\n'
    '  File "/x/packs.py", line 80, in run_pack'
)
END = "ciphersweep: interrupted by SIGINT during campaign t: what was finished is kept"


def _console() -> tuple[LogHandler, io.StringIO]:
    h, out = console()
    h.setFormatter(logging.Formatter("%(message)s"))
    return h, out


def _stopped_bench_job(h: LogHandler) -> None:
    job = {"rule_name": "bench", "wildcards": {"pack": "pack-1"}}
    h.emit(_rec(LogEvent.JOB_INFO, jobid=3, output=["packs/pack-1.txt"], **job))
    h.emit(_rec(LogEvent.ERROR, logging.ERROR, STOPPED, exception="RuleException"))
    h.emit(_rec(LogEvent.JOB_ERROR, logging.ERROR, "", jobid=3, log=["p.log"], **job))
    h.emit(
        _rec(
            None,
            logging.WARNING,
            "Restored previous version of packs/pack-1.txt (updating job failed).",
        )
    )


def test_an_interrupted_run_prints_one_line() -> None:
    h, out = _console()
    _stopped_bench_job(h)
    h.emit(_rec(None, msg=END, ciphersweep="summary", interrupted="SIGINT"))
    closing = "WorkflowError:\nAt least one job did not complete successfully."
    h.emit(_rec(LogEvent.ERROR, logging.ERROR, closing, exception="WorkflowError"))
    h.close()
    assert out.getvalue() == END + "\n"


def test_a_kernel_stopped_from_outside_in_a_run_that_goes_on_is_shown() -> None:
    h, out = _console()
    _stopped_bench_job(h)
    h.emit(_rec(None, logging.WARNING, "ciphersweep: warning: busy machine"))
    h.emit(_rec(None, msg="ciphersweep: campaign t stopped", ciphersweep="summary"))
    h.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("ciphersweep: interrupted: ssl-1KiB: the kernel was")
    assert lines[1:] == [
        "ciphersweep: warning: busy machine",
        "ciphersweep: campaign t stopped",
    ]


def test_a_held_line_is_not_lost_when_the_run_ends_without_a_summary() -> None:
    h, out = _console()
    _stopped_bench_job(h)
    h.close()
    assert out.getvalue().splitlines() == [STOPPED.splitlines()[2]]
