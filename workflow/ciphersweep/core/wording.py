"""How a campaign's numbers were made, in words: the statistic, the level of the
intervals computed and the repetitions as they ran (a range where they were adaptive).

THE place these words are made: every table title and caption, the plots' notes and
captions, the report's summary and Snakemake's report captions take them from a
:class:`Basis`, built by :func:`basis_of` from summary.csv's rows (``n`` and the
interval level columns :func:`ciphersweep.core.stats.summarize` writes) and the
campaign's ``statistic``, ``precision``, ``batch`` and ``processes``. Nothing here is
typed per campaign: a mean campaign's words say "mean", and its levels and repetition
counts are the ones summary.csv holds.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ciphersweep.core import stats

CI = "CI"  # the abbreviation titles use; captions say "confidence interval"


def count(n: int) -> str:
    """A whole number with thousands separators: ``1,966``."""
    return f"{n:,}"


def span(low: str, high: str) -> str:
    """``low`` alone when both ends are the same, else ``low-high``."""
    return low if low == high else f"{low}-{high}"


def level_range(levels: tuple[float, float]) -> str:
    """Interval levels (fractions) as the tables print them: ``95 %``, ``93.8-98.4 %``."""
    low, high = (stats.percent_number(x) for x in levels)
    return f"{span(low, high)} %"


@dataclass(frozen=True)
class Basis:
    """What a set of cells rests on. ``reps``: fewest and most timed repetitions of a
    measured point (None: no point measured, or none recorded its count); ``levels``:
    lowest and highest level of the intervals computed (fractions; None: no interval);
    ``no_interval``: measured points whose interval could not be computed (one
    repetition); ``target``: the precision target that made the repetitions adaptive
    (None: the count was fixed); ``batch``: repetitions per record; ``processes``:
    kernel processes per point."""

    statistic: str
    reps: tuple[int, int] | None
    levels: tuple[float, float] | None
    no_interval: int = 0
    target: float | None = None
    batch: int = 1
    processes: int = 1

    @property
    def adaptive(self) -> bool:
        return self.target is not None

    def reps_range(self) -> str:
        """``7`` or ``48-1,966`` (empty: none recorded)."""
        if self.reps is None:
            return ""
        return span(count(self.reps[0]), count(self.reps[1]))

    def reps_text(self) -> str:
        """``7 repetitions``, ``48-1,966 repetitions (adaptive)``, with the kernel
        processes they ran in where there were several."""
        if self.reps is None:
            return "repetitions not recorded"
        word = "repetition" if self.reps == (1, 1) else "repetitions"
        how = (["adaptive"] if self.adaptive else []) + (
            [f"{self.processes} kernel processes"] if self.processes > 1 else []
        )
        return f"{self.reps_range()} {word}" + (f" ({', '.join(how)})" if how else "")

    def level_text(self) -> str:
        """``95 %`` or ``93.8-98.4 %``; ``no`` where no interval was computed."""
        return "no" if self.levels is None else level_range(self.levels)

    def title(self, interval: bool = True) -> str:
        """The short form a title carries: ``mean of 7 repetitions, 95 % CI``."""
        if self.reps is None and self.levels is None:
            return f"{self.statistic}, nothing measured"
        text = f"{self.statistic} of {self.reps_text()}"
        if interval:
            text += f", {self.level_text()} {CI}"
        return text

    def sentence(self, interval: bool = True) -> str:
        """The sentence a caption ends with: ``Statistic: `` and :meth:`clause`."""
        return f"Statistic: {self.clause(interval)}."

    def clause(self, interval: bool = True) -> str:
        """The statistic, how many repetitions ran (how they were chosen) and the level
        of the intervals computed: ``the mean of 7 timed repetitions per point, with
        its 95 % confidence interval``."""
        if self.reps is None and self.levels is None:
            return f"the {self.statistic}; no point was measured"
        how = []
        if self.adaptive:
            how.append(
                "adaptive: each point repeated until the kernel's distribution-free "
                f"interval of its time was within ±{100 * float(self.target or 0):g} % "
                "or a limit stopped it"
            )
        if self.batch > 1:
            how.append(f"each record the mean of {count(self.batch)}")
        if self.processes > 1:
            how.append(
                f"run in {self.processes} kernel processes, the interval over the "
                f"processes' {self.statistic}s"
            )
        reps = (
            f"{self.reps_range()} timed repetitions per point"
            if self.reps is not None
            else "the timed repetitions (their count not recorded)"
        )
        text = f"the {self.statistic} of {reps}" + (
            f" ({'; '.join(how)})" if how else ""
        )
        if interval:
            if self.levels is None:
                text += ", without a confidence interval (none could be computed)"
            else:
                text += f", with its {self.level_text()} confidence interval"
            if self.no_interval and self.levels is not None:
                points = "point" if self.no_interval == 1 else "points"
                text += f" (none for {self.no_interval} {points} of one repetition)"
        return text


def _ok(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in rows if r is not None and r.get("status") == "ok"]


def level_column(statistic: str, prefix: str = "t_total") -> str:
    """The summary.csv column of the level of ``statistic``'s interval."""
    return f"{prefix}_mean_ci_level" if statistic == "mean" else f"{prefix}_ci_level"


def basis_of(
    cfg: Mapping[str, Any],
    rows: Iterable[Mapping[str, Any]],
    statistic: str | None = None,
) -> Basis:
    """The basis of the cells made from summary.csv ``rows`` (the measured ones count)
    in ``statistic`` (default: the campaign's)."""
    stat = statistic or stats.statistic_of(cfg)
    ok = _ok(rows)
    batch = int(cfg.get("batch") or 1)
    ns = []
    for r in ok:
        n = stats.number(r.get("n"))
        n = n if n is not None else stats.number(r.get("t_total_n"))
        if n is not None and n > 0:
            ns.append(int(n) * batch)
    levels = [
        lv
        for r in ok
        if (lv := stats.number(r.get(level_column(stat)))) is not None
        and math.isfinite(lv)
    ]
    positive = [lv for lv in levels if lv > 0]
    prec = cfg.get("precision")
    return Basis(
        statistic=stat,
        reps=(min(ns), max(ns)) if ns else None,
        levels=(min(positive), max(positive)) if positive else None,
        no_interval=len(levels) - len(positive),
        target=stats.target_of(cfg) if prec else None,
        batch=batch,
        processes=int(cfg.get("processes") or 1),
    )


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """summary.csv's rows ([] where there is none, or it is empty)."""
    p = Path(path)
    if not p.exists() or p.stat().st_size == 0:
        return []
    with p.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


class FromSummary:
    """The :class:`Basis` of a summary.csv, read when a word is first asked for, not
    when the object is made: Snakemake's report captions get it as a rule's parameter
    (``snakemake.params.basis``), made while the workflow is planned, before the
    summary exists, and read when ``snakemake --report`` renders the captions. Its
    repr names the file only: a parameter that is no plain value never makes Snakemake
    run a job again."""

    def __init__(self, cfg: Mapping[str, Any], path: str | Path) -> None:
        self.cfg, self.path = cfg, str(path)

    def __repr__(self) -> str:
        return f"FromSummary({self.path!r})"

    @cached_property
    def basis(self) -> Basis:
        return basis_of(self.cfg, read_rows(self.path))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in ("cfg", "path"):
            raise AttributeError(name)
        return getattr(self.basis, name)
