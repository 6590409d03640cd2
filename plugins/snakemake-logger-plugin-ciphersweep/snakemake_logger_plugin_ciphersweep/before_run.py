"""What stops Snakemake before the workflow runs, as one line.

Snakemake reads the command line's ``--configfile`` files and ``--config`` values, and
makes its source cache (under ``$XDG_CACHE_HOME``, by default ``~/.cache``), before the
Snakefile runs: the workflow cannot catch what goes wrong there, and Snakemake reports
it as a traceback of its own code or as a line that names no file. The console knows
these reports and shows one line instead:

- a config file or value Snakemake cannot read or refuses (a YAML syntax error, a tab,
  bytes that are not UTF-8, an alias inside its own anchor, a key it does not accept):
  the workflow's own reading of the command line names the file and line, or the entry
  (``ciphersweep.plan.campaign_source.command_line_error``, found beside the Snakefile
  this run reads);
- a cache directory it cannot create (a read-only home directory): the directory, why,
  and the variables that move it and matplotlib's settings (``XDG_CACHE_HOME``,
  ``XDG_CONFIG_HOME``), which a read-only home directory needs too.

Anything else is left as Snakemake wrote it.
"""

import argparse
import importlib
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Snakemake's reading of --configfile and --config (snakemake.settings.types and
# snakemake.cli), in its traceback or its own message
CONFIG_MARKS = (
    "load_configfile",
    "_get_overwrite_config",
    "parse_config",
    "Config file is not valid JSON or YAML",
    "Config file must be given as JSON or YAML with keys at top level",
    "Invalid config definition",
)
# the source cache Snakemake makes as the workflow object is made
CACHE_MARK = "sourcecache"
OS_ERROR = re.compile(r"^\w*Error: \[Errno \d+\] (?P<why>[^:]+): '(?P<path>.+)'$")
# where Snakemake looks for a Snakefile when -s is not given
SNAKEFILES = ("Snakefile", "snakefile", "workflow/Snakefile", "workflow/snakefile")
SOURCE = "ciphersweep.plan.campaign_source"


def one_line(text: str, argv: Sequence[str] | None = None) -> str | None:
    """The one line for Snakemake's report ``text`` of what stopped it before the
    workflow ran (``argv``: its command line, default this process's), or None."""
    args = list(sys.argv[1:] if argv is None else argv)
    if any(mark in text for mark in CONFIG_MARKS):
        return _command_line(args)
    if CACHE_MARK in text:
        return _cache(text)
    return None


def _cache(text: str) -> str | None:
    for line in reversed(text.strip().splitlines()):
        found = OS_ERROR.match(line.strip())
        if found:
            return (
                f"ciphersweep: Snakemake cannot create its cache directory "
                f"{found['path']} ({found['why']}): set XDG_CACHE_HOME and "
                "XDG_CONFIG_HOME to writable directories (Snakemake's cache, "
                "matplotlib's settings), e.g. XDG_CACHE_HOME=/tmp/$USER/cache "
                "XDG_CONFIG_HOME=/tmp/$USER/config snakemake ..."
            )
    return None


def _command_line(argv: list[str]) -> str | None:
    source = workflow_module(argv)
    if source is None:
        return None
    try:
        return source.command_line_error(argv)
    except Exception:  # noqa: BLE001 - Snakemake's own report is shown instead
        return None


def workflow_module(argv: list[str], name: str = SOURCE) -> Any | None:
    """The workflow's module ``name`` (default its campaign_source), beside the
    Snakefile of ``argv`` (``-s``, else where Snakemake looks); None where there is
    none."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("-s", "--snakefile")
    known, _ = parser.parse_known_args(argv)
    for snakefile in [known.snakefile] if known.snakefile else SNAKEFILES:
        if not Path(snakefile).is_file():
            continue
        here = Path(snakefile).resolve().parent
        for root in (here / "workflow", here):
            if (root / Path(*name.split("."))).with_suffix(".py").is_file():
                sys.path.insert(0, str(root))
                try:
                    return importlib.import_module(name)
                except Exception:  # noqa: BLE001 - Snakemake's own report instead
                    return None
    return None
