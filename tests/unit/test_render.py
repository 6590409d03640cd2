"""Number formats and the rendered versions of a table (CSV, Markdown, LaTeX, HTML)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from ciphersweep.analysis import render
from ciphersweep.analysis.tables.model import Table


def _table(values: dict[str, object], digits: int = 3) -> Table:
    cols = list(values)
    return Table(
        "time",
        "Execution time (s)",
        ["seq"],
        cols,
        {("seq", c): v for c, v in values.items()},
        digits=digits,
        caption="median of the repetitions",
    )


def test_significant_digits_in_fixed_notation() -> None:
    fmt = render.number_format([0.0123, 12.0, 1234.5678], 3)
    assert [fmt(v) for v in (0.0123, 12.0, 1234.5678, 0.75)] == [
        "0.0123",
        "12.0",
        "1235",
        "0.750",
    ]
    assert fmt(0.0) == "0"


def test_one_table_never_mixes_notations() -> None:
    # the example: 4.218e-06 beside 0.000228 in one table
    t = _table({"1KiB": 4.218e-06, "16MiB": 0.000228, "64MiB": 0.5})
    body, _ = render.with_notes(t)
    cells = body[0][1:]
    assert cells == ["4.22e-06", "2.28e-04", "5.00e-01"]
    t = _table({"a": 0.00123, "b": 2.5, "c": 119.67448599999999})
    assert render.with_notes(t)[0][0][1:] == ["0.00123", "2.50", "120"]
    assert not render.scientific_needed([0.001, 5e6], 3)
    assert render.scientific_needed([1.0, 1.2e7], 3)


def test_strings_and_footnotes_are_kept() -> None:
    t = _table({"a": "failed", "b": 1.5, "c": "n/a"})
    t.notes[("seq", "a")] = "exit 1: verification FAILED"
    t.notes[("seq", "c")] = "no RAPL"
    body, notes = render.with_notes(t)
    assert body[0][1:] == ["failed [1]", "1.50", "n/a [2]"]
    assert notes == ["exit 1: verification FAILED", "no RAPL"]
    page = render.render_html(t)
    assert "<td>failed [1]</td>" in page and "[2] no RAPL" in page
    assert "<figcaption>median of the repetitions</figcaption>" in page
    md = render.render_markdown(t)
    assert "failed [1]" in md and "[1] exit 1: verification FAILED" in md


def test_csv_has_no_float_noise(tmp_path: Path) -> None:
    t = _table({"a": 119.67448599999999, "b": 0.1 + 0.2, "c": "failed"})
    render.write_table(t, tmp_path)
    text = (tmp_path / "time.csv").read_text()
    assert "119.674486" in text and "0.3," in text + ","
    assert not re.search(r"\d{10,}", text)
    back = pd.read_csv(tmp_path / "time.csv", index_col=0)
    assert back.loc["seq", "c"] == "failed"
