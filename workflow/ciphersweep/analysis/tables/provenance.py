"""The report's provenance section as a table (field, value): hardware, software
versions, the project's revision, the image and the Slurm jobs of a campaign, from the
records (ciphersweep.job.provenance collects them)."""

from __future__ import annotations

from ciphersweep.analysis.tables.model import Builder, Context, Table
from ciphersweep.analysis.tables.provenance_rows import provenance_rows
from ciphersweep.job.hostfacts import host_facts


def build_provenance_table(ctx: Context) -> Table:
    """The report's provenance section as a table (field, value); the host facts are
    the context's (the run's), or taken here."""
    meas = getattr(ctx, "measurements", None)
    records = meas if meas is not None and len(meas) else []
    rows = provenance_rows(records, host_facts() if ctx.facts is None else ctx.facts)
    return Table(
        "provenance",
        "Provenance: hardware, software versions, project revision, image and jobs of this campaign",
        [label for label, _ in rows],
        ["value"],
        {(label, "value"): value for label, value in rows},
        row_header="field",
        caption="Where and with what the campaign ran: hardware, software versions, the "
        "project's git revision, the container image and the Slurm jobs, taken from the "
        "records of every repetition (several values are listed where records differ); "
        "fields no record carries come from the machine that made the report.",
    )


BUILDERS = [Builder("provenance", build_provenance_table)]
