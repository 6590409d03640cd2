"""The table model every builder fills: :class:`Table` (rows x columns of cells with
footnotes and intervals), :class:`Measured` (a value with its interval),
:class:`Context` (a campaign's points and summary.csv, the rows and columns they give,
the campaign's statistic and each point's baseline) and :class:`Builder` (a named
table and when a campaign has it).

A cell is a float, or a string with a footnote: ``failed`` (the point failed; the
footnote gives the reason) or ``n/a`` (nothing could measure it; the footnote says
why), never 0. Timing cells are the campaign's statistic (median or mean) with its
interval (:mod:`ciphersweep.core.stats`); every title and caption says which statistic,
at which level and over how many repetitions (:meth:`Context.basis`). The cell formulas are in
:mod:`ciphersweep.analysis.tables.formulas`, the generic tables in
:mod:`ciphersweep.analysis.tables.generic`, and every table of a campaign is listed in
one plain list, :data:`ciphersweep.analysis.tables.registry.BUILDERS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ciphersweep import backends as registry
from ciphersweep.core import stats, wording
from ciphersweep.plan.sweep import Point

if TYPE_CHECKING:  # the frames are handed in: this module needs no pandas of its own,
    # and the drawing process, which unpickles contexts, imports none
    import pandas as pd

# backends whose rows are named by their cipher; they have no sequential baseline
NAMED_BACKENDS = registry.where(named=True)
FAILED = "failed"
NA = "n/a"


def is_na(v: Any) -> bool:
    """Whether a value is missing: None, NaN or not a number at all."""
    try:
        return v is None or math.isnan(float(v))
    except (TypeError, ValueError):
        return True


def impl_family(impl: str) -> str:
    """Implementation family, so that e.g. gpu-ttable compares with ttable."""
    return impl.removeprefix("gpu-")


def status_cell(row: dict[str, Any] | None) -> tuple[str, str] | None:
    """Cell and footnote of a point that has no value to show (not measured, or failed
    with its reason); None when the point ran. Every table marks such cells this way."""
    if row is None:
        return NA, "not measured"
    if row.get("status") != "ok":
        return FAILED, str(row.get("reason") or "failed")
    return None


def oversubscribed(row: Mapping[str, Any] | None) -> bool:
    """Whether a point's records say it ran oversubscribed (more ranks x threads than
    cores: its time is not what those CPUs would give)."""
    v = (row or {}).get("oversubscribed")
    return v is True or (isinstance(v, str) and v.strip().lower() == "true") or v == 1


def oversubscribed_note(p: Point) -> str:
    """The footnote of a cell of an oversubscribed point."""
    what = [f"{p.ranks} ranks"] if p.ranks > 1 else []
    what += [f"{p.threads} threads"] if p.threads > 1 else []
    return (
        f"ran oversubscribed ({' x '.join(what) or 'its processes'} on fewer cores, "
        "as its records say): not a measure of that many CPUs"
    )


def add_note(t: Table, key: tuple[str, str], note: str) -> None:
    """A footnote for a cell, after the one it has (each said once)."""
    had = t.notes.get(key)
    if not had:
        t.notes[key] = note
    elif note not in had:
        t.notes[key] = f"{had}; {note}"


def mark_oversubscribed(
    t: Table, key: tuple[str, str], p: Point, row: Mapping[str, Any] | None
) -> None:
    """Footnote the cell ``key`` of point ``p`` when its records say it ran
    oversubscribed (every table marks such cells, whatever the cell shows)."""
    if oversubscribed(row):
        add_note(t, key, oversubscribed_note(p))


@dataclass(frozen=True)
class Measured:
    """A cell value with its interval; ``note`` flags a cell wider than the target.
    ``low``/``high`` None: no interval is known; ``value`` None: nothing was measured,
    ``why`` says why (the comparisons with a study show such cells as n/a)."""

    value: float | None
    low: float | None = None
    high: float | None = None
    note: str | None = None
    why: str = ""
    level: float | None = None  # the level the interval was computed at (None: unknown)


# what a cell function may give: a value, a value with its interval, None (n/a) or
# (n/a, why)
CellValue = float | Measured | tuple[str, str] | None


@dataclass
class Table:
    name: str
    title: str
    rows: list[str]
    columns: list[str]
    cells: dict[tuple[str, str], Any]  # float, or a string such as "failed"/"n/a"
    notes: dict[tuple[str, str], str] = field(default_factory=dict)  # cell -> footnote
    digits: int = (
        3  # significant digits of every number shown (ciphersweep.analysis.render)
    )
    row_header: str = "backend"
    caption: str = ""  # what the table shows and how it was computed (the report)
    # cell -> (low, high) of its interval; shown beside the value when show_intervals
    intervals: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    show_intervals: bool = False

    def value(self, row: str, col: str) -> Any:
        return self.cells.get((row, col))

    def put(self, key: tuple[str, str], v: CellValue) -> None:
        """One cell from what a cell function gives (see :data:`CellValue`)."""
        if isinstance(v, tuple):  # (n/a, reason)
            self.cells[key], self.notes[key] = NA, v[1]
        elif isinstance(v, Measured):
            self.cells[key] = float(v.value)
            self.intervals[key] = (v.low, v.high)
            if v.note:
                self.notes[key] = v.note
        elif v is None or is_na(v):
            self.cells[key] = NA
        else:
            self.cells[key] = float(v)


def _ok_reps(
    meas: pd.DataFrame | None, fields: tuple[str, ...]
) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    if meas is None or not len(meas) or "point" not in meas:
        return out
    if "status" in meas:
        status = meas["status"]
        blank = status.astype(str).str.strip() == ""
        meas = meas[status.isna() | (status == "ok") | blank]
    cols = [f for f in fields if f in meas.columns]
    for pid, rec in zip(meas["point"].astype(str), meas[cols].to_dict("records")):
        out.setdefault(pid, []).append(rec)
    return out


@dataclass
class Context:
    cfg: dict[str, Any]
    points: Sequence[Point]
    summary: pd.DataFrame
    measurements: pd.DataFrame | None = None
    # the host facts of the machine making the tables (ciphersweep.job.hostfacts), taken
    # once for the run's tables and report; None: taken when a table asks
    facts: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        self.by_point = (
            {r["point"]: r for r in self.summary.to_dict("records")}
            if len(self.summary)
            else {}
        )
        self.columns = _columns(self.points)
        # point id -> the impl its records say ran (an ``auto`` point's resolved one)
        self.ran = {
            pid: r.get("impl")
            for pid, r in self.by_point.items()
            if r.get("status") == "ok"
        }
        self.row_of = row_labels(self.points, self.ran)
        self.statistic = stats.statistic_of(self.cfg)
        self.target = stats.target_of(self.cfg)
        self._reps: dict[tuple[str, ...], dict[str, list[dict[str, Any]]]] = {}

    def __getstate__(self) -> dict[str, Any]:
        """A context pickled (for the run's drawing process,
        :mod:`ciphersweep.analysis.plots.drawing`) is what was worked out from its
        summary (:attr:`by_point`, its rows and columns), without the frame itself:
        unpickling a frame would import pandas there, about half a second of every
        run's drawing, for plots that read only those. Its measurements go as they are
        (a plot's context has none)."""
        return {**self.__dict__, "summary": None}

    def ok_reps(self, fields: tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
        """Point id -> its repetitions whose status is ok (or none), each as a dict of
        those of ``fields`` the measurements have; {} without measurements. Worked out
        once per set of fields: a campaign has a record per repetition, often tens of
        thousands, and several tables read them."""
        if fields not in self._reps:
            self._reps[fields] = _ok_reps(self.measurements, fields)
        return self._reps[fields]

    @cached_property
    def baseline(self) -> dict[str, str]:
        """Point id -> id of its baseline point (:func:`baseline_of`)."""
        return baseline_of(self.cfg, self.points)

    def basis(
        self, statistic: str | None = None, points: Sequence[Point] | None = None
    ) -> wording.Basis:
        """What the cells of ``points`` (default: all) in ``statistic`` (default: the
        campaign's) rest on: the statistic, the interval levels and the repetitions as
        they ran (:func:`ciphersweep.core.wording.basis_of`)."""
        rows = (
            self.by_point.values()
            if points is None
            else [self.by_point[p.id] for p in points if p.id in self.by_point]
        )
        return wording.basis_of(self.cfg, rows, statistic or self.statistic)

    def estimate(self, row: dict[str, Any] | None) -> stats.Estimate | None:
        """The campaign's statistic of a point's time, with its interval."""
        return None if row is None else stats.row_estimate(row, self.statistic)

    def rows(self, keep: Callable[[Point], bool] = lambda p: True) -> list[str]:
        out: list[str] = []
        for p in self.points:
            if keep(p) and self.row_of[p.id] not in out:
                out.append(self.row_of[p.id])
        return out

    def grid(
        self,
        name: str,
        title: str,
        value: Callable[[Point, dict[str, Any]], CellValue],
        keep: Callable[[Point], bool] = lambda p: True,
        digits: int = 3,
        caption: str = "",
    ) -> Table:
        """A rows x sizes table; ``value(point, summary_row)`` gives a cell (None: n/a)."""
        # labels over the rows shown: an impl shared by every row is not repeated
        labels = row_labels([p for p in self.points if keep(p)], self.ran)
        rows = list(dict.fromkeys(labels[p.id] for p in self.points if keep(p)))
        t = Table(name, title, rows, self.columns, {}, digits=digits, caption=caption)
        for p in self.points:
            if not keep(p):
                continue
            key = (labels[p.id], p.input_name)
            row = self.by_point.get(p.id)
            missing = status_cell(row)
            if missing is not None:
                t.cells[key], t.notes[key] = missing
            else:
                assert row is not None
                t.put(key, value(p, row))
            mark_oversubscribed(t, key, p, row)
        return t


@dataclass
class Builder:
    name: str
    build: Callable[[Context], Table]
    applies: Callable[[dict[str, Any], Sequence[Point]], bool] = lambda cfg, points: (
        True
    )


# ------------------------------------------------------------------ baselines


def baseline_of(cfg: dict[str, Any], points: Sequence[Point]) -> dict[str, str]:
    """Point id -> id of its baseline point: same mode, op, input and variant, and the
    impl that ``baseline.impl`` names (default: the point's own impl family)."""
    bb = cfg.get("baseline", {}).get("backend", "seq")
    named = cfg.get("baseline", {}).get("impl")

    def is_base(p: Point) -> bool:
        return p.backend == bb and (named is None or p.impl == named)

    base = {
        (impl_family(p.impl), p.mode, p.op, p.input_name, p.variant): p.id
        for p in points
        if is_base(p)
    }
    out = {}
    for p in points:
        if is_base(p):
            continue
        fam = named or impl_family(p.impl)
        b = base.get((fam, p.mode, p.op, p.input_name, p.variant))
        if b is not None:
            out[p.id] = b
    return out


def compared_with_baseline(cfg: dict[str, Any]) -> Callable[[Point], bool]:
    """Whether a point has a speedup row: neither a named backend nor the baseline."""
    bb = cfg.get("baseline", {}).get("backend", "seq")
    named = cfg.get("baseline", {}).get("impl")
    return lambda p: (
        p.backend not in NAMED_BACKENDS
        and (p.backend != bb or (named is not None and p.impl != named))
    )


# ------------------------------------------------------------------ rows and columns


def _columns(points: Sequence[Point]) -> list[str]:
    seen: dict[str, tuple[int, int]] = {}
    for p in points:
        if p.input_name not in seen:
            seen[p.input_name] = (1 if p.input_path else 0, p.size_bytes)
    return sorted(seen, key=lambda n: seen[n])


def _base_label(p: Point, multi_gpu: bool) -> str:
    """The row label of a point before the distinguishing extras: ``mpi (16 ranks)``,
    as its backend words it (its ``label``), else its backend and cipher, with an impl
    other than a Python runner's own between them."""
    b = registry.BY_NAME.get(p.backend)
    if b is not None and b.label is not None:
        base = b.label(p, multi_gpu)
    elif b is not None and b.impl_flag and p.impl != b.own_impl:
        base = f"{p.backend} {p.impl} {p.cipher}"  # another impl of a Python runner
    else:
        base = f"{p.backend} {p.cipher}"
    if p.key_bits is not None:
        base += f" ({p.key_bits}-bit key)"
    return base


def impl_shown(p: Point, ran: Mapping[str, Any] | None = None) -> str:
    """A point's impl as a label names it: an ``auto`` point's with the impl its records
    say ran (``auto→ttable``; ``ran``: point id -> that impl), others as planned."""
    got = (ran or {}).get(p.id)
    if p.impl == "auto" and isinstance(got, str) and got not in ("", "auto"):
        return f"auto→{got}"
    return p.impl


def row_labels(
    points: Sequence[Point], ran: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """Point id -> row label such as ``mpi (16 ranks)``; impl/mode/op are added only
    where the campaign has more than one of them, and an ``auto`` point's impl always
    once its records say which impl ran (``ran``: point id -> that impl)."""
    native = [p for p in points if p.backend not in NAMED_BACKENDS]
    vary = {
        "impl": len({impl_family(p.impl) for p in native}) > 1,
        "mode": len({p.mode for p in native}) > 1,
        "op": len({p.op for p in points}) > 1,
        "variant": len({p.variant for p in points}) > 1,
    }
    multi_gpu = len({p.gpus for p in points if p.backend == "cuda"}) > 1
    out: dict[str, str] = {}
    for p in points:
        extra = []
        if p.backend not in NAMED_BACKENDS:
            shown = impl_shown(p, ran)
            extra += [shown] if vary["impl"] or shown != p.impl else []
            extra += [p.mode] if vary["mode"] else []
        extra += [p.op] if vary["op"] else []
        extra += [p.variant] if vary["variant"] else []
        base = _base_label(p, multi_gpu)
        out[p.id] = base + (f" [{' '.join(extra)}]" if extra else "")
    return out
