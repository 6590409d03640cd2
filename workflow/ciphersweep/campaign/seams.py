"""THE place the workflow reads Snakemake beyond its documented interfaces.

Snakemake documents a Snakefile's directives, ``config``, ``workflow.basedir`` and its
logger. The campaign needs a few more facts about the run it is part of; no documented
interface gives them, so each is read here and nowhere else, with why:

* ``workflow.is_main_process``: the plan is reported, stale locks released and the
  preflight checks made once, by the process the user started, not by every job
  process Snakemake starts (Slurm jobs parse the workflow again).
* ``workflow.local_exec``: the preflight's memory check holds for points that run on
  this machine, not on a cluster's nodes.
* ``workflow.touch``: a ``--touch`` run measures nothing; the plan says so (known
  once the DAG is built, not while the workflow is parsed).
* ``workflow.persistence.path``: the run names itself beside Snakemake's own lock
  (ciphersweep.campaign.lock), so that a run killed outright can be told from a live one.
* ``workflow.global_resources`` / ``register_resource``: benchmark jobs never overlap
  (``bench=1``) unless ``--resources`` says otherwise, also when the command line gives
  no profile.

Three more seams, each in the module that needs it and saying why there: the
command line's ``--configfile`` read again to replace the default campaign instead of
merging into it (ciphersweep.plan.campaign_source), Snakemake's scheduler timers
cancelled so that a finished run ends at once (ciphersweep.campaign.ending), and a
hang-up turned into Snakemake's own interruption (ciphersweep.campaign.hangup).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Run:
    """What the campaign needs to know of the Snakemake run it is part of."""

    main: bool  # the process the user started
    local: bool  # jobs run on this machine


def run_facts(workflow: Any) -> Run:
    """The run's facts, from Snakemake's ``workflow`` object."""
    return Run(
        main=bool(workflow.is_main_process),
        local=bool(workflow.local_exec),
    )


def touching(workflow: Any) -> bool:
    """A --touch run: jobs are marked done, nothing is measured (ask when a job's
    parameters are worked out: while the workflow is parsed it is not set yet)."""
    return bool(workflow.touch)


def lock_dir(workflow: Any) -> Path:
    """Snakemake's lock folder (known once the run has started: onstart)."""
    return Path(workflow.persistence.path) / "locks"


def bench_resource(workflow: Any) -> None:
    """One benchmark job at a time unless ``--resources bench=N`` says otherwise (the
    Slurm profile scopes ``bench`` local: inside each allocation)."""
    if "bench" not in workflow.global_resources:
        workflow.register_resource("bench", 1)
