"""A campaign whose every point failed: its console summary, its plots (under every
backend kind) and its report say "nothing measured: N of N points failed (see
failures.csv)" instead of an empty plot or a count of noisy cells among none; one where
some points failed names them and says nothing of the kind."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ciphersweep.analysis import plots, report
from ciphersweep.analysis.plots import draw, style, timing
from ciphersweep.analysis.tables import model as tables
from ciphersweep.campaign import console
from ciphersweep.core import outcome
from ciphersweep.plan.sweep import Point
from support import make_point

SIZES = ("1KiB", "64KiB")

# one campaign per backend kind: its points, as the sweep would shape them
KINDS: dict[str, list[dict[str, Any]]] = {
    "seq": [{"backend": "seq"}],
    "omp": [{"backend": "seq"}, {"backend": "omp", "threads": 2}],
    "mpi": [{"backend": "seq"}, {"backend": "mpi", "ranks": 2}],
    "openssl": [{"backend": "openssl", "impl": "evp", "cipher": "aes-128-ctr"}],
    "cuda": [{"backend": "seq"}, {"backend": "cuda", "gpus": 1, "block_threads": 256}],
    "purepy": [{"backend": "purepy", "impl": "numpy", "cipher": "aes-128-ecb"}],
    "pycryptodome": [
        {"backend": "pycryptodome", "impl": "pycryptodome", "cipher": "aes-128-ecb"}
    ],
    "command": [
        {
            "backend": "command",
            "impl": "copy",
            "cipher": "aes-128-ecb",
            "command": ("cp", "{input}", "{output}"),
        }
    ],
    "variants": [
        {"backend": "seq", "variant": "O0"},
        {"backend": "seq", "variant": "O2"},
    ],
}


def _campaign(kind: str, failed: set[str] | None = None) -> tables.Context:
    """Every point of ``kind`` failed (``failed``: only these points did)."""
    pts: list[Point] = [
        make_point(size=size, **shape) for shape in KINDS[kind] for size in SIZES
    ]
    rows = []
    for p in pts:
        bad = failed is None or p.id in failed
        t = 1e-3 * p.size_bytes / 1024
        rows.append(
            {"point": p.id, "status": "failed", "reason": "exit 1: verification FAILED"}
            if bad
            else {"point": p.id, "status": "ok", "t_total_median": t}
        )
    cfg = {"baseline": {"backend": "seq"}, "platform": {"energy": "auto"}}
    return tables.Context(cfg, pts, pd.DataFrame(rows))


def _centre_notes(ax: Any) -> list[str]:
    return [t.get_text() for t in ax.texts if t.get_position() == (0.5, 0.5)]


def test_the_words() -> None:
    assert outcome.nothing_measured(3, 0) == (
        "nothing measured: 3 of 3 points failed (see failures.csv)"
    )
    assert outcome.nothing_measured(1, 0, "r/failures.csv") == (
        "nothing measured: 1 of 1 point failed (see r/failures.csv)"
    )
    assert outcome.nothing_measured(3, 1) is None
    assert outcome.nothing_measured(0, 0) is None  # no point: nothing failed either
    rows = [{"status": "ok"}, {"status": "failed"}, {"status": None}]
    assert outcome.measured(rows) == 1


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_plot_of_an_all_failed_campaign_says_nothing_was_measured(
    kind: str, tmp_path: Path
) -> None:
    """Every axes of every plot the campaign has: the note, centred, with no ticks
    and no legend, instead of empty axes on a made-up range; written in three
    formats without a warning."""
    ctx = _campaign(kind)
    n = len(ctx.points)
    line = f"nothing measured: {n} of {n} points failed (see failures.csv)"
    names = plots.plot_names(ctx.cfg, ctx.points)
    assert "energy_per_mb" in names and "time_vs_size" in names
    for name in names:
        fig = draw.PLOTTERS[name](ctx)
        for ax in fig.axes:
            assert _centre_notes(ax) == [line], (name, [t.get_text() for t in ax.texts])
            assert ax.get_legend() is None, name
            assert not any(
                t.get_visible() and t.get_text() for t in ax.get_xticklabels()
            )
    summary = tmp_path / "summary.csv"
    ctx.summary.to_csv(summary, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        written = plots.write_plots(ctx.cfg, ctx.points, str(summary), str(tmp_path))
    assert len(written) == len(names) * len(plots.FORMATS)


def test_a_panel_with_no_measured_point_says_why_and_the_others_plot() -> None:
    """Build O2's points all failed, O0's were measured: O2's panel says so, O0's
    plots its line, and the y range is O0's alone (not stretched to an empty one)."""
    ctx = _campaign("variants", failed={p.id for p in _variant_points("O2")})
    left, right = timing.plot_time(ctx).axes
    assert _centre_notes(left) == [] and len(left.get_lines()[0].get_xdata()) == 2
    assert _centre_notes(right) == [
        "no point of build O2 measured (reasons in failures.csv)"
    ]
    low, high = left.get_ylim()
    assert low < 1e-3 and 64e-3 < high < 1  # O0's two times, not an empty 1 .. 10
    (flags,) = timing.plot_variants(ctx).axes
    assert _centre_notes(flags) == []  # O0 has its point at the largest size


