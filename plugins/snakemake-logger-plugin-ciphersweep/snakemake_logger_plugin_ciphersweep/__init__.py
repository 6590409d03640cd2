"""Quiet console for ciphersweep campaigns (a Snakemake logger plugin).

Instead of Snakemake's block per job (rule, input list, output, resources, shell
command), a campaign shows one progress line::

    [########------------] 12/29 points, 1 failed, 00:41 elapsed, ~01:02 left (bench pack-...)

On a terminal the line is redrawn in place; in a log file (no terminal) a new line is
written every tenth of the campaign, and at least every 30 seconds while points finish.
Warnings, errors and failed jobs are printed as they come (a failed job whose error
the workflow words as one line is that line, without file and line frames); the
workflow's own summary (a log record carrying ``ciphersweep="summary"``) is printed
at the end. The points come from the workflow's own log records: ``ciphersweep="plan"``
(how many points the run measures) and ``ciphersweep="point"`` (a point has its
records; ``failure``: why it failed, or None).

The progress line is asked for with ``--logger-ciphersweep-progress`` (the campaign
profiles set it). Without it, and with ``--verbose``, ``--printshellcmds`` (``-p``),
``--debug-dag`` or a dry run, the console is Snakemake's usual output (long input lists
shortened, no ``Shell command: None`` lines), except that an error carrying the
workflow's own one-line message is that line alone: a mistake in the campaign config
reads the same with or without a profile. A dry run without ``--verbose`` (``-p``,
``--debug-dag``) is a screenful at any size: the workflow's plan summary (what runs,
counted per backend, shape and reason, the first and last point), Snakemake's job
counts once and its reasons per rule, without Snakemake's run header, a block per job
or a line per point.
"""

# (no `from __future__ import annotations`: Snakemake reads the settings field types)

import logging
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from snakemake_interface_logger_plugins.base import LogHandlerBase
from snakemake_interface_logger_plugins.common import LogEvent
from snakemake_interface_logger_plugins.settings import LogHandlerSettingsBase

from snakemake_logger_plugin_ciphersweep import before_run

BENCH_RULE = "bench"
BAR_WIDTH = 20
LOG_EVERY_S = 30.0
MAX_LISTED_FILES = 6
# Snakemake's message when every requested file is up to date (shown as it is)
NOTHING_TO_DO = "Nothing to be done"
# A failed job's error as the workflow words it: a line of its own in Snakemake's
# exception report, which the console shows alone (no file and line frames).
OWN_LINE = "ciphersweep: "
# An interrupted run (Ctrl-C, a hang-up, SIGTERM) ends with the workflow's one line
# (its summary, a record carrying ``interrupted``). The lines of the jobs it stopped
# (the workflow's own, starting so) wait for it and are not shown then, nor are the
# failed-job lines, the outputs put back and Snakemake's closing error that follow an
# interruption.
INTERRUPTED = "ciphersweep: interrupted"
AFTERMATH = (
    "At least one job did not complete successfully",
    "Exiting because a job execution failed",
    "Restored previous version of",
)
# Snakemake's reasons per rule point to the per-job blocks, which a dry run's summary
# leaves out: the line says where they are
JOBS_ABOVE = "(check individual jobs above for details)"
JOBS_VERBOSE = "(every job with its reason: --verbose)"


def condensed(text: str) -> str | None:
    """What the console shows of a warning or error (None: nothing).

    Snakemake's "Cannot restore <file>: no backup found." after a failed job that had
    no previous output says nothing a user can act on (there was nothing to keep);
    an exception report that carries the workflow's own one-line message is that
    line alone, and so is one of what stopped Snakemake before the workflow ran
    (:mod:`.before_run`)."""
    if text.startswith("Cannot restore ") and text.rstrip().endswith(
        "no backup found."
    ):
        return None
    own = _own_message(text)
    if own and ("Exception" in text or "Error" in text):
        return own
    early = before_run.one_line(text) if "Error" in text else None
    if early:
        return early
    if "Write-protected output files for rule" in text:
        return _protected(text)
    return text


