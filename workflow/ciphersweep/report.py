"""The campaign report: one self-contained HTML page (``results/<campaign>/report.html``).

On top a summary (what ran, where, when, the headline speedups and, where the campaign
has one, the comparison with the published study), then every table exactly as its
Markdown/LaTeX version (same numbers, same footnotes) with a caption saying what it
shows and how it was computed, the plots with their captions, the failed points and
the provenance. Images are embedded (``data:`` URIs): the page needs no other file.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import plots as cs_plots
from . import render
from . import tables as cs_tables
from .history import outputs as cs_history
from .history import trends as cs_trends
from .sweep import Point

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

# sections of the page for tables that have their own (the others: "Tables")
SUMMARY_TABLES = {
    "claims": "The published study's findings, checked here",
    "published": "Comparison with the published study",
}
PROVENANCE_TABLES = ("provenance",)
WHERE_ROWS = ("Hosts", "CPU model", "CPU cores", "GPU model", "First / last record")
HEADLINES = 6

CSS = """
body{font-family:system-ui,sans-serif;max-width:72rem;margin:1.5rem auto;padding:0 1rem;
color:#1b1b1b;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{border-bottom:2px solid #ccd;padding-bottom:.2rem;
margin-top:2.2rem}h3{font-size:1.05rem;margin:.2rem 0 .4rem}
nav a{margin-right:1rem}
table{border-collapse:collapse;margin:.3rem 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #c8c8d0;padding:.2rem .55rem}td{text-align:right}
thead th{background:#eef0f6}tbody th{text-align:left;font-weight:normal;background:#f8f8fb}
figure{margin:1.2rem 0 1.8rem;overflow-x:auto}figcaption{color:#444;font-size:.92rem;max-width:60rem}
ol.footnotes{font-size:.88rem;color:#333;list-style:none;padding-left:0;margin:.3rem 0}
img{max-width:100%;height:auto;border:1px solid #e0e0e6}
.headline li{margin:.15rem 0}.facts th{width:12rem}.muted{color:#666}
"""


def _e(s: Any) -> str:
    return html.escape(str(s))


# ------------------------------------------------------------------ summary


def what_ran(cfg: dict[str, Any], points: Sequence[Point]) -> list[tuple[str, str]]:
    """(label, text) facts about the campaign's sweep."""
    backends = sorted({p.backend for p in points})
    sizes = list(dict.fromkeys(p.input_name for p in points))
    return [
        ("Campaign", str(cfg.get("campaign", ""))),
        ("Backends", ", ".join(backends) or "none"),
        ("Data sizes", ", ".join(sizes) or "none"),
        ("Points", str(len(points))),
        ("Repetitions per point", str(cfg.get("reps", "?"))),
        (
            "Container runtime",
            str(cfg.get("platform", {}).get("container", {}).get("runtime", "none")),
        ),
    ]


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


def _facts(rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(
        f"<tr><th scope='row'>{_e(k)}</th><td style='text-align:left'>{_e(v)}</td></tr>"
        for k, v in rows
    )
    return f"<table class='facts'><tbody>{body}</tbody></table>"


def summary_section(
    cfg: dict[str, Any],
    points: Sequence[Point],
    tabs: Sequence[cs_tables.Table],
    failures: pd.DataFrame,
) -> str:
    parts = ["<section id='summary'><h2>Summary</h2>"]
    parts.append("<h3>What ran</h3>" + _facts(what_ran(cfg, points)))
    where = where_ran(tabs)
    if where:
        parts.append("<h3>Where and when</h3>" + _facts(where))
    ok = len(points) - len(failures)
    parts.append(
        f"<p>{ok} of {len(points)} points measured and verified"
        + (f", <a href='#failures'>{len(failures)} failed</a>" if len(failures) else "")
        + ".</p>"
    )
    heads = headline_speedups(tabs)
    if heads:
        items = "".join(f"<li>{_e(h)}</li>" for h in heads)
        parts.append(
            "<h3>Headline speedups</h3><p class='muted'>Best speedup Ts/Tp of each "
            "backend over the data sizes (details in the speedup table).</p>"
            f"<ul class='headline'>{items}</ul>"
        )
    for name, heading in SUMMARY_TABLES.items():
        for t in tabs:
            if t.name == name:
                parts.append(f"<h3>{_e(heading)}</h3>")
                parts.append(render.render_html(t))
    parts.append("</section>")
    return "\n".join(parts)


# ------------------------------------------------------------------ plots, failures


def _png_data(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def plots_section(plot_paths: Sequence[str | Path]) -> str:
    parts = ["<section id='plots'><h2>Plots</h2>"]
    for p in map(Path, plot_paths):
        name = p.stem
        title, caption = cs_plots.CAPTIONS.get(name, (name, ""))
        parts.append(
            f"<figure class='plot' id='plot-{_e(name)}'><h3>{_e(title)}</h3>"
            f"<img alt='{_e(title)}' src='{_png_data(p)}'>"
            f"<figcaption>{_e(caption)} Files: plots/{_e(name)}.png, .pdf, .svg."
            "</figcaption></figure>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def failures_section(failures: pd.DataFrame) -> str:
    parts = ["<section id='failures'><h2>Failures</h2>"]
    if failures.empty:
        parts.append("<p>No point failed.</p>")
    else:
        rows = "".join(
            f"<tr><th scope='row'>{_e(r['point'])}</th>"
            f"<td style='text-align:left'>{_e(r.get('reason'))}</td>"
            f"<td style='text-align:left'><code>{_e(r.get('launch_line') or '')}</code></td></tr>"
            for _, r in failures.iterrows()
        )
        parts.append(
            "<p>Points without a valid timing (crash, timeout or verification "
            "failure); running the workflow again re-runs exactly these.</p>"
            "<table><thead><tr><th>point</th><th>reason</th><th>launch line</th></tr>"
            f"</thead><tbody>{rows}</tbody></table>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def history_section(paths: Sequence[str | Path]) -> str:
    """The campaign's history (history.csv, regressions.csv and the trend plot;
    empty without them)."""
    if not paths:
        return ""
    hist, regs, png = (Path(p) for p in paths)
    runs = cs_history.history_table(cs_history.read_history(hist))
    table = cs_history.regressions_table(cs_history.read_regressions(regs))
    return "\n".join(
        [
            "<section id='history'><h2>History</h2>",
            render.render_html(table),
            render.render_html(runs),
            (
                f"<figure class='plot' id='plot-{cs_trends.NAME}'>"
                f"<h3>{_e(cs_trends.TITLE)}</h3><img alt='{_e(cs_trends.TITLE)}' "
                f"src='{_png_data(png)}'><figcaption>{_e(cs_trends.CAPTION)} Files: "
                f"plots/{cs_trends.NAME}.png, .pdf, .svg; tables/history.csv, "
                "regressions.csv.</figcaption></figure>"
            ),
            "</section>",
        ]
    )


# ------------------------------------------------------------------ the page


def page(
    cfg: dict[str, Any],
    points: Sequence[Point],
    tabs: Sequence[cs_tables.Table],
    plot_paths: Sequence[str | Path],
    failures: pd.DataFrame,
    history: str = "",
) -> str:
    """The whole report as one HTML document (``history``: its history section)."""
    name = str(cfg.get("campaign", ""))
    main_tabs = [
        t
        for t in tabs
        if t.name not in SUMMARY_TABLES and t.name not in PROVENANCE_TABLES
    ]
    prov_tabs = [t for t in tabs if t.name in PROVENANCE_TABLES]
    nav = " ".join(
        f"<a href='#{s}'>{s.capitalize()}</a>"
        for s in ("summary", "tables", "plots", "history", "failures", "provenance")
        if s != "history" or history
    )
    body = [
        f"<h1>ciphersweep campaign: {_e(name)}</h1>",
        (
            "<p class='muted'>AES kernels swept over data sizes and parallel shapes. Every "
            "output was verified against OpenSSL before its time was kept; cells are "
            "medians over the timed repetitions.</p>"
        ),
        f"<nav>{nav}</nav>",
        summary_section(cfg, points, tabs, failures),
        "<section id='tables'><h2>Tables</h2>",
        *(render.render_html(t) for t in main_tabs),
        "</section>",
        plots_section(plot_paths),
        history,
        failures_section(failures),
        "<section id='provenance'><h2>Provenance</h2>",
        *(render.render_html(t) for t in prov_tabs),
        "</section>",
    ]
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>ciphersweep: {_e(name)}</title><style>{CSS}</style></head>"
        "<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def write_report(
    cfg: dict[str, Any],
    points: Sequence[Point],
    inputs: Any,
    plot_paths: Sequence[str],
    out: str,
    log: str | None = None,
) -> None:
    """The ``report`` rule: rebuild the tables from the gathered files (the same
    builders as the ``tables`` rule) and write the page."""
    import pandas as pd

    ctx = cs_tables.context_from_files(cfg, points, inputs)
    tabs = cs_tables.build_all(ctx)
    failures = pd.read_csv(inputs.failures)
    hist = history_section(list(getattr(inputs, "history", None) or []))
    text = page(cfg, points, tabs, plot_paths, failures, hist)
    tmp = Path(out).with_suffix(".html.tmp")
    tmp.write_text(text)
    tmp.replace(out)
    if log:
        Path(log).write_text(
            f"{out}: {len(tabs)} tables, {len(plot_paths)} plots, "
            f"{len(failures)} failed points\n"
        )
