"""Tables laid out like the reference study: rows = backend / P, columns = data size.

Every table is written as CSV (numbers; failed cells say ``failed``), Markdown and LaTeX
(failed cells say ``failed`` with a footnote giving the reason).

Table builders are listed in :data:`BUILDERS`. Other parts of the package add their own
(energy, CPU utilisation, ...) by defining ``register_tables(register)`` in one of the
modules named in :data:`PLUGINS`; :func:`register` appends a :class:`Builder`.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .sweep import Point

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

FAILED = "failed"
NA = "n/a"
PLUGINS = ("ciphersweep.energy", "ciphersweep.provenance")


# ------------------------------------------------------------------ the one formula


def speedup(ts: float | None, tp: float | None) -> float | None:
    """Speedup S = Ts / Tp (Ts: baseline median time, Tp: the point's median time)."""
    if ts is None or tp is None or _nan(ts) or _nan(tp) or tp <= 0:
        return None
    return ts / tp


def efficiency(s: float | None, p: int | None) -> float | None:
    """Efficiency E = S / P."""
    if s is None or not p or p <= 0:
        return None
    return s / p


def throughput_mbps(nbytes: int, t: float | None) -> float | None:
    """Throughput in MB/s (MB = 10^6 bytes)."""
    if t is None or _nan(t) or t <= 0:
        return None
    return nbytes / 1e6 / t


def _nan(v: Any) -> bool:
    try:
        return v is None or math.isnan(float(v))
    except (TypeError, ValueError):
        return True


def impl_family(impl: str) -> str:
    """Implementation family, so that e.g. gpu-ttable compares with ttable."""
    return impl.removeprefix("gpu-")


# ------------------------------------------------------------------ table model


def status_cell(row: dict[str, Any] | None) -> tuple[str, str] | None:
    """Cell and footnote of a point that has no value to show (not measured, or failed
    with its reason); None when the point ran. Every table marks such cells this way."""
    if row is None:
        return NA, "not measured"
    if row.get("status") != "ok":
        return FAILED, str(row.get("reason") or "failed")
    return None


@dataclass
class Table:
    name: str
    title: str
    rows: list[str]
    columns: list[str]
    cells: dict[tuple[str, str], Any]  # float, or a string such as "failed"/"n/a"
    notes: dict[tuple[str, str], str] = field(default_factory=dict)  # cell -> footnote
    digits: int = 6
    row_header: str = "backend"

    def value(self, row: str, col: str) -> Any:
        return self.cells.get((row, col))


@dataclass
class Context:
    cfg: dict[str, Any]
    points: Sequence[Point]
    summary: pd.DataFrame
    measurements: pd.DataFrame | None = None

    def __post_init__(self) -> None:
        self.by_point = (
            {r["point"]: r for r in self.summary.to_dict("records")}
            if len(self.summary)
            else {}
        )
        self.columns = _columns(self.points)
        self.row_of = row_labels(self.points)

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
        value: Callable[[Point, dict[str, Any]], Any],
        keep: Callable[[Point], bool] = lambda p: True,
        digits: int = 6,
    ) -> Table:
        """A rows x sizes table; ``value(point, summary_row)`` gives a cell (None: n/a)."""
        t = Table(name, title, self.rows(keep), self.columns, {}, digits=digits)
        for p in self.points:
            if not keep(p):
                continue
            key = (self.row_of[p.id], p.input_name)
            row = self.by_point.get(p.id)
            missing = status_cell(row)
            if missing is not None:
                t.cells[key], t.notes[key] = missing
            else:
                v = value(p, row)
                if isinstance(v, tuple):  # (n/a, reason)
                    t.cells[key] = NA
                    t.notes[key] = v[1]
                elif v is None or _nan(v):
                    t.cells[key] = NA
                else:
                    t.cells[key] = float(v)
        return t


@dataclass
class Builder:
    name: str
    build: Callable[[Context], Table]
    applies: Callable[[dict[str, Any], Sequence[Point]], bool] = lambda cfg, points: (
        True
    )


BUILDERS: list[Builder] = []
_plugins_loaded = False


