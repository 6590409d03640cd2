"""Measured cells side by side with a reference (config key ``compare``): a study's
published numbers and its stated findings as claims, another campaign's results, or
performance references with tolerances.

* :mod:`.files` — the published-numbers CSV and the claims YAML: format and checks;
* :mod:`.intervals` — factor, difference and mean of measured values with intervals;
* :mod:`.sources` — where a measured value comes from (summary, sizes, two cells);
* :mod:`.published` — printed cells next to measured ones, ratios, rank agreement;
* :mod:`.claims` — the study's findings and their verdicts;
* :mod:`.campaign` — another campaign's results, cell by cell;
* :mod:`.references` — performance references with bounds;
* :mod:`.output` — the ``compare`` rule's CSV and Markdown files;
* :mod:`.tables` — the ``published`` and ``claims`` tables of the report.

The published data format and the claim kinds are described in docs/workflow.md.
"""

from ciphersweep.analysis.compare.output import output_names, write
from ciphersweep.analysis.compare.references import (
    check_references,
    inconclusive_references,
)
from ciphersweep.analysis.compare.sources import matching, selector
from ciphersweep.analysis.compare.tables import BUILDERS
from ciphersweep.plan.study_files import check_config, load_claims, load_published

__all__ = [
    "BUILDERS",
    "check_config",
    "check_references",
    "inconclusive_references",
    "load_claims",
    "load_published",
    "matching",
    "output_names",
    "selector",
    "write",
]