def _own_message(text: str) -> str | None:
    """The workflow's own message in an exception report: its first line and the
    lines that follow it (e.g. one per regressed cell), up to a blank line or the
    first frame."""
    lines = text.splitlines()
    start = next(
        (i for i, ln in enumerate(lines) if ln.strip().startswith(OWN_LINE)), None
    )
    if start is None:
        return None
    out = [lines[start].strip()]
    for ln in lines[start + 1 :]:
        if not ln.strip() or ln.lstrip().startswith(('File "', "Traceback")):
            break
        out.append(ln.strip())
    return "\n".join(out)


def _protected(text: str) -> str:
    """Snakemake's report of outputs it cannot write (a read-only directory or
    write-protected files) as one line."""
    lines = text.splitlines()
    head = next(ln for ln in lines if "Write-protected output files for rule" in ln)
    rule = head.split("for rule", 1)[1].strip(" :")
    at = next((i for i, ln in enumerate(lines) if "affected files:" in ln), len(lines))
    files = [ln.strip() for ln in lines[at + 1 :] if ln.strip()]
    more = (
        f" and {len(files) - 1} more output(s) of rule {rule}" if len(files) > 1 else ""
    )
    first = files[0] if files else f"the outputs of rule {rule}"
    return (
        f"{OWN_LINE}cannot write {first}{more}: read-only or write-protected "
        "(the previous results are kept)"
    )


def clock(seconds: float) -> str:
    """Seconds as ``mm:ss`` (``h:mm:ss`` from one hour)."""
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


@dataclass
class Progress:
    """What the progress line shows."""

    points_total: int = 0
    points_planned: int | None = None
    jobs_total: int = 0
    points_done: int = 0
    jobs_done: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    bench_started: float | None = None
    current: str = ""

    def eta(self, now: float) -> str:
        if not self.points_total:
            return ""
        left = self.points_total - self.points_done
        if left <= 0:
            return ""
        if not self.points_done or self.bench_started is None:
            return ", estimating time left"
        per_point = (now - self.bench_started) / self.points_done
        return f", ~{clock(per_point * left)} left"

    def line(self, now: float) -> str:
        if self.points_total:
            done, total, what = self.points_done, self.points_total, "points"
        else:
            done, total, what = self.jobs_done, max(self.jobs_total, 1), "jobs"
        filled = int(BAR_WIDTH * done / total) if total else BAR_WIDTH
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        text = (
            f"[{bar}] {done}/{total} {what}, {len(self.failures)} failed, "
            f"{clock(now - self.started)} elapsed{self.eta(now)}"
        )
        return text + (f" ({self.current})" if self.current else "")


def _describe(rule: str, wildcards: Any) -> str:
    if rule == BENCH_RULE and isinstance(wildcards, dict) and "pack" in wildcards:
        return f"bench {wildcards['pack']}"
    return rule.replace("_", " ")


@dataclass
class LogHandlerSettings(LogHandlerSettingsBase):
    """``--logger-ciphersweep-progress``: the progress line instead of Snakemake's
    per-job output."""

    progress: bool = field(
        default=False,
        metadata={"help": "a progress line and a short summary instead of every job"},
    )


