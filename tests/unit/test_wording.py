"""What every title, caption, footnote and report section says the numbers rest on: the
statistic, the level of the intervals computed and the repetitions as they ran (a range
where they were adaptive), generated from the campaign and summary.csv, never typed.
Read over every shipped campaign, the report page, Snakemake's report captions
(workflow/report/*.rst, rendered as Snakemake renders them) and the plots' notes; and
the CUDA time breakdown's segment for what the kernel's own timers leave out."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pandas as pd
import pytest
import yaml
from ciphersweep.analysis import report
from ciphersweep.analysis.plots import catalog, parts, timing
from ciphersweep.analysis.tables import energy, formulas, generic, layout_tables
from ciphersweep.analysis.tables.model import Context, Table
from ciphersweep.core import stats, wording
from ciphersweep.plan import config as cs_config
from ciphersweep.plan.sweep import expand
from docutils.core import publish_parts
from matplotlib.backends.backend_agg import FigureCanvasAgg
from support import ROOT, make_point

SHIPPED = [
    ROOT / "config" / "config.yaml",
    *sorted((ROOT / "config" / "campaigns").glob("*.yaml")),
]
CAPTIONS = sorted((ROOT / "workflow" / "report").glob("*.rst"))
OTHER = {"mean": "median", "median": "mean"}
# a typed phrase naming the statistic over the repetitions ("mean of the repetitions")
OVER_REPS = re.compile(
    r"\b(mean|median|average)s?\b\W+(\w+\W+){0,3}(repetitions|reps|runs)\b",
    re.IGNORECASE,
)


def _word(text: str, word: str) -> bool:
    return re.search(rf"\b{word}\b", text, re.IGNORECASE) is not None


def _summary(points, counts: list[int], skew: float = 0.01) -> pd.DataFrame:
    """summary.csv rows as gather writes them: each point ``n`` repetitions (from
    ``counts`` in turn), its statistics and interval levels from those values."""
    rows = []
    for i, p in enumerate(points):
        n = counts[i % len(counts)]
        xs = [1e-3 * (1 + skew * (k % 5)) for k in range(n)]
        rows.append({"point": p.id, "status": "ok", "n": n, **stats.summarize(xs)})
    return pd.DataFrame(rows)


def _own_tables(ctx: Context) -> list[Table]:
    """The tables whose cells are the campaign's statistic: the generic, energy and
    CPU tables that apply, and the campaign's layouts."""
    builders = [*generic.BUILDERS, *energy.BUILDERS]
    built = [b.build(ctx) for b in builders if b.applies(ctx.cfg, ctx.points)]
    return built + layout_tables.build(ctx)


# ------------------------------------------------------------------ the words


def test_fixed_and_adaptive_repetitions_and_levels_in_words() -> None:
    fixed = wording.Basis("mean", (5, 5), (0.95, 0.95))
    assert fixed.title() == "mean of 5 repetitions, 95 % CI"
    assert fixed.sentence() == (
        "Statistic: the mean of 5 timed repetitions per point, with its 95 % "
        "confidence interval."
    )
    adaptive = wording.Basis("median", (48, 1966), (0.9375, 0.984375), target=0.02)
    assert (
        adaptive.title() == "median of 48-1,966 repetitions (adaptive), 93.8-98.4 % CI"
    )
    assert "within ±2 %" in adaptive.sentence()
    assert adaptive.title(interval=False) == "median of 48-1,966 repetitions (adaptive)"
    assert "confidence" not in adaptive.sentence(interval=False)


def test_basis_from_summary_rows_as_they_ran() -> None:
    """The counts are the rows' ``n`` (times the batch), the levels the interval level
    column of the statistic; failed points and points of one repetition are not
    counted as intervals."""
    pts = [make_point(size=s) for s in ("1KiB", "1MiB", "16MiB", "64MiB")]
    summary = _summary(pts[:3], [48, 1966, 300])
    one = {"point": pts[3].id, "status": "ok", "n": 1, **stats.summarize([1e-3])}
    failed = {"point": "gone", "status": "failed", "n": 0}
    rows = [*summary.to_dict("records"), one, failed]
    cfg = {"statistic": "mean", "precision": {"target": 0.02}, "reps": 7}
    b = wording.basis_of(cfg, rows)
    assert b.reps == (1, 1966) and b.adaptive
    assert b.levels == (pytest.approx(0.95), pytest.approx(0.95))
    assert b.no_interval == 1 and "none for 1 point of one repetition" in b.sentence()
    med = wording.basis_of({**cfg, "statistic": "median"}, rows[:3])
    want = [stats.median_ci_ranks(n).coverage for n in (48, 1966, 300)]
    assert med.levels == (pytest.approx(min(want)), pytest.approx(max(want)))
    batched = wording.basis_of({"statistic": "mean", "batch": 100}, rows[:1])
    assert batched.reps == (4800, 4800) and "each record the mean of 100" in (
        batched.sentence()
    )


