"""``python -m ciphersweep.analysis.history``: import finished campaign directories into the
history store, and export the store as CSV.

    python -m ciphersweep.analysis.history import results/default [--machine NAME]
    python -m ciphersweep.analysis.history export [--campaign NAME] [-o history.csv]

Run from the project directory with ``PYTHONPATH=workflow``. A user mistake (no such
store, not a campaign directory) is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ciphersweep.core import stats

from . import runs, store

DEFAULT_STORE = "results/history.sqlite"


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


def _import(args: argparse.Namespace) -> int:
    for d in args.dirs:
        run = runs.from_campaign(
            d, statistic=args.statistic, machine=args.machine, campaign=args.campaign
        )
        added = store.append(args.store, run.info, run.cells)
        what = "added" if added else "already in the store"
        print(
            f"{d}: run {run.run_id} of campaign {run.info['campaign']} "
            f"({len(run.cells)} cells) {what}"
        )
    return 0


def _export(args: argparse.Namespace) -> int:
    if not Path(args.store).is_file():
        raise store.StoreError(
            f"--store {args.store}: no such file (allowed: a history store)"
        )
    frame = store.read(args.store, campaign=args.campaign)
    out = sys.stdout if args.output == "-" else args.output
    frame.to_csv(out, index=False, float_format="%.12g")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _import(args) if args.command == "import" else _export(args)
    except (runs.RunError, store.StoreError) as exc:
        print(f"ciphersweep history: {exc}", file=sys.stderr)
        return 2
