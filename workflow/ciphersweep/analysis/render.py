"""Rendering tables: number formatting, CSV, Markdown, LaTeX and HTML.

One number format per table (:func:`table_format`): every value is shown with the
table's significant digits (``Table.digits``), all in plain decimal notation, or all in
scientific notation when the smallest value would need more than
:data:`MAX_DECIMALS` decimals or the largest reaches 10^7 -- never a mix of both. The
CSV version keeps :data:`CSV_DIGITS` significant digits (no binary float noise such as
``119.67448599999999``); the exact values stay in measurements.csv/.parquet.

Cells without a value say ``failed`` or ``n/a``; their reasons (and any other note on a
cell) are numbered footnotes, the same in Markdown, LaTeX and HTML.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd
from tabulate import tabulate

from ciphersweep.analysis.tables.model import Table
from ciphersweep.core.atomic import replacing

MAX_DECIMALS = 6
CSV_DIGITS = 12


# ------------------------------------------------------------------ numbers


def _exponent(v: float) -> int:
    return math.floor(math.log10(abs(v)))


def _decimals(v: float, sig: int) -> int:
    """Decimals that show ``v`` with ``sig`` significant digits in fixed notation."""
    return max(0, sig - 1 - _exponent(v))


def _finite(values: Iterable[Any]) -> list[float]:
    return [
        float(v)
        for v in values
        if isinstance(v, float | int)
        and not isinstance(v, bool)
        and math.isfinite(float(v))
    ]


def scientific_needed(values: Iterable[Any], sig: int) -> bool:
    """Whether a table holding ``values`` is written in scientific notation."""
    nonzero = [abs(v) for v in _finite(values) if v != 0]
    if not nonzero:
        return False
    return _decimals(min(nonzero), sig) > MAX_DECIMALS or max(nonzero) >= 1e7


def number_format(values: Iterable[Any], sig: int) -> Callable[[float], str]:
    """The one number format of a table with these values and significant digits."""
    sig = max(1, sig)
    if scientific_needed(values, sig):
        return lambda v: f"{v:.{sig - 1}e}"

    def fixed(v: float) -> str:
        if v == 0:
            return "0"
        return f"{v:.{_decimals(v, sig)}f}"

    return fixed


def table_format(t: Table) -> Callable[[float], str]:
    return number_format(t.cells.values(), t.digits)


def cell_text(v: Any, fmt: Callable[[float], str]) -> str:
    """A cell as text: numbers in the table's format, strings as they are."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return "n/a"
    if isinstance(v, float):
        return fmt(v)
    return "" if v is None else str(v)


def csv_value(v: Any, digits: int = CSV_DIGITS) -> Any:
    """A value as the CSV keeps it: floats rounded to ``digits`` significant digits."""
    if isinstance(v, float) and math.isfinite(v) and v != 0:
        return float(f"{v:.{digits}g}")
    return v


def interval_text(iv: tuple[float, float] | None, fmt: Callable[[float], str]) -> str:
    """`` [low..high]`` of a cell's interval in the table's number format."""
    if iv is None:
        return ""
    return f" [{cell_text(float(iv[0]), fmt)}..{cell_text(float(iv[1]), fmt)}]"


# ------------------------------------------------------------------ footnotes


def with_notes(t: Table) -> tuple[list[list[str]], list[str]]:
    """Formatted rows (row label first) with footnote markers ``[n]``, and the
    footnotes in order (the same text is one footnote)."""
    fmt = table_format(t)
    notes: list[str] = []
    body = []
    for r in t.rows:
        line = [r]
        for c in t.columns:
            v = t.cells.get((r, c))
            s = cell_text(v, fmt)
            if getattr(t, "show_intervals", False) and isinstance(v, float):
                s += interval_text(t.intervals.get((r, c)), fmt)
            note = t.notes.get((r, c))
            if note:
                if note not in notes:
                    notes.append(note)
                s += f" [{notes.index(note) + 1}]"
            line.append(s)
        body.append(line)
    return body, notes


# ------------------------------------------------------------------ CSV


def to_frame(t: Table) -> pd.DataFrame:
    """The table as a DataFrame (rows x columns), values as stored."""
    data = {c: [t.cells.get((r, c), "") for r in t.rows] for c in t.columns}
    return pd.DataFrame(
        data, index=pd.Index(t.rows, name=t.row_header), columns=t.columns
    )


