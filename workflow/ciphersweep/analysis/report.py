"""The campaign report: one self-contained HTML page (``results/<campaign>/report.html``).

On top a summary (what ran, where, when, the headline speedups and, where the campaign
has one, the comparison with the published study), then every table exactly as its
Markdown/LaTeX version (same numbers, same footnotes) with a caption saying what it
shows and how it was computed, the plots with their captions, the history, the failed
points and the provenance. Images are embedded (``data:`` URIs): the page needs no
other file. The page is the Jinja2 template ``templates/report.html.j2`` (autoescaped);
this module only gathers what it shows.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd
from markupsafe import Markup

from ciphersweep.analysis import plots as cs_plots
from ciphersweep.analysis import render
from ciphersweep.analysis.history import outputs as cs_history
from ciphersweep.analysis.history import trends as cs_trends
from ciphersweep.analysis.tables import model as cs_tables
from ciphersweep.analysis.tables import registry
from ciphersweep.core import outcome, wording
from ciphersweep.core.atomic import write_text
from ciphersweep.plan.sweep import Point

TEMPLATES = Path(__file__).parent / "templates"
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
)

# sections of the page for tables that have their own (the others: "Tables")
SUMMARY_TABLES = {
    "claims": "The published study's findings, checked here",
    "published": "Comparison with the published study",
}
PROVENANCE_TABLES = ("provenance",)
WHERE_ROWS = ("Hosts", "CPU model", "CPU cores", "GPU model", "First / last record")
HEADLINES = 6

# ------------------------------------------------------------------ summary


def basis(cfg: dict[str, Any], summary: pd.DataFrame | None) -> wording.Basis:
    """What the campaign's cells rest on, from summary.csv (none: nothing measured)."""
    rows = [] if summary is None or summary.empty else summary.to_dict("records")
    return wording.basis_of(cfg, rows)


def what_ran(
    cfg: dict[str, Any], points: Sequence[Point], summary: pd.DataFrame | None = None
) -> list[tuple[str, str]]:
    """(label, text) facts about the campaign's sweep; the repetitions and the
    statistic as they ran (summary.csv's)."""
    backends = sorted({p.backend for p in points})
    sizes = list(dict.fromkeys(p.input_name for p in points))
    b = basis(cfg, summary)
    return [
        ("Campaign", str(cfg.get("campaign", ""))),
        ("Backends", ", ".join(backends) or "none"),
        ("Data sizes", ", ".join(sizes) or "none"),
        ("Points", str(len(points))),
        ("Repetitions per point", b.reps_text()),
        ("Statistic", b.clause()),
        (
            "Container runtime",
            str(cfg.get("platform", {}).get("container", {}).get("runtime", "none")),
        ),
        ("History", history_fact(cfg)),
    ]


def history_fact(cfg: dict[str, Any]) -> str:
    """Whether this campaign went into the history store (off: no History section,
    whatever history tables an earlier run left)."""
    hist = cfg.get("history") or {}
    if not hist.get("enabled", True):
        return "off (history.enabled: false): not appended, no regressions judged"
    return f"appended to {cs_history.store_path(cfg)}"


def where_ran(tabs: Sequence[cs_tables.Table]) -> list[tuple[str, str]]:
    prov = next((t for t in tabs if t.name == "provenance"), None)
    if prov is None:
        return []
    return [
        (r, str(prov.value(r, prov.columns[0])))
        for r in prov.rows
        if r in WHERE_ROWS and prov.columns
    ]


def headline_speedups(tabs: Sequence[cs_tables.Table]) -> list[str]:
    """The best measured speedup of each row of the speedup table, best first."""
    sp = next((t for t in tabs if t.name == "speedup"), None)
    if sp is None:
        return []
    best: list[tuple[float, str]] = []
    fmt = render.table_format(sp)
    for r in sp.rows:
        vals = [(v, c) for c in sp.columns if isinstance(v := sp.value(r, c), float)]
        if vals:
            v, c = max(vals)
            iv = render.interval_text(sp.intervals.get((r, c)), fmt)
            flag = " (interval wider than the target)" if (r, c) in sp.notes else ""
            best.append((v, f"{r}: {fmt(v)}x{iv} at {c}{flag}"))
    return [text for _, text in sorted(best, reverse=True)[:HEADLINES]]


# ------------------------------------------------------------------ the page


