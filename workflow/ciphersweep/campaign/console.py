"""The few lines a campaign ends with on the console.

Points measured and failed (with the first reasons), noisy cells, where the tables,
plots and report are, and the command that makes the report again. Written by the
workflow's ``onsuccess``/``onerror`` handlers from the files the campaign left, so it
says the same whatever the console looks like (quiet progress line or ``--verbose``).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ciphersweep.analysis import history
from ciphersweep.core import outcome, stats, wording
from ciphersweep.core.atomic import is_temp

MAX_REASONS = 3


def _read_summary(path: Path) -> pd.DataFrame | None:
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        return pd.read_csv(path)
    except (ValueError, OSError):  # an empty campaign writes a header-less file
        return None


def _truthy(v: Any) -> bool:
    return str(v).strip().lower() in ("true", "1", "yes")


def noisy_cells(summary: pd.DataFrame, cfg: Mapping[str, Any]) -> tuple[int, int]:
    """(noisy, measured): time cells whose interval is wider than the campaign's
    precision target (or has too few repetitions), by ciphersweep.core.stats' rule."""
    target, statistic = stats.target_of(cfg), stats.statistic_of(cfg)
    ok = [r for r in summary.to_dict("records") if r.get("status") == "ok"]
    noisy = 0
    for row in ok:
        e = stats.row_estimate(row, statistic)
        if e is not None and e.wide(target):
            noisy += 1
    return noisy, len(ok)


class ResultsError(RuntimeError):
    """Results that could not be written (a full or read-only disk): one line naming
    the file (or the directory) and the system's reason."""


def write_step(outputs: Sequence[str], fn: Callable[..., Any], *args: Any) -> Any:
    """Run an analysis step that writes ``outputs``; a system error while it writes
    becomes ONE line naming the file and the reason (the console shows that line; the
    step's previous outputs are kept, as Snakemake restores ``update`` outputs)."""
    try:
        return fn(*args)
    except OSError as exc:
        where = exc.filename or _common_dir([str(o) for o in outputs])
        why = exc.strerror or str(exc)
        raise ResultsError(
            f"ciphersweep: cannot write {where}: {why} (the previous results are kept)"
        ) from None


def _common_dir(paths: Sequence[str]) -> str:
    if not paths:
        return "the results"
    if len(paths) == 1:
        return paths[0]
    parents = {str(Path(p).parent) for p in paths}
    return parents.pop() if len(parents) == 1 else str(Path(paths[0]).parent.parent)


def _names(folder: Path, suffix: str) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(
        {f.stem for f in folder.iterdir() if f.suffix == suffix and not is_temp(f)}
    )


def _nothing(res: Path, summary: pd.DataFrame) -> str | None:
    return outcome.nothing_measured(
        len(summary),
        outcome.measured(summary.to_dict("records")),
        str(res / outcome.FAILURES),
    )


def nothing_measured(res_dir: str | Path) -> str | None:
    """The line a finished campaign that measured nothing ends with (its exit status
    is then 1): ``ciphersweep: nothing measured: N of N points failed (see
    <results>/failures.csv)``; None when a point was measured or none was gathered."""
    res = Path(res_dir)
    summary = _read_summary(res / "summary.csv")
    if summary is None or "status" not in summary:
        return None
    nothing = _nothing(res, summary)
    return f"ciphersweep: {nothing}" if nothing else None


# the verdict files a campaign may leave, and what their verdicts judge
VERDICT_FILES = (
    ("claims", Path("compare") / "claims.csv"),
    ("references", Path("compare") / "references.csv"),
    ("regressions", Path("tables") / "regressions.csv"),
)


def verdict_counts(path: Path) -> dict[str, int]:
    """How many rows of a verdict file have each verdict (the words before a ``:``,
    so ``inconclusive: the intervals overlap ...`` counts as ``inconclusive``)."""
    try:
        frame = pd.read_csv(path, keep_default_na=False)
    except (OSError, ValueError):
        return {}
    if "verdict" not in frame:
        return {}
    words = frame["verdict"].astype(str).str.split(":", n=1).str[0].str.strip()
    return {str(k): int(v) for k, v in words.value_counts(sort=False).items()}