def test_footnotes_state_the_level_of_their_own_interval() -> None:
    """A flagged median of 7 repetitions has a 98.4 % interval, and says so."""
    e = stats.median_ci([1.0, 1.0, 1.1, 1.2, 1.3, 1.5, 2.0])
    note = stats.wide_note(e, 0.02, "median")
    assert e.level == pytest.approx(1 - 2 / 2**7)
    assert note.startswith("±") and "(98.4% CI of the median, 7 reps;" in note
    assert "95%" not in note


# ------------------------------------------------------------------ every campaign


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_typed_titles_and_captions_name_no_statistic(path: Path) -> None:
    """A campaign file's own table titles and captions never name the statistic over
    the repetitions (the generated words do), let alone the other one."""
    raw = yaml.safe_load(path.read_text())
    other = OTHER[stats.statistic_of(raw)]
    for spec in raw.get("tables") or []:
        for key in ("title", "caption"):
            text = str(spec.get(key) or "")
            assert not _word(text, other), (path.name, spec["name"], key, text)
            assert not OVER_REPS.search(text), (path.name, spec["name"], key, text)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_generated_titles_and_captions_of_every_campaign(path: Path) -> None:
    """Every table of a shipped campaign whose cells are its statistic: its title
    carries the statistic, the interval level and the repetitions as they ran, its
    caption ends with the same in a sentence; a mean campaign never says median."""
    cfg = cs_config.validate(yaml.safe_load(path.read_text()), root=ROOT, workdir=ROOT)
    points = expand(cfg)
    counts = [48, 1966, 300] if cfg.get("precision") else [int(cfg["reps"])]
    ctx = Context(cfg, points, _summary(points, counts))
    stat = cfg["statistic"]
    b = ctx.basis()
    assert b.reps == (min(counts) * cfg["batch"], max(counts) * cfg["batch"])
    for t in _own_tables(ctx):
        interval = t.name not in ("energy", "cpu_util", "cuda_copy")
        sub = ctx.basis(points=[p for p in points if p.backend == "cuda"])
        want = sub if t.name == "cuda_copy" else b
        assert want.title(interval) in t.title, (t.name, t.title)
        assert t.caption.endswith(want.sentence(interval)), (t.name, t.caption)
        assert _word(t.title, stat) and b.reps_range() in t.title
        if interval:
            assert b.level_text() in t.title and b.level_text() in t.caption
        if stat == "mean":
            for text in (t.title, t.caption):
                assert not _word(text, "median"), (t.name, text)
    for name in catalog.plot_names(cfg, points):
        title, caption = catalog.words(name, b)
        interval = name not in catalog.NO_INTERVAL
        assert title.endswith(f"({b.title(interval)})"), (name, title)
        assert caption.endswith(b.sentence(interval)), (name, caption)
        if stat == "mean":
            assert not _word(title + caption, "median"), (name, title, caption)


def test_a_mean_campaigns_plots_say_mean_with_its_level_and_repetitions() -> None:
    """The note under a plot names the statistic, the level computed and the
    repetitions as they ran; a mean campaign's plots never say median."""
    pts = [make_point(size=s, backend=b) for s in ("1KiB", "1MiB") for b in ("seq",)]
    ctx = Context({"statistic": "mean", "reps": 5}, pts, _summary(pts, [5, 9]))
    for plot in (timing.plot_time, timing.plot_throughput, parts.plot_energy):
        fig = plot(ctx)
        texts = [t.get_text() for t in fig.texts] + [
            ax.get_title() + ax.get_ylabel() for ax in fig.axes
        ]
        note = "\n".join(texts)
        assert "values: mean of 5-9 repetitions" in note, note
        if plot is not parts.plot_energy:
            assert "95 % CI" in note
        assert not _word(note, "median"), note


# ------------------------------------------------------------------ the report


def test_the_reports_repetitions_are_those_that_ran() -> None:
    """The report's summary states the repetitions from summary.csv: a range where
    they were adaptive, not the configured minimum."""
    pts = [make_point(size=s) for s in ("1KiB", "1MiB", "16MiB")]
    cfg = {"campaign": "c", "statistic": "mean", "reps": 7}
    cfg["precision"] = {"target": 0.02, "max_reps": 2000}
    summary = _summary(pts, [48, 1966, 300])
    facts = dict(report.what_ran(cfg, pts, summary))
    assert facts["Repetitions per point"] == "48-1,966 repetitions (adaptive)"
    assert facts["Statistic"].startswith("the mean of 48-1,966 timed repetitions")
    fixed = dict(report.what_ran({**cfg, "precision": None}, pts, _summary(pts, [7])))
    assert fixed["Repetitions per point"] == "7 repetitions"
    page = report.page(cfg, pts, [], [], pd.DataFrame(), summary=summary)
    assert "48-1,966 repetitions (adaptive)" in page
    assert "95 % confidence interval" in page and not _word(page, "median")


# ------------------------------------------------------------------ Snakemake's captions