def csv_frame(t: Table) -> pd.DataFrame:
    """The CSV version: numbers with :data:`CSV_DIGITS` significant digits."""
    return to_frame(t).map(csv_value)


# ------------------------------------------------------------------ Markdown


# every line break (and other control character) -> a space
_ONE_LINE = str.maketrans(
    dict.fromkeys([*map(chr, range(32)), *"\x7f\u2028\u2029\x85"], " ")
)


def one_line(s: str) -> str:
    """Text on one line: every line break (and other control character) a space."""
    return s.translate(_ONE_LINE)


def md_escape(s: str) -> str:
    """Text of a Markdown table cell, heading or footnote: one line, a ``|`` that
    does not end the cell, no raw HTML."""
    out = one_line(s).replace("\\", "\\\\").replace("|", "\\|")
    return out.replace("<", "&lt;").replace(">", "&gt;")


def render_markdown(t: Table) -> str:
    body, notes = with_notes(t)
    body = [[md_escape(c) for c in row] for row in body]
    text = (
        f"### {md_escape(t.title)}\n\n"
        + tabulate(
            body,
            headers=[md_escape(h) for h in [t.row_header] + t.columns],
            tablefmt="github",
            disable_numparse=True,
            colalign=["left"] + ["right"] * len(t.columns),
        )
        + "\n"
    )
    if notes:
        text += (
            "\n"
            + "\n".join(f"[{i + 1}] {md_escape(n)}" for i, n in enumerate(notes))
            + "\n"
        )
    return text


# ------------------------------------------------------------------ LaTeX


_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "±": r"$\pm$",
    "→": r"$\rightarrow$",
}
_TEX_TABLE = str.maketrans(_TEX)


def tex_escape(s: str) -> str:
    """Text as LaTeX typesets it literally, on one line (a line break could end a
    comment or a row and start a command of its own); each character is replaced
    once, so a replacement is never escaped again."""
    return one_line(s).translate(_TEX_TABLE)


def render_latex(t: Table) -> str:
    body, notes = with_notes(t)
    cols = "l" + "r" * len(t.columns)
    lines = [
        "% " + one_line(t.title),
        r"\begin{tabular}{" + cols + "}",
        r"\hline",
        " & ".join(tex_escape(h) for h in [t.row_header] + t.columns) + r" \\",
        r"\hline",
    ]
    for row in body:
        lines.append(" & ".join(tex_escape(c) for c in row) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    for i, n in enumerate(notes):
        lines.append(
            f"\\\\[{i + 1}] {tex_escape(n)}"
            if i
            else f"\n\\noindent [{i + 1}] {tex_escape(n)}"
        )
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ HTML


def render_html(t: Table, caption: str | None = None) -> str:
    """The table as an HTML ``<figure>``: title, the table exactly as in Markdown and
    LaTeX (same numbers, same footnote markers), the footnotes, and a caption saying
    what the table shows and how it was computed."""
    e = html.escape
    body, notes = with_notes(t)
    head = "".join(f"<th>{e(h)}</th>" for h in [t.row_header] + t.columns)
    rows = []
    for line in body:
        cells = f"<th scope='row'>{e(line[0])}</th>" + "".join(
            f"<td>{e(c)}</td>" for c in line[1:]
        )
        rows.append(f"<tr>{cells}</tr>")
    parts = [
        f"<figure class='table' id='table-{e(t.name)}' data-table='{e(t.name)}'>",
        f"<h3>{e(t.title)}</h3>",
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>",
    ]
    if notes:
        items = "".join(
            f"<li value='{i + 1}'>[{i + 1}] {e(n)}</li>" for i, n in enumerate(notes)
        )
        parts.append(f"<ol class='footnotes'>{items}</ol>")
    text = caption if caption is not None else getattr(t, "caption", "")
    if text:
        parts.append(f"<figcaption>{e(text)}</figcaption>")
    parts.append("</figure>")
    return "\n".join(parts)


# ------------------------------------------------------------------ files


def write_table(t: Table, outdir: str | Path) -> list[Path]:
    """Write a table as CSV, Markdown and LaTeX; returns the three paths."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{t.name}.{ext}" for ext in ("csv", "md", "tex")]
    with replacing(paths) as (csv, md, tex):  # all three or none
        csv_frame(t).to_csv(csv)
        md.write_text(render_markdown(t))
        tex.write_text(render_latex(t))
    return paths
