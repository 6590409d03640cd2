"""The campaign's report as a reader sees it, in headless Chromium: every table with
the numbers and footnotes of its Markdown version, every plot loaded, no console
errors; the screenshot stays beside the report (results/<campaign>/report.png)."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
from browser import view
from support import KERNELS, run_snakemake
from test_workflow import _need_kernels, _tiny

BAD = "mpi-ttable-ctr-enc-256KiB-r2-t1"


def _text(md: str) -> str:
    """What a browser shows of Markdown text: backslash escapes and entities resolved."""
    return html.unescape(re.sub(r"\\(.)", r"\1", md))


def _markdown(path: Path) -> tuple[list[list[str]], list[str]]:
    """Body cells (without the row label) and footnotes of a rendered .md table, as
    text (a cell's escaped ``\\|`` does not end it)."""
    rows, notes = [], []
    for line in path.read_text().splitlines():
        if line.startswith("|") and not set(line) <= set("|- "):
            cells = re.split(
                r"(?<!\\)\|", line.strip().removeprefix("|").removesuffix("|")
            )
            rows.append([_text(c.strip()) for c in cells][1:])
        elif re.match(r"\[\d+\] ", line):
            notes.append(_text(line))
    return rows[1:], notes  # rows[0]: the header


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _need_kernels()
    if shutil.which("chromium") is None:
        pytest.fail("chromium not installed (apt: chromium, scripts/apt-test.txt)")
    work = tmp_path_factory.mktemp("report")
    cfg = _tiny(
        reps=2,
        debug={"inject_fault": [BAD]},
        backends={
            "seq": {"impls": ["ttable"]},
            "mpi": {"impls": ["ttable"], "ranks": [2]},
        },
        build={"dir": str(KERNELS)},
    )
    proc = run_snakemake(work, cfg, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work / "results" / "tiny" / "report.html"


def test_report_in_chromium(report: Path) -> None:
    res = report.parent
    seen = view(report, res / "report.png")
    assert seen.errors == []
    # every table, as its Markdown version: same cells, same footnotes
    names = sorted(p.stem for p in (res / "tables").glob("*.csv"))
    shown = {t["name"]: t for t in seen.tables}
    assert sorted(shown) == names
    for name in names:
        cells, notes = _markdown(res / "tables" / f"{name}.md")
        t = shown[name]
        assert t["visible"] and t["caption"], name
        assert t["cells"] == [c for row in cells for c in row], name
        assert t["footnotes"] == notes, name
    # the footnotes a reader needs: the failed point's reason, n/a, CPU util > 100 %
    # (2 repetitions are too few for a 95% interval: those cells have footnotes too)
    why = [n for n in shown["time"]["footnotes"] if "verification FAILED" in n]
    assert len(why) == 1
    assert f"failed {why[0].split()[0]}" in shown["time"]["cells"]
    assert any("too few for a 95% interval" in n for n in shown["time"]["footnotes"])
    assert any("n/a" in c for c in shown["energy"]["cells"])
    assert any("above 100 %" in n for n in shown["cpu_util"]["footnotes"])
    # every plot loaded
    plots = sorted((res / "plots").glob("*.png"))
    assert len(seen.images) == len(plots) >= 3
    assert all(i["complete"] and i["naturalWidth"] > 0 for i in seen.images)
    assert seen.sections == [
        "summary",
        "tables",
        "plots",
        "history",
        "failures",
        "provenance",
    ]
    for words in ("Headline speedups", "Where and when", BAD, "Project git revision"):
        assert words in seen.text, words
    shot = (res / "report.png").read_bytes()
    assert shot[:4] == b"\x89PNG" and len(shot) > 20_000


def test_the_check_sees_broken_pages(tmp_path: Path) -> None:
    """The same check on a page with a broken image and a script error fails."""
    page = tmp_path / "broken.html"
    page.write_text(
        "<html><body><img src='missing.png'><script>console.error('boom');"
        "undefinedFunction()</script></body></html>"
    )
    seen = view(page)
    assert seen.images == [{"alt": "", "complete": True, "naturalWidth": 0}]
    assert any("boom" in e for e in seen.errors)
    assert any("Uncaught" in e or "undefinedFunction" in e for e in seen.errors)