def _png_data(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def _plot(path: Path, b: wording.Basis) -> dict[str, str]:
    title, caption = (
        cs_plots.words(path.stem, b)
        if path.stem in cs_plots.CAPTIONS
        else (path.stem, "")
    )
    return {
        "name": path.stem,
        "title": title,
        "caption": caption,
        "src": _png_data(path),
        "files": f"plots/{path.stem}.png, .pdf, .svg",
    }


def history_parts(paths: Sequence[str | Path]) -> dict[str, Any] | None:
    """The history section's tables and trend plot (history.csv, regressions.csv, the
    plot's PNG); None without them."""
    if not paths:
        return None
    hist, regs, png = (Path(p) for p in paths)
    stored = cs_history.read_history(hist)
    runs = cs_history.history_table(stored)
    table = cs_history.regressions_table(cs_history.read_regressions(regs))
    plot = {
        "name": cs_trends.NAME,
        "title": cs_trends.TITLE,
        "caption": cs_trends.caption(cs_history.stored_basis(stored)),
        "src": _png_data(png),
        "files": f"plots/{cs_trends.NAME}.png, .pdf, .svg; tables/history.csv, "
        "regressions.csv",
    }
    return {"tables": [_html(table), _html(runs)], "plot": plot}


def _html(t: cs_tables.Table) -> Markup:
    """A table as HTML (ciphersweep.analysis.render escapes every text it puts in)."""
    return Markup(render.render_html(t))


def _failures(failures: pd.DataFrame) -> list[dict[str, str]]:
    return [
        {
            "point": str(r["point"]),
            "reason": str(r.get("reason")),
            "launch_line": str(r.get("launch_line") or ""),
        }
        for _, r in failures.iterrows()
    ]


def intro(b: wording.Basis) -> str:
    return (
        "Cipher kernels swept over data sizes and parallel shapes. Every output was "
        f"verified against OpenSSL before its time was kept. {b.sentence()}"
    )


def page(
    cfg: dict[str, Any],
    points: Sequence[Point],
    tabs: Sequence[cs_tables.Table],
    plot_paths: Sequence[str | Path],
    failures: pd.DataFrame,
    history: dict[str, Any] | None = None,
    summary: pd.DataFrame | None = None,
) -> str:
    """The whole report as one HTML document (``history``: from history_parts;
    ``summary``: summary.csv, what the words on the statistic, the levels and the
    repetitions come from)."""
    skip = set(SUMMARY_TABLES) | set(PROVENANCE_TABLES)
    b = basis(cfg, summary)
    return _ENV.get_template("report.html.j2").render(
        name=str(cfg.get("campaign", "")),
        css=Markup((TEMPLATES / "report.css").read_text()),
        intro=intro(b),
        sections=[
            s
            for s in ("summary", "tables", "plots", "history", "failures", "provenance")
            if s != "history" or history
        ],
        what_ran=what_ran(cfg, points, summary),
        where_ran=where_ran(tabs),
        measured=len(points) - len(failures),
        total=len(points),
        nothing=outcome.nothing_measured(len(points), len(points) - len(failures)),
        headlines=headline_speedups(tabs),
        summary_tables=[
            (heading, _html(t))
            for name, heading in SUMMARY_TABLES.items()
            for t in tabs
            if t.name == name
        ],
        tables=[_html(t) for t in tabs if t.name not in skip],
        plots=[_plot(Path(p), b) for p in plot_paths],
        history=history,
        failures=_failures(failures),
        provenance=[_html(t) for t in tabs if t.name in PROVENANCE_TABLES],
    )


def write_report(
    cfg: dict[str, Any],
    points: Sequence[Point],
    inputs: Any,
    out: str,
    log: str | None = None,
    facts: Mapping[str, Any] | None = None,
) -> None:
    """The ``report`` rule: rebuild the tables from the gathered files (the same
    builders as the ``tables`` rule, with the same host ``facts``) and write the
    page, with the plots ``inputs.plots`` names."""
    plot_paths = list(getattr(inputs, "plots", None) or [])
    ctx = registry.context_from_files(cfg, points, inputs, facts)
    tabs = registry.build_all(ctx)
    failures = pd.read_csv(inputs.failures)
    hist = history_parts(list(getattr(inputs, "history", None) or []))
    write_text(
        out, page(cfg, points, tabs, plot_paths, failures, hist, summary=ctx.summary)
    )
    if log:
        Path(log).write_text(
            f"{out}: {len(tabs)} tables, {len(plot_paths)} plots, "
            f"{len(failures)} failed points\n"
        )