def _variant_points(variant: str) -> list[Point]:
    return [p for p in _campaign("variants").points if p.variant == variant]


def test_a_campaign_with_some_failures_plots_what_it_measured() -> None:
    ctx = _campaign("omp", failed={p.id for p in _campaign("omp").points[:1]})
    for name in ("time_vs_size", "throughput", "speedup_vs_p"):
        for ax in draw.PLOTTERS[name](ctx).axes:
            assert not any("nothing measured" in t for t in _centre_notes(ax)), name
    assert style.empty_note(ctx, "why") == "why"


def _results(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    res = tmp_path / "results" / "c"
    res.mkdir(parents=True)
    pd.DataFrame(rows).to_csv(res / "summary.csv", index=False)
    return res


def test_the_console_of_an_all_failed_campaign(tmp_path: Path) -> None:
    """No "noisy cells: 0 of 0"; the failures named; a finished run ends with the line
    (the workflow raises it: exit status 1), a stopped one shows it in its summary."""
    rows = [
        {"point": f"f{i}", "status": "failed", "reason": f"exit 1: r{i}"}
        for i in range(4)
    ]
    res = _results(tmp_path, rows)
    cmd = console.report_command(res / "report.html")
    lines = console.summary_lines(res, res / "report.html", cmd)
    assert "  points measured: 0 of 4, 4 failed" in lines
    assert "    failed f0: exit 1: r0" in lines
    assert not any("noisy cells" in line for line in lines)
    line = (
        f"ciphersweep: nothing measured: 4 of 4 points failed (see {res}/failures.csv)"
    )
    assert console.nothing_measured(res) == line
    assert not any("nothing measured" in x for x in lines)  # the run's last line
    stopped = console.summary_lines(res, res / "report.html", cmd, ok=False)
    assert stopped[0] == "ciphersweep: campaign c stopped"
    assert f"  {line.removeprefix('ciphersweep: ')}" in stopped


def test_the_console_of_a_campaign_with_some_failures(tmp_path: Path) -> None:
    """It names the failed points (the first three, then where the rest are) and
    ends as it always did: no "nothing measured", exit status 0."""
    rows = [{"point": "ok1", "status": "ok", "t_total_median": 1.0}]
    rows += [
        {"point": f"f{i}", "status": "failed", "reason": f"r{i}"} for i in range(4)
    ]
    res = _results(tmp_path, rows)
    cmd = console.report_command(res / "report.html")
    lines = console.summary_lines(res, res / "report.html", cmd)
    assert "  points measured: 1 of 5, 4 failed" in lines
    assert ["    failed f0: r0", "    failed f1: r1", "    failed f2: r2"] == [
        x for x in lines if x.startswith("    failed ")
    ]
    assert f"    ... 1 more in {res / 'failures.csv'}" in lines
    assert any(x.startswith("  noisy cells: ") for x in lines)
    assert console.nothing_measured(res) is None
    # nothing gathered (the run stopped before gather): no verdict on what was measured
    (res / "summary.csv").unlink()
    assert console.nothing_measured(res) is None


def test_the_report_says_nothing_was_measured() -> None:
    pts = [make_point(size=s) for s in SIZES]
    fails = pd.DataFrame(
        [{"point": p.id, "reason": "exit 1: verification FAILED"} for p in pts]
    )
    page = report.page({"campaign": "c", "reps": 3}, pts, [], [], fails)
    assert (
        "<strong>nothing measured: 2 of 2 points failed (see failures.csv)</strong>"
        in page
    )
    some = report.page({"campaign": "c", "reps": 3}, pts, [], [], fails[:1])
    assert "nothing measured" not in some and "1 of 2 points measured" in some