def register(builder: Builder) -> None:
    """Add a table builder (replacing one of the same name)."""
    for i, b in enumerate(BUILDERS):
        if b.name == builder.name:
            BUILDERS[i] = builder
            return
    BUILDERS.append(builder)


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for mod in PLUGINS:
        try:
            m = importlib.import_module(mod)
        except ImportError:
            continue
        hook = getattr(m, "register_tables", None)
        if callable(hook):
            hook(register)


# ------------------------------------------------------------------ rows and columns


def _columns(points: Sequence[Point]) -> list[str]:
    seen: dict[str, tuple[int, int]] = {}
    for p in points:
        if p.input_name not in seen:
            seen[p.input_name] = (1 if p.input_path else 0, p.size_bytes)
    return sorted(seen, key=lambda n: seen[n])


def _row_key(p: Point) -> tuple[Any, ...]:
    return (
        p.backend,
        p.impl,
        p.mode,
        p.op,
        p.cipher,
        p.ranks,
        p.threads,
        p.gpus,
        p.block_threads,
    )


def _n(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def row_labels(points: Sequence[Point]) -> dict[str, str]:
    """Point id -> row label such as ``mpi (16 ranks)``; impl/mode/op are added only
    where the campaign has more than one of them."""
    native = [p for p in points if p.backend != "openssl"]
    vary = {
        "impl": len({p.impl for p in native}) > 1,
        "mode": len({p.mode for p in native}) > 1,
        "op": len({p.op for p in points}) > 1,
    }
    multi_gpu = len({p.gpus for p in points if p.backend == "cuda"}) > 1
    out: dict[str, str] = {}
    for p in points:
        if p.backend == "seq":
            base = "seq"
        elif p.backend == "omp":
            base = f"omp ({_n(p.threads, 'thread')})"
        elif p.backend == "mpi":
            base = f"mpi ({_n(p.ranks, 'rank')})"
        elif p.backend == "cuda":
            base = f"cuda ({p.block_threads} threads/block" + (
                f", {p.gpus} GPUs)" if multi_gpu else ")"
            )
        else:
            base = f"openssl {p.cipher}"
        extra = []
        if p.backend != "openssl":
            if vary["impl"]:
                extra.append(p.impl)
            if vary["mode"]:
                extra.append(p.mode)
        if vary["op"]:
            extra.append(p.op)
        out[p.id] = base + (f" [{' '.join(extra)}]" if extra else "")
    return out


# ------------------------------------------------------------------ the built-in tables


def baseline_of(ctx: Context) -> dict[str, str]:
    """Point id -> id of its baseline point (same impl family, mode, op, input)."""
    bb = ctx.cfg.get("baseline", {}).get("backend", "seq")
    base: dict[tuple[str, str, str, str], str] = {}
    for p in ctx.points:
        if p.backend == bb:
            base[(impl_family(p.impl), p.mode, p.op, p.input_name)] = p.id
    out = {}
    for p in ctx.points:
        if p.backend == bb:
            continue
        b = base.get((impl_family(p.impl), p.mode, p.op, p.input_name))
        if b is None and p.backend == "openssl":
            continue
        if b is not None:
            out[p.id] = b
    return out


def _t(row: dict[str, Any]) -> float | None:
    v = row.get("t_total_median")
    return None if _nan(v) else float(v)


def build_time(ctx: Context) -> Table:
    return ctx.grid(
        "time", "Execution time (s), median over repetitions", lambda p, r: _t(r)
    )


def _speedup_cell(
    ctx: Context, base: dict[str, str], p: Point, r: dict[str, Any]
) -> Any:
    b = base.get(p.id)
    if b is None:
        return (
            NA,
            f"no {ctx.cfg.get('baseline', {}).get('backend', 'seq')} baseline with impl {p.impl}, mode {p.mode}",
        )
    brow = ctx.by_point.get(b)
    if brow is None or brow.get("status") != "ok":
        return (NA, f"baseline {b} failed")
    return speedup(_t(brow), _t(r))


def _is_baseline(ctx: Context) -> Callable[[Point], bool]:
    bb = ctx.cfg.get("baseline", {}).get("backend", "seq")
    return lambda p: p.backend != bb and p.backend != "openssl"


def build_speedup(ctx: Context) -> Table:
    base = baseline_of(ctx)
    return ctx.grid(
        "speedup",
        "Speedup Ts/Tp vs the sequential kernel (same impl, mode, op, size)",
        lambda p, r: _speedup_cell(ctx, base, p, r),
        keep=_is_baseline(ctx),
        digits=3,
    )


def build_efficiency(ctx: Context) -> Table:
    base = baseline_of(ctx)

    def cell(p: Point, r: dict[str, Any]) -> Any:
        s = _speedup_cell(ctx, base, p, r)
        if isinstance(s, tuple):
            return s
        return efficiency(s, p.p)

    keep = _is_baseline(ctx)
    return ctx.grid(
        "efficiency",
        "Efficiency = speedup / P",
        cell,
        keep=lambda p: keep(p) and p.backend != "cuda",
        digits=3,
    )


def build_throughput(ctx: Context) -> Table:
    return ctx.grid(
        "throughput",
        "Throughput (MB/s, MB = 10^6 bytes), from the median time",
        lambda p, r: throughput_mbps(p.size_bytes, _t(r)),
        digits=1,
    )


def build_cuda_copy(ctx: Context) -> Table:
    """Host-device copy table like the reference study: H2D, kernel, D2H, total."""
    cuda = [p for p in ctx.points if p.backend == "cuda"]
    labels = row_labels(ctx.points)
    several = len({labels[p.id] for p in cuda}) > 1
    parts = [
        ("copy host-device", "t_h2d_median"),
        ("copy device-host", "t_d2h_median"),
        ("kernel", "t_compute_median"),
        ("total", "t_total_median"),
    ]
    rows: list[str] = []
    t = Table(
        "cuda_copy",
        "CUDA host-device copies and kernel time (s), medians",
        rows,
        ctx.columns,
        {},
        row_header="part",
    )
    for p in cuda:
        r = ctx.by_point.get(p.id)
        for label, col in parts:
            row = f"{labels[p.id]}: {label}" if several else label
            if row not in rows:
                rows.append(row)
            key = (row, p.input_name)
            if r is None:
                t.cells[key] = NA
            elif r.get("status") != "ok":
                t.cells[key] = FAILED
                t.notes[key] = str(r.get("reason") or "failed")
            else:
                v = r.get(col)
                t.cells[key] = NA if _nan(v) else float(v)
    return t


def _has(backend: str) -> Callable[[dict[str, Any], Sequence[Point]], bool]:
    return lambda cfg, points: any(p.backend == backend for p in points)


def _has_parallel(cfg: dict[str, Any], points: Sequence[Point]) -> bool:
    bb = cfg.get("baseline", {}).get("backend", "seq")
    return any(p.backend == bb for p in points) and any(
        p.backend not in (bb, "openssl") for p in points
    )


register(Builder("time", build_time))
register(Builder("speedup", build_speedup, _has_parallel))
register(
    Builder(
        "efficiency",
        build_efficiency,
        lambda c, p: (
            _has_parallel(c, p) and any(x.backend in ("omp", "mpi") for x in p)
        ),
    )
)
register(Builder("throughput", build_throughput))
register(Builder("cuda_copy", build_cuda_copy, _has("cuda")))


def builders(cfg: dict[str, Any], points: Sequence[Point]) -> list[Builder]:
    _load_plugins()
    return [b for b in BUILDERS if b.applies(cfg, points)]


def table_names(cfg: dict[str, Any], points: Sequence[Point]) -> list[str]:
    return [b.name for b in builders(cfg, points)]


def plot_names(cfg: dict[str, Any], points: Sequence[Point]) -> list[str]:
    names = ["time_vs_size", "throughput"]
    if _has_parallel(cfg, points):
        names.insert(1, "speedup_vs_p")
    return names


# ------------------------------------------------------------------ rendering


def _fmt(v: Any, digits: int) -> str:
    if isinstance(v, float):
        if v != 0 and (abs(v) < 10 ** (-digits + 2) or abs(v) >= 1e7):
            return f"{v:.{max(digits - 3, 3)}e}"
        return f"{v:.{digits}f}"
    return "" if v is None else str(v)


def to_frame(t: Table) -> pd.DataFrame:
    import pandas as pd

    data = {c: [t.cells.get((r, c), "") for r in t.rows] for c in t.columns}
    frame = pd.DataFrame(
        data, index=pd.Index(t.rows, name=t.row_header), columns=t.columns
    )
    return frame


def _with_notes(t: Table) -> tuple[list[list[str]], list[str]]:
    """Formatted rows with footnote markers, and the footnotes (reason text deduplicated)."""
    notes: list[str] = []
    body = []
    for r in t.rows:
        line = [r]
        for c in t.columns:
            v = t.cells.get((r, c))
            s = _fmt(v, t.digits)
            note = t.notes.get((r, c))
            if note:
                if note not in notes:
                    notes.append(note)
                s += f" [{notes.index(note) + 1}]"
            line.append(s)
        body.append(line)
    return body, notes


def render_markdown(t: Table) -> str:
    from tabulate import tabulate

    body, notes = _with_notes(t)
    text = (
        f"### {t.title}\n\n"
        + tabulate(
            body,
            headers=[t.row_header] + t.columns,
            tablefmt="github",
            disable_numparse=True,
        )
        + "\n"
    )
    if notes:
        text += "\n" + "\n".join(f"[{i + 1}] {n}" for i, n in enumerate(notes)) + "\n"
    return text


def _tex_escape(s: str) -> str:
    for a, b in (
        ("\\", r"\textbackslash{}"),
        ("&", r"\&"),
        ("%", r"\%"),
        ("$", r"\$"),
        ("#", r"\#"),
        ("_", r"\_"),
        ("{", r"\{"),
        ("}", r"\}"),
        ("~", r"\textasciitilde{}"),
        ("^", r"\textasciicircum{}"),
    ):
        s = s.replace(a, b)
    return s


def render_latex(t: Table) -> str:
    body, notes = _with_notes(t)
    cols = "l" + "r" * len(t.columns)
    lines = [
        "% " + t.title,
        r"\begin{tabular}{" + cols + "}",
        r"\hline",
        " & ".join(_tex_escape(h) for h in [t.row_header] + t.columns) + r" \\",
        r"\hline",
    ]
    for row in body:
        lines.append(" & ".join(_tex_escape(c) for c in row) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    for i, n in enumerate(notes):
        lines.append(
            f"\\\\[{i + 1}] {_tex_escape(n)}"
            if i
            else f"\n\\noindent [{i + 1}] {_tex_escape(n)}"
        )
    return "\n".join(lines) + "\n"


def write_table(t: Table, outdir: str | Path) -> list[Path]:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    frame = to_frame(t)
    csv = out / f"{t.name}.csv"
    frame.to_csv(csv)
    md = out / f"{t.name}.md"
    md.write_text(render_markdown(t))
    tex = out / f"{t.name}.tex"
    tex.write_text(render_latex(t))
    return [csv, md, tex]


def build_all(ctx: Context) -> list[Table]:
    return [b.build(ctx) for b in builders(ctx.cfg, ctx.points)]


def write_tables(
    cfg: dict[str, Any],
    points: Sequence[Point],
    inputs: Any,
    outdir: str,
    log: str | None = None,
) -> list[Table]:
    """The ``tables`` rule: build every table from summary.csv and write it three ways."""
    import pandas as pd

    summary = pd.read_csv(inputs.summary)
    meas = None
    mpath = getattr(inputs, "measurements", None)
    if mpath and Path(mpath).exists() and Path(mpath).stat().st_size > 0:
        try:
            meas = pd.read_parquet(mpath)
        except Exception:  # noqa: BLE001 - an empty campaign writes an empty parquet
            meas = None
    ctx = Context(cfg, points, summary, meas)
    tables = build_all(ctx)
    for t in tables:
        write_table(t, outdir)
    if log:
        with open(log, "w") as fh:
            for t in tables:
                print(render_markdown(t), file=fh)
    return tables