class LogHandler(LogHandlerBase):
    """Progress line and short messages; Snakemake's usual output when verbose."""

    def __post_init__(self) -> None:
        cs = self.common_settings
        self.verbose = bool(
            not getattr(self.settings, "progress", False)
            or getattr(cs, "verbose", False)
            or getattr(cs, "printshellcmds", False)
            or getattr(cs, "debug_dag", False)
            or getattr(cs, "dryrun", False)
        )
        # a dry run is a screenful at any size: the workflow's plan summary and
        # Snakemake's job counts, without a block per job or a line per point (those
        # with --verbose, -p or --debug-dag)
        self.dry_summary = bool(
            getattr(cs, "dryrun", False)
            and not getattr(cs, "verbose", False)
            and not getattr(cs, "printshellcmds", False)
            and not getattr(cs, "debug_dag", False)
        )
        self.stats_shown = False  # a dry run's summary shows the job counts once
        self.stream: TextIO = sys.stdout if getattr(cs, "stdout", False) else sys.stderr
        self.progress = Progress()
        self.jobs: dict[int, dict[str, Any]] = {}
        self.bar_open = False
        self.last_logged = (-1, 0.0)
        # a stopped job's line, held until the run's end says whether it was
        # interrupted (then it is not shown), and whether it was
        self.held: list[str] = []
        self.interrupted = False

    # ----------------------------------------------------------- plugin interface

    @property
    def writes_to_stream(self) -> bool:
        return True

    @property
    def writes_to_file(self) -> bool:
        return False

    @property
    def has_filter(self) -> bool:
        return False

    @property
    def has_formatter(self) -> bool:
        return False

    @property
    def needs_rulegraph(self) -> bool:
        return False

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if self.verbose:
                self._emit_verbose(record)
            else:
                self._emit_quiet(record)
        except Exception:  # noqa: BLE001 - logging never stops the workflow
            self.handleError(record)

    def close(self) -> None:
        self._flush_held()
        self._end_bar()
        super().close()

    # ----------------------------------------------------------- output

    @property
    def tty(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def _write(self, text: str) -> None:
        self._end_bar()
        self.stream.write(text.rstrip("\n") + "\n")
        self.stream.flush()

    def _end_bar(self) -> None:
        if self.bar_open:
            self.stream.write("\n")
            self.stream.flush()
            self.bar_open = False

    def _draw(self, final: bool = False) -> None:
        now = time.monotonic()
        line = self.progress.line(now)
        if self.tty:
            width = shutil.get_terminal_size((100, 20)).columns - 1
            self.stream.write("\r" + line[:width] + "\x1b[K")
            self.stream.flush()
            self.bar_open = True
            if final:
                self._end_bar()
            return
        total = self.progress.points_total or 1
        tenth = 10 * self.progress.points_done // total
        last_tenth, last_time = self.last_logged
        if final or tenth != last_tenth or now - last_time >= LOG_EVERY_S:
            self.last_logged = (tenth, now)
            self._write(line)

    # ----------------------------------------------------------- quiet mode

    def _emit_quiet(self, record: logging.LogRecord) -> None:
        event = getattr(record, "event", None)
        handler = {
            LogEvent.RUN_INFO: self._on_run_info,
            LogEvent.JOB_INFO: self._on_job_info,
            LogEvent.JOB_FINISHED: self._on_job_finished,
            LogEvent.JOB_ERROR: self._on_job_error,
            LogEvent.PROGRESS: self._on_progress,
        }.get(event)
        own = getattr(record, "ciphersweep", None)
        if handler is not None:
            handler(record)
        elif own == "plan":
            self.progress.points_planned = int(getattr(record, "points", 0))
        elif own == "point":
            self._on_point(record)
        elif own == "summary" or str(record.getMessage()).startswith(NOTHING_TO_DO):
            self._on_summary(record)
        elif record.levelno >= logging.WARNING and event not in (
            LogEvent.GROUP_ERROR,
            LogEvent.SHELLCMD,
        ):
            self._on_problem(condensed(self.format(record)))

    def _on_summary(self, record: logging.LogRecord) -> None:
        if getattr(record, "interrupted", None):
            self.interrupted = True
            self.held.clear()
        self._flush_held()
        self._write(record.getMessage())

    def _on_problem(self, text: str | None) -> None:
        """A warning or an error: shown, except what an interruption explains."""
        if not text or text == "None":
            return
        if text.startswith(INTERRUPTED):
            self.held.append(text)
            return
        if (self.held or self.interrupted) and any(c in text for c in AFTERMATH):
            return
        self._flush_held()
        self._write(text)

    def _flush_held(self) -> None:
        held, self.held = self.held, []
        for text in held:
            self._write(text)

    def _on_run_info(self, record: logging.LogRecord) -> None:
        stats = getattr(record, "stats", None) or {}
        self.progress.jobs_total = int(stats.get("total", 0))
        planned = self.progress.points_planned or 0
        benches = int(stats.get(BENCH_RULE, 0))
        if benches and not planned:
            # no plan (the run does not gather) or forced jobs: count the jobs
            n, what = benches, "job"
        else:
            n, what = planned if benches else 0, "point"
            self.progress.points_total = n
        self._write(
            f"ciphersweep: {n} benchmark {what}{'' if n == 1 else 's'} to "
            f"{'measure' if what == 'point' else 'run'} "
            f"({self.progress.jobs_total} jobs); --verbose shows every job"
        )

    def _on_job_info(self, record: logging.LogRecord) -> None:
        rule = str(getattr(record, "rule_name", ""))
        info = {
            "rule": rule,
            "output": list(getattr(record, "output", None) or []),
            "log": list(getattr(record, "log", None) or []),
            "wildcards": dict(getattr(record, "wildcards", None) or {}),
        }
        self.jobs[int(getattr(record, "jobid", -1))] = info
        if rule == BENCH_RULE and self.progress.bench_started is None:
            self.progress.bench_started = time.monotonic()
        self.progress.current = _describe(rule, info["wildcards"])
        if self.tty:
            self._draw()

    def _on_job_finished(self, record: logging.LogRecord) -> None:
        self.jobs.pop(int(getattr(record, "job_id", -1)), None)

    def _on_point(self, record: logging.LogRecord) -> None:
        """A point of a bench job has its records (``failure``: why it failed)."""
        p = self.progress
        p.points_done += 1
        if p.points_total:  # (a forced pack measures more than planned)
            p.points_total = max(p.points_total, p.points_done)
        point = str(getattr(record, "point", "?"))
        reason = getattr(record, "failure", None)
        if reason is not None:
            p.failures.append((point, str(reason)))
            self._write(f"failed: {point}: {reason}")
        self._draw()

    def _on_job_error(self, record: logging.LogRecord) -> None:
        rule = str(getattr(record, "rule_name", ""))
        jobid = int(getattr(record, "jobid", -1))
        info = self.jobs.pop(jobid, None) or {}
        logs = [str(x) for x in (getattr(record, "log", None) or [])]
        wildcards = info.get("wildcards", {})
        what = _describe(rule, wildcards)
        if self.held or self.interrupted:  # a job the interruption stopped
            return
        if rule == BENCH_RULE:
            self.progress.failures.append(
                (wildcards.get("pack", "?"), "job error (see its log)")
            )
        self._write(
            f"error: {what} failed" + (f"; log: {', '.join(logs)}" if logs else "")
        )

    def _on_progress(self, record: logging.LogRecord) -> None:
        self.progress.jobs_done = int(getattr(record, "done", 0))
        total = int(getattr(record, "total", 0))
        self.progress.jobs_total = total or self.progress.jobs_total
        final = bool(total) and self.progress.jobs_done >= total
        if final:
            self.progress.current = ""
        if final or self.tty:
            self._draw(final=final)

    # ----------------------------------------------------------- verbose mode

    def _summarised(self, record: logging.LogRecord) -> bool:
        """Whether a dry run's summary leaves ``record`` out: Snakemake's run header
        (date, host, command), a job's block, a point's line and the job counts Snakemake
        prints again after the (left out) jobs; all of them with --verbose."""
        event = getattr(record, "event", None)
        if event == LogEvent.RUN_INFO:
            shown, self.stats_shown = self.stats_shown, True
            return shown
        return (
            event in (LogEvent.WORKFLOW_STARTED, LogEvent.JOB_INFO, LogEvent.SHELLCMD)
            or getattr(record, "ciphersweep", None) == "pending"
        )

    def _emit_verbose(self, record: logging.LogRecord) -> None:
        event = getattr(record, "event", None)
        if self.dry_summary and self._summarised(record):
            return
        if event == LogEvent.SHELLCMD and not (
            getattr(record, "shellcmd", None) or getattr(record, "cmd", None)
        ):
            return  # run: rules have no shell command
        if event == LogEvent.JOB_INFO:
            files = list(getattr(record, "input", None) or [])
            if len(files) > MAX_LISTED_FILES:
                record.input = files[:3] + [f"... ({len(files) - 3} more)"]
        text = self.format(record)
        if self.dry_summary:
            text = text.replace(JOBS_ABOVE, JOBS_VERBOSE)
        stream = self.stream
        if getattr(record, "exception", None):  # an exception report: on stderr
            own = _own_message(text) or before_run.one_line(text)
            text, stream = own or text, sys.stderr
        if text and text != "None":
            stream.write(text + "\n")
            stream.flush()