def _render(path: Path, basis: object) -> str:
    """A caption as `snakemake --report` renders it: Jinja2 with Snakemake's settings
    and its ``snakemake`` object (the rule's params), then reStructuredText to HTML
    (a warning fails)."""
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
    params = SimpleNamespace(basis=basis)
    job = SimpleNamespace(params=params)
    text = env.from_string(path.read_text()).render(
        snakemake=SimpleNamespace(params=params, config={}),
        categories={},
        files=[SimpleNamespace(job=SimpleNamespace(params=SimpleNamespace())),
               SimpleNamespace(job=job)],
    )  # fmt: skip
    publish_parts(text, writer="html", settings_overrides={"halt_level": 2})
    return text


# captions that state what the cells rest on, and those with no statistic to state
STATED = {"comparison", "energy", "history", "plots", "report", "summary", "tables"}
STATED |= {"workflow"}


@pytest.mark.parametrize("path", CAPTIONS, ids=lambda p: p.stem)
def test_snakemake_report_captions_of_a_mean_campaign(
    path: Path, tmp_path: Path
) -> None:
    """Each caption rendered for a mean campaign whose points ran 48-1,966 adaptive
    repetitions (read from its summary.csv when the caption asks): the statistic, the
    level and the repetitions as they ran, never "median"."""
    pts = [make_point(size=s) for s in ("1KiB", "1MiB", "16MiB")]
    csv = tmp_path / "summary.csv"
    basis = wording.FromSummary(
        {"statistic": "mean", "precision": {"target": 0.02}}, csv
    )
    assert repr(basis) == f"FromSummary({str(csv)!r})"  # nothing read yet: no file
    _summary(pts, [48, 1966, 300]).to_csv(csv, index=False)
    text = _render(path, basis)
    assert not _word(text, "median"), text
    if path.stem in STATED:
        interval = path.stem != "energy"  # energy and CPU cells show no interval
        assert basis.clause(interval) in text.replace("\n", " "), text
        assert "48-1,966" in text
        assert ("95 % confidence interval" in text) == interval
    if path.stem == "measurements":
        assert "48-1,966 repetitions (adaptive) per point" in text.replace("\n", " ")


# ------------------------------------------------------------------ CUDA breakdown


def _cuda_ctx(h2d: float | None, kernel: float, d2h: float, total: float) -> Context:
    p = make_point(size="1MiB", backend="cuda", gpus=1, block_threads=256)
    row = {"point": p.id, "status": "ok", "n": 9}
    for col, v in (("t_h2d", h2d), ("t_compute", kernel), ("t_d2h", d2h)):
        row[f"{col}_mean"] = v
    row["t_total_mean"] = total
    return Context({"statistic": "mean"}, [p], pd.DataFrame([row]))


def test_the_untimed_rest_of_a_cuda_run() -> None:
    """other = total - (H2D + kernel + D2H): a segment of its own in the plot, a row
    in the table; n/a with the reason where a part is missing or exceeds the total."""
    ctx = _cuda_ctx(0.2, 0.1, 0.13, 1.0)  # the timers explain 43 % of the region
    (row,) = ctx.by_point.values()
    assert formulas.untimed_part(row, "mean") == pytest.approx(0.57)
    ax = parts.plot_cuda_copy(ctx).axes[0]
    heights = {b.get_label(): b.patches[0].get_height() for b in ax.containers}
    assert heights[formulas.UNTIMED] == pytest.approx(57.0)
    assert sum(heights.values()) == pytest.approx(100.0)
    t = generic.build_cuda_copy(ctx)
    assert t.value(formulas.UNTIMED, "1MiB") == pytest.approx(0.57)
    over = _cuda_ctx(0.5, 0.4, 0.3, 1.0)
    cell, why = formulas.untimed_part(next(iter(over.by_point.values())), "mean")
    assert cell == "n/a" and "add up to 1.2 s, more than the total's 1 s" in why
    t = generic.build_cuda_copy(over)
    assert t.value(formulas.UNTIMED, "1MiB") == "n/a"
    assert "more than the total" in t.notes[(formulas.UNTIMED, "1MiB")]
    ax = parts.plot_cuda_copy(over).axes[0]
    assert any("other (parts > total)" in x.get_text() for x in ax.texts)
    gone = _cuda_ctx(None, 0.4, 0.3, 1.0)
    cell, why = formulas.untimed_part(next(iter(gone.by_point.values())), "mean")
    assert (cell, why) == ("n/a", "not recorded: t_h2d")


def test_the_breakdown_legend_covers_no_bar() -> None:
    """The legend sits beside the axes: every bar reaches 100 %, so any place inside
    would cover one (the largest sizes' on the right, for one)."""
    fig = parts.plot_cuda_copy(_cuda_ctx(0.2, 0.1, 0.13, 1.0))
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    (ax,) = fig.axes
    legend = ax.get_legend().get_window_extent(renderer)
    assert legend.x0 >= ax.get_window_extent(renderer).x1
    labels = [x.get_text() for x in ax.get_legend().get_texts()]
    assert labels[-1] == formulas.UNTIMED
