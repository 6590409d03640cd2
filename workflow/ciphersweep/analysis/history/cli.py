"""``python -m ciphersweep.analysis.history``: import finished campaign directories into the
history store, and export the store as CSV.

    python -m ciphersweep.analysis.history import results/default [--machine NAME]
    python -m ciphersweep.analysis.history export [--campaign NAME] [-o history.csv]

Run from the project directory with ``PYTHONPATH=workflow``. A user mistake (no such
store, a file that is not one, not a campaign directory, a summary that could not have
been measured, an output that is the store or cannot be written) is one line on
stderr and exit status 2, and nothing is written: every directory is checked before
the first is appended, and the CSV is written under a temporary name and renamed into
place. An export only reads the store.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from ciphersweep.core import stats
from ciphersweep.core.atomic import write_text
from ciphersweep.plan import config, config_sections

from . import runs, store

DEFAULT_STORE = "results/history.sqlite"


class UsageError(Exception):
    """A flag's value that cannot be used (one line naming the flag)."""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m ciphersweep.analysis.history",
        description="Import campaign results into the history store; export it as CSV.",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    imp = sub.add_parser("import", help="append finished campaign directories")
    imp.add_argument("dirs", nargs="+", help="results/<campaign> directories")
    imp.add_argument("--store", default=DEFAULT_STORE, help="the SQLite store")
    imp.add_argument(
        "--machine", help="file every cell under this machine name (default: its host)"
    )
    imp.add_argument("--statistic", choices=stats.STATISTICS, default="median")
    imp.add_argument("--campaign", help="campaign name (default: the records' own)")
    exp = sub.add_parser("export", help="write the store as CSV (one row per cell)")
    exp.add_argument("--store", default=DEFAULT_STORE, help="the SQLite store")
    exp.add_argument("--campaign", help="only this campaign's runs")
    exp.add_argument("-o", "--output", default="-", help="CSV file ('-': stdout)")
    return ap


def _pattern(*keys: str) -> str:
    """The campaign schema's pattern of a key (e.g. ``history``, ``machine``)."""
    node = config.schema()
    for k in keys:
        node = node["properties"][k]
    return str(node["pattern"])


def _name(flag: str, value: str | None, *keys: str) -> None:
    """A --campaign or --machine value as a campaign config allows it."""
    if value is None:
        return
    pattern = _pattern(*keys)
    if not re.fullmatch(pattern, value):
        raise UsageError(
            f"{flag} {value!r}: not a {keys[-1]} name (allowed: {pattern})"
        )
    problem = (
        config_sections.campaign_name_problem(value) if keys == ("campaign",) else None
    )
    if problem:
        raise UsageError(f"{flag} {problem}")


def _import(args: argparse.Namespace) -> int:
    _name("--campaign", args.campaign, "campaign")
    _name("--machine", args.machine, "history", "machine")
    found = [
        (
            d,
            runs.from_campaign(
                d,
                statistic=args.statistic,
                machine=args.machine,
                campaign=args.campaign,
            ),
        )
        for d in args.dirs
    ]
    if args.campaign is None:  # the name the records or the directory give
        for d, run in found:
            try:
                _name(f"{d}: campaign", str(run.info["campaign"]), "campaign")
            except UsageError as exc:
                raise UsageError(f"{exc}; name it with --campaign") from None
    for d, run in found:
        added = store.append(args.store, run.info, run.cells)
        what = "added" if added else "already in the store"
        print(
            f"{d}: run {run.run_id} of campaign {run.info['campaign']} "
            f"({len(run.cells)} cells) {what}"
        )
    return 0


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (
            a.exists() and b.exists() and os.path.samefile(a, b)
        )
    except OSError:
        return False


def _output(path: str, store_path: str) -> Path:
    """The -o file, if it can be written: never the store or a file beside it that
    SQLite keeps, never a directory, in a directory that exists."""
    out = Path(path)
    for f in store.files(store_path):
        if _same_file(out, f):
            what = "the history store" + (
                "" if f == Path(store_path) else f"'s {f.name}"
            )
            raise UsageError(f"-o {path}: is {what} (allowed: another file)")
    if out.is_dir():
        raise UsageError(f"-o {path}: is a directory (allowed: a file)")
    if not out.parent.is_dir():
        raise UsageError(
            f"-o {path}: no directory {out.parent} (allowed: a file in an existing "
            "directory)"
        )
    return out


def _export(args: argparse.Namespace) -> int:
    if not Path(args.store).is_file():
        raise store.StoreError(
            f"--store {args.store}: no such file (allowed: a history store)"
        )
    out = None if args.output == "-" else _output(args.output, args.store)
    frame = store.read(args.store, campaign=args.campaign)
    buf = io.StringIO()
    frame.to_csv(buf, index=False, float_format="%.12g")
    try:
        if out is None:
            sys.stdout.write(buf.getvalue())
            sys.stdout.flush()
        elif out.exists() and not out.is_file():  # a device or a pipe: no renaming
            with out.open("w") as f:
                f.write(buf.getvalue())
        else:
            write_text(out, buf.getvalue())
    except BrokenPipeError:  # the reader stopped early (e.g. `| head`)
        _drop_stdout()
        return 0
    except OSError as exc:
        if out is None:
            _drop_stdout()
            raise UsageError(f"stdout: cannot write: {exc.strerror or exc}") from None
        raise UsageError(f"-o {out}: cannot write: {exc.strerror or exc}") from None
    return 0


def _drop_stdout() -> None:
    """What stdout still buffers goes nowhere (Python would try it again at exit)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _import(args) if args.command == "import" else _export(args)
    except (runs.RunError, store.StoreError, UsageError) as exc:
        print(f"ciphersweep history: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ciphersweep history: interrupted", file=sys.stderr)
        return 130
