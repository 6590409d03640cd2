# Glue between Snakemake and the campaign object (ciphersweep.campaign.model.Campaign,
# everything the rules ask about the campaign), built once here from the validated
# config. What is Snakemake's own (logger, errors, resources, flags) stays here.
import gc
import os
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

# What is made before this file runs (Snakemake's modules, the command line) lives as
# long as the run: frozen, the garbage collector stops walking it at each of its passes
# (a tenth of a second of a parse). The rest is frozen when the run ends
# (ciphersweep.campaign.ending).
gc.freeze()

PROJECT = Path(workflow.basedir)
sys.path.insert(0, str(PROJECT / "workflow"))

from ciphersweep.campaign import hangup as cs_hangup  # noqa: E402
from ciphersweep.campaign import seams as cs_seams  # noqa: E402

# what the campaign needs to know of this Snakemake run (ciphersweep.campaign.seams)
RUN = cs_seams.run_facts(workflow)
if RUN.main:
    # first, before the campaign's modules are imported (a second of a parse): a
    # closed terminal ends the run like Ctrl-C (lock released; the same command
    # continues), not with the default SIGHUP death that leaves the lock behind;
    # Ctrl-C, a hang-up or SIGTERM ends it with one line (ciphersweep.campaign.hangup)
    cs_hangup.interrupts_recorded()
    cs_hangup.one_line_interrupts()

from ciphersweep.analysis.history import outputs as cs_history  # noqa: E402
from ciphersweep.campaign import console as cs_console  # noqa: E402
from ciphersweep.campaign import ending as cs_ending  # noqa: E402
from ciphersweep.campaign import lock as cs_lock  # noqa: E402
from ciphersweep.campaign import model as cs_model  # noqa: E402
from ciphersweep.campaign import preflight as cs_preflight  # noqa: E402
from ciphersweep.core import wording as cs_wording  # noqa: E402
from ciphersweep.plan import campaign_source as cs_source  # noqa: E402
from ciphersweep.plan import config as cs_config  # noqa: E402


def say(level, message, extra):
    """The campaign's lines in the run's log (the console plugin shows them)."""
    getattr(logger, level)(message, extra=extra or None)


# The campaign: config/config.yaml, or the files given with --configfile, which
# describe a whole campaign and replace the default instead of being merged into it;
# --config KEY=VALUE overrides single keys of either (ciphersweep.plan.campaign_source).
# The Snakefile has no configfile: directive, so Snakemake's `config` holds exactly
# what the command line gave; it is read, never changed.
CAMPAIGN_FILES = cs_source.campaign_files(sys.argv[1:])
try:
    _raw = cs_source.from_command_line(config, sys.argv[1:])
    CFG = cs_config.validate(_raw, root=PROJECT, workdir=Path.cwd())
except cs_config.ConfigError as exc:
    # no job started; the console (profiles/default) shows the one line naming the key
    # and what is allowed, without Snakemake's frame lines
    raise WorkflowError(cs_config.format_error(exc)) from None
C = cs_model.Campaign(
    CFG,
    cs_model.Place(PROJECT, Path.cwd(), dict(os.environ), sys.executable),
    say=say,
    main=RUN.main,
    touch=lambda: cs_seams.touching(workflow),
)
RES = C.res

# Benchmark jobs never overlap (bench=1 unless --resources says otherwise); under Slurm
# inside each allocation, packed points one after another.
cs_seams.bench_resource(workflow)

if RUN.main:
    # the lock of a run killed outright (kill -9) whose processes are gone is released
    # before Snakemake takes its own; this run's processes carry its name
    # (ciphersweep.campaign.lock)
    _released = cs_lock.release_stale()
    cs_lock.mark_run()
    if _released:
        logger.warning(_released)
    # before any job: the result paths can be written, every point's buffers fit in
    # this machine's memory (local runs) and OpenSSL has every cipher (it only reads)
    try:
        cs_preflight.check(CFG, C.point_list, C.preflight_paths(), local=RUN.local)
    except cs_config.ConfigError as exc:
        raise WorkflowError(cs_config.format_error(exc)) from None


def pack_inputs(wildcards):
    """A bench job's inputs: plain, and ancient while its points' records hold
    (ciphersweep.campaign.expectations.Expectations.pack_inputs)."""
    if wildcards.pack not in C.packs:
        raise WorkflowError(f"ciphersweep: unknown pack {wildcards.pack!r}")
    plain, aged = C.pack_inputs(wildcards.pack)
    return {"data": plain, "kernels": [ancient(f) for f in aged]}


def pack_res(name):
    """A bench job's resource ``name``: its pack's (ciphersweep.plan.resources)."""
    return lambda wildcards: C.pack_resources[wildcards.pack][name]


# What the report captions say the cells rest on (statistic, levels, repetitions as they
# ran): a parameter read from summary.csv only when `snakemake --report` renders a
# caption; no plain value, so it never makes a job run again (ciphersweep.core.wording).
CAPTION_BASIS = cs_wording.FromSummary(CFG, f"{RES}/summary.csv")


def table_report(f):
    """Report entry of a table's CSV file, in its section."""
    caption, category, name = C.table_section(f)
    return report(update(f), caption=caption, category=category, subcategory=name)


def history_step(output, fn, *args):
    """A history step; a store or results it cannot use are one line."""
    try:
        return cs_console.write_step(output, fn, *args)
    except cs_history.PROBLEMS as exc:
        raise WorkflowError(f"ciphersweep: {exc}") from None


def fail_if(message):
    """A verdict that fails the run (compare.on_violation, the history gate)."""
    if message:
        raise WorkflowError(message)


def warn(lines):
    """Verdict lines that do not fail the run (references, inconclusive cells)."""
    for line in lines:
        logger.warning(line)


def campaign_summary(ok):
    """Log the end-of-campaign summary (printed by the console plugin as it is); the
    process then ends when its work does (ciphersweep.campaign.ending). A finished
    campaign that measured nothing ends with that line and exit status 1."""
    C.drawing.close()
    signame = cs_hangup.received()
    if signame:  # an interrupted run: one line
        line = cs_hangup.interrupted_line(signame, f"during campaign {C.name}")
        logger.info(line, extra={"ciphersweep": "summary", "interrupted": signame})
        cs_ending.end_promptly()
        return
    command = cs_console.report_command(C.report_file, CAMPAIGN_FILES)
    lines = cs_console.summary_lines(RES, C.report_file, command, ok=ok, cfg=CFG)
    logger.info("\n".join(lines), extra={"ciphersweep": "summary"})
    cs_ending.end_promptly()
    fail_if(cs_console.nothing_measured(RES) if ok else None)
