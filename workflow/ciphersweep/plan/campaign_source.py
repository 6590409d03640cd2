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

What Snakemake does with a command line, and what is done about it here:

- ``--configfile a.yaml b.yaml`` merges the files in order, mappings key by key (a later
  file's keys over an earlier one's): so does :func:`campaign`. ``--configfile a.yaml
  --configfile b.yaml`` keeps only ``b.yaml`` (the option's last use wins, and the jobs
  Snakemake starts are given only that one): refused, naming the one form that merges.
  The same for ``--config`` given twice.
- ``--config KEY=VALUE`` reads a nested VALUE with YAML's base loader, so every number
  in it is a string (``backends={omp: {threads: [2]}}`` gives ``threads: ['2']``): such
  a value is read again here with YAML's types (``[2]``), strictly, and a key written
  without the space YAML needs after its colon (``{threads:2}``, one key ``threads:2``
  with no value) is refused with the form that works.
- A file Snakemake cannot read (a YAML syntax error, a tab, bytes that are not UTF-8,
  an alias inside its own anchor) stops Snakemake before the workflow runs, with a
  traceback or a line naming no file: :func:`command_line_error` gives the console
  (plugins/snakemake-logger-plugin-ciphersweep) the one line naming the file and line.
"""

from __future__ import annotations

import argparse
import copy
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ciphersweep.core import yamlfile
from ciphersweep.plan.config import ConfigError, format_error, load_file

DEFAULT = "config/config.yaml"
# a --config KEY as Snakemake accepts it (snakemake.cli.parse_config)
KEY = re.compile(r"[a-zA-Z_][\w-]*\w$")
NESTED = "--config 'backends={omp: {threads: [2, 4]}}'"


def campaign_files(argv: Sequence[str]) -> list[str]:
    """The files given with ``--configfile``/``--configfiles`` in ``argv`` (a Snakemake
    command line without the program name), in order."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--configfile", "--configfiles", nargs="+", action="extend")
    known, _ = parser.parse_known_args(list(argv))
    return list(known.configfile or [])


def _uses(argv: Sequence[str], nargs: str, *flags: str) -> list[list[str]]:
    """The values of each use of an option in ``argv``, in order."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument(*flags, nargs=nargs, action="append", dest="uses")
    known, _ = parser.parse_known_args(list(argv))
    return list(known.uses or [])


def config_entries(argv: Sequence[str]) -> list[str]:
    """The ``--config``/``-C`` KEY=VALUE entries in ``argv``, in order."""
    return [e for use in _uses(argv, "*", "--config", "-C") for e in use]


def check_options(argv: Sequence[str]) -> None:
    """Refuse ``--configfile`` or ``--config`` given more than once: Snakemake keeps
    only the last use, silently (:class:`ConfigError` with the form that merges)."""
    for flags, nargs, what in (
        (("--configfile", "--configfiles"), "+", "every file, merged in order"),
        (("--config", "-C"), "*", "every KEY=VALUE"),
    ):
        uses = _uses(argv, nargs, *flags)
        if len(uses) > 1:
            seen = "; ".join(shlex.join(u) for u in uses)
            one = shlex.join([flags[0], *(v for u in uses for v in u)])
            raise ConfigError(
                f"{flags[0]} given {len(uses)} times ({seen}): Snakemake keeps only the "
                f"last one (allowed: one {flags[0]} with {what}: {one})"
            )


def _entry(entry: str) -> tuple[str, str]:
    key, sep, value = entry.partition("=")
    if not sep:
        raise ConfigError(
            f"--config {entry}: not KEY=VALUE (allowed: e.g. --config reps=5, {NESTED})"
        )
    if not KEY.match(key):
        raise ConfigError(
            f"--config {entry}: {key!r} is not a key Snakemake accepts (allowed: a "
            "top-level key of two or more letters, digits, _ or -; a nested one as a "
            f"mapping: {NESTED})"
        )
    return key, value


def _colon_keys(value: Any, where: str) -> None:
    """Refuse ``{a:1}``: YAML reads one key ``a:1`` with no value (a flow mapping
    needs a space after each colon)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            if v is None and isinstance(k, str) and ":" in k:
                a, _, b = k.partition(":")
                raise ConfigError(
                    f"--config {where}: {{{k}}} is one key {k!r} without a value "
                    f"(allowed: a space after each colon, {{{a}: {b}}})"
                )
            _colon_keys(v, where)
    elif isinstance(value, list):
        for v in value:
            _colon_keys(v, where)


def typed_overrides(entries: Sequence[str]) -> dict[str, Any]:
    """The ``--config`` entries whose VALUE is a YAML flow mapping or list, read with
    YAML's types (Snakemake's reading makes every number in them a string); the others
    (single values) are Snakemake's as it read them. A later entry of a key wins, as in
    Snakemake."""
    out: dict[str, Any] = {}
    for entry in entries:
        key, value = _entry(entry)
        if value.strip()[:1] not in ("{", "["):
            out.pop(key, None)
            continue
        try:
            typed = yamlfile.loads(value, f"--config {key}", pure=True)
        except yamlfile.YamlFileError as exc:
            why = str(exc)
            raise ConfigError(
                why if "allowed:" in why else f"{why} (allowed: e.g. {NESTED})"
            ) from None
        _colon_keys(typed, key)
        out[key] = typed
    return out


def command_line_error(argv: Sequence[str]) -> str | None:
    """The one line (``ciphersweep: ...``) naming what in ``argv`` Snakemake cannot use
    (an option given twice, a ``--configfile`` it cannot read, a ``--config`` entry it
    refuses or misreads), or None: for the console, where Snakemake stops on them before
    the workflow runs."""
    try:
        check_options(argv)
        for path in campaign_files(argv):
            load_file(path)
        typed_overrides(config_entries(argv))
    except ConfigError as exc:
        return format_error(exc)
    return None


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
    entries: Sequence[str] = (),
) -> dict[str, Any]:
    """The raw campaign of a run: the campaign ``files`` merged in order (else the
    default campaign), then ``given`` (Snakemake's ``config``: the same files and the
    ``--config`` values) merged in, the ``--config`` ``entries`` with a nested VALUE
    read with YAML's types in place of Snakemake's strings. Every file is read strictly
    (:class:`ConfigError` naming the file and line)."""
    base: dict[str, Any] = {}
    for path in files or [default]:
        base = merged(base, load_file(path))
    typed = typed_overrides(entries)
    rest = {k: v for k, v in given.items() if k not in typed}
    return merged(merged(base, rest), typed)


def from_command_line(
    given: Mapping[str, Any], argv: Sequence[str], default: str | Path = DEFAULT
) -> dict[str, Any]:
    """:func:`campaign` of a Snakemake command line (``argv``, without the program
    name); an option given twice is refused (:func:`check_options`)."""
    check_options(argv)
    return campaign(given, campaign_files(argv), default, config_entries(argv))
