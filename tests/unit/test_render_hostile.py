"""Text a campaign gives (table titles, rename labels, footnotes, claim texts) is
typeset literally in LaTeX, Markdown and HTML: a line break, a ``|`` or a command in it
never makes a line, a cell or a command of its own."""

from __future__ import annotations

import re

import pytest
from ciphersweep.analysis import render
from ciphersweep.analysis.compare.output import COLUMNS, markdown
from ciphersweep.analysis.tables.model import Table

HOSTILE = [
    "x\n\\input{private.txt}",
    "x\r\n\\input{private.txt}\n",
    "a | b",
    "a \\| b",
    "x\n\n\\end{tabular}\\input{p}",
    "x\u2028\\write18{ls}",
    "<script>alert(1)</script>",
    "50% & $x$ #1 ~ ^ _",
]


def _table(text: str) -> Table:
    return Table(
        "mine",
        f"Time {text}",
        ["seq", f"row {text}"],
        ["1KiB", f"col {text}"],
        {
            ("seq", "1KiB"): 1.0,
            ("seq", f"col {text}"): 2.0,
            (f"row {text}", "1KiB"): "n/a",
            (f"row {text}", f"col {text}"): 3.0,
        },
        notes={(f"row {text}", "1KiB"): f"why {text}"},
        row_header=f"impl {text}",
    )


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", line))


@pytest.mark.parametrize("text", HOSTILE)
def test_latex_has_the_lines_of_a_plain_table(text: str) -> None:
    tex = render.render_latex(_table(text))
    plain = render.render_latex(_table("plain"))
    assert len(tex.splitlines()) == len(plain.splitlines())
    assert tex.splitlines()[0].startswith("% ")
    # every backslash the text brought is typeset, none starts a command
    for cmd in ("input", "write18", "end{tabular}\\input"):
        assert f"\\{cmd}" not in tex.split("\n", 1)[1].replace("\\textbackslash{}", "")
    rows = [ln for ln in tex.splitlines() if ln.endswith(r" \\")]
    assert all(ln.count(" & ") == 2 for ln in rows), rows


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_rows_keep_their_cells(text: str) -> None:
    md = render.render_markdown(_table(text))
    plain = render.render_markdown(_table("plain"))
    assert len(md.splitlines()) == len(plain.splitlines())
    rows = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert len(rows) == 4
    assert all(_unescaped_pipes(ln) == 4 for ln in rows), rows
    assert "<script" not in md


@pytest.mark.parametrize("text", HOSTILE)
def test_html_escapes_the_text(text: str) -> None:
    page = render.render_html(_table(text), caption=f"caption {text}")
    assert "<script" not in page
    assert "<h3>" in page and page.count("<tr>") == 3


def test_claim_texts_keep_their_cells() -> None:
    rows = [{c: "x | y\nz" for c in COLUMNS["claims"]}]
    md = markdown("claims", rows)
    lines = md.splitlines()
    assert len(lines) == 3
    n = len(COLUMNS["claims"]) + 1
    assert all(_unescaped_pipes(ln) == n for ln in lines), lines


def test_tex_escape_replaces_each_character_once() -> None:
    assert render.tex_escape("a\\b{c}") == r"a\textbackslash{}b\{c\}"