def verdict_lines(res: Path, include_history: bool = True) -> list[str]:
    """One line per verdict file the campaign wrote, counting each verdict (the
    inconclusive ones among them) by the one judgement rule's words."""
    out = []
    for name, rel in VERDICT_FILES:
        if name == "regressions" and not include_history:
            continue
        counts = verdict_counts(res / rel)
        if counts:
            shown = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
            out.append(f"  {name}: {shown} ({res / rel})")
    return out


def report_command(
    report: str | Path, configfiles: Sequence[str] = (), profile: str = "local"
) -> str:
    """The command that (re)makes a campaign's report."""
    argv = ["snakemake", "--profile", f"profiles/{profile}"]
    for cf in configfiles:
        argv += ["--configfile", str(cf)]
    return shlex.join([*argv, str(report)])


def summary_lines(
    res_dir: str | Path,
    report: str | Path,
    command: str,
    ok: bool = True,
    cfg: Mapping[str, Any] | None = None,
) -> list[str]:
    """The end-of-campaign summary, one item per line."""
    res = Path(res_dir)
    head = f"ciphersweep: campaign {res.name} " + ("finished" if ok else "stopped")
    lines = [head]
    summary = _read_summary(res / "summary.csv")
    if summary is None or "status" not in summary:
        lines.append("  points: none gathered yet (see the errors above)")
    else:
        failed = summary[summary["status"] != "ok"]
        lines.append(
            f"  points measured: {len(summary) - len(failed)} of {len(summary)}"
            + (f", {len(failed)} failed" if len(failed) else "")
        )
        for _, row in failed.head(MAX_REASONS).iterrows():
            lines.append(f"    failed {row['point']}: {row.get('reason')}")
        if len(failed) > MAX_REASONS:
            lines.append(
                f"    ... {len(failed) - MAX_REASONS} more in {res / 'failures.csv'}"
            )
        nothing = _nothing(res, summary)
        if nothing is None:
            noisy, measured = noisy_cells(summary, cfg or {})
            target = stats.target_of(cfg or {})
            basis = wording.basis_of(cfg or {}, summary.to_dict("records"))
            lines.append(
                f"  noisy cells: {noisy} of {measured} times have an interval wider "
                f"than ±{100 * target:g}% or too few repetitions for a "
                f"{stats.percent_number(stats.CONFIDENCE)}% one ({basis.title()}; "
                "footnoted in the tables, hollow in the plots)"
            )
        elif not ok:  # a finished run ends with it (nothing_measured)
            lines.append(f"  {nothing}")
    tables = _names(res / "tables", ".csv")
    plots = _names(res / "plots", ".png")
    history_off = not (cfg or {}).get("history", {}).get("enabled", True)
    if history_off:  # an earlier run's history tables are not this run's
        earlier = [n for n in tables + plots if n in (*history.TABLES, history.TREND)]
        tables = [n for n in tables if n not in history.TABLES]
        plots = [n for n in plots if n != history.TREND]
    if tables:
        lines.append(
            f"  tables: {res / 'tables'}/ ({', '.join(tables)}; .csv .md .tex)"
        )
    if plots:
        lines.append(f"  plots:  {res / 'plots'}/ ({', '.join(plots)}; .png .pdf .svg)")
    if history_off:
        lines.append(
            "  history: off (history.enabled: false)"
            + (f"; {', '.join(earlier)} are from an earlier run" if earlier else "")
        )
    lines += verdict_lines(res, include_history=not history_off)
    rep = Path(report)
    lines.append(
        f"  report: {rep}" if rep.exists() else f"  report: not made yet ({rep})"
    )
    lines.append(f"  make the report: {command}")
    return lines
