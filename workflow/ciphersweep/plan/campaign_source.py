"""Where a run's campaign comes from: THE place the command line's config is turned
into one campaign.

The Snakefile has no ``configfile:`` directive, so Snakemake's ``config`` holds exactly
what the command line gave (``--configfile`` files merged in order, then ``--config``
keys). A campaign file describes a whole campaign: given with ``--configfile`` it
replaces the default campaign (``config/config.yaml``) instead of being merged into it;
``--config KEY=VALUE`` overrides single keys of either. Which files were given is read
from the command line itself (the process's arguments, as Snakemake documents them),
so that each is also read strictly: a key given twice is refused with the file and
line, where YAML loaders would keep the last one silently.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ciphersweep.plan.config import load_file

DEFAULT = "config/config.yaml"


def campaign_files(argv: Sequence[str]) -> list[str]:
    """The files given with ``--configfile``/``--configfiles`` in ``argv`` (a Snakemake
    command line without the program name), in order."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--configfile", "--configfiles", nargs="+", action="extend")
    known, _ = parser.parse_known_args(list(argv))
    return list(known.configfile or [])


def merged(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with the keys of ``over`` put in, mappings merged key by key (how
    Snakemake merges ``--config`` into a config file)."""
    out = copy.deepcopy(dict(base))
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def campaign(
    given: Mapping[str, Any],
    files: Sequence[str],
    default: str | Path = DEFAULT,
) -> dict[str, Any]:
    """The raw campaign of a run: ``given`` (Snakemake's ``config``) when campaign
    ``files`` were given, else the default campaign with ``given`` merged in. Every
    file is read strictly (:class:`ConfigError` naming the file and line)."""
    for path in files:
        load_file(path)
    if files:
        return copy.deepcopy(dict(given))
    return merged(load_file(default), given)
