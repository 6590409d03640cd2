"""The plots: files, panels, ticks, error bars and markers (matplotlib objects)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import ciphersweep
import pandas as pd
import psutil
import pytest
from ciphersweep.analysis import plots
from ciphersweep.analysis.plots import drawing as drawing_module
from ciphersweep.analysis.plots import legend, parts, speedup, style, timing
from ciphersweep.analysis.plots.drawing import DrawingError
from ciphersweep.analysis.plots.files import save_figure
from ciphersweep.analysis.tables import model as tables
from ciphersweep.plan.sweep import Point
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from support import make_point

SIZES = (("1KB", 1000), ("1MB", 10**6), ("16MB", 16 * 10**6))


def _campaign(
    sizes: tuple[tuple[str, int], ...] = SIZES,
) -> tuple[dict, list[Point], pd.DataFrame]:
    pts, rows = [], []
    for size in sizes:
        base = size[1] / 1e8
        shapes = [("seq", {}, 1.0)]
        shapes += [("omp", {"threads": t}, t * 0.8) for t in (2, 4)]
        shapes += [("mpi", {"ranks": r}, r * 0.7) for r in (1, 2, 4)]
        shapes += [("cuda", {"gpus": 1, "block_threads": 256}, 40.0)]
        for backend, kw, s in shapes:
            p = make_point(size=size[0], backend=backend, **kw)
            t = base / s
            pts.append(p)
            rows.append(
                {
                    "point": p.id,
                    "status": "ok",
                    "t_total_median": t,
                    "t_total_q1": t * 0.95,
                    "t_total_q3": t * 1.1,
                    "oversubscribed": backend == "mpi" and kw.get("ranks") == 4,
                    "t_h2d_median": t * 0.3 if backend == "cuda" else None,
                    "t_d2h_median": t * 0.3 if backend == "cuda" else None,
                    "t_compute_median": t * 0.4,
                }
            )
    cfg = {"baseline": {"backend": "seq"}, "platform": {"energy": "none"}}
    return cfg, pts, pd.DataFrame(rows)


@pytest.fixture(scope="module")
def ctx() -> tables.Context:
    cfg, pts, summary = _campaign()
    return tables.Context(cfg, pts, summary)


def test_every_plot_in_three_formats(tmp_path: Path) -> None:
    cfg, pts, summary = _campaign()
    summary.to_csv(tmp_path / "summary.csv", index=False)
    written = plots.write_plots(cfg, pts, str(tmp_path / "summary.csv"), str(tmp_path))
    names = plots.plot_names(cfg, pts)
    assert names == ["time_vs_size", "speedup_vs_p", "throughput", "cuda_copy"]
    assert {p.name for p in written} == {
        f"{n}.{e}" for n in names for e in plots.FORMATS
    }
    for n in names:
        assert (tmp_path / f"{n}.png").read_bytes()[:4] == b"\x89PNG"
        assert (tmp_path / f"{n}.pdf").read_bytes()[:4] == b"%PDF"
        assert b"<svg" in (tmp_path / f"{n}.svg").read_bytes()[:400]
        assert n in plots.CAPTIONS


def test_speedup_panels_ticks_ideal_and_oversubscribed(ctx: tables.Context) -> None:
    fig = speedup.plot_speedup(ctx)
    omp, mpi, gpu = fig.axes
    assert [a.get_title() for a in fig.axes] == ["omp", "mpi", "GPU (vs data size)"]
    assert list(mpi.get_xticks()) == [1, 2, 4] and list(omp.get_xticks()) == [1, 2, 4]
    lines = {ln.get_label(): ln for ln in mpi.get_lines()}
    assert list(lines["ideal (S = P)"].get_xdata()) == [1, 4]
    # one line per size: own colour, marker and line style; colour darker when larger
    bars = {c.get_label(): c for c in mpi.containers}
    sized = [bars[s].lines[0] for s, _ in SIZES]
    assert len({ln.get_marker() for ln in sized}) == 3
    assert len({ln.get_linestyle() for ln in sized}) == 3
    lum = [sum(ln.get_color()[:3]) for ln in sized]
    assert lum == sorted(lum, reverse=True)
    assert list(sized[2].get_ydata()) == pytest.approx([0.7, 1.4, 2.8])
    # error bars from the intervals of both medians, oversubscribed P = 4 ringed
    assert mpi.containers and all(c.has_yerr for c in mpi.containers)
    rings = [c for c in mpi.collections if c.get_label() == "oversubscribed"]
    assert len(rings) == 3 and [o[0] for o in rings[0].get_offsets()] == [4]
    assert not [c for c in omp.collections if c.get_label() == "oversubscribed"]
    # the GPU's speedup is shown, against the data size
    assert [t.get_text() for t in gpu.get_xticklabels()] == [s for s, _ in SIZES]
    assert list(gpu.containers[0].lines[0].get_ydata()) == pytest.approx([40.0] * 3)


def _legends(fig: Figure) -> list[tuple[Any, Any, Any]]:
    """(axes, its legend, both drawn boxes) of each axes with a legend in ``fig``."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    return [
        (ax, ax.get_legend(), ax.get_window_extent(renderer))
        for ax in fig.axes
        if ax.get_legend() is not None
    ]


@pytest.mark.parametrize("sizes", [3, 16])
def test_a_speedup_legend_names_each_size_once_where_it_hides_nothing(
    sizes: int,
) -> None:
    """The speedup panels' legends are laid out by the one legend rule: 3 sizes inside
    the axes, 16 (a sweep over sizes) beside them, where the panels' titles and data
    stay in sight (they were drawn inside, over both); "oversubscribed", which every
    size's ringed points carry, is named once."""
    many = tuple((f"{2**k}KiB", 1024 * 2**k) for k in range(sizes))
    cfg, pts, summary = _campaign(many)
    fig = speedup.plot_speedup(tables.Context(cfg, pts, summary))
    drawn = _legends(fig)[:2]  # (the GPU panel's legend names its series)
    assert [ax.get_title() for ax, _, _ in drawn] == ["omp", "mpi"]
    for ax, leg, box in drawn:
        names = [t.get_text() for t in leg.get_texts()]
        assert leg.get_title().get_text() == "data size"
        assert sorted(names) == sorted(
            [*(s for s, _ in many), "ideal (S = P)"]
            + (["oversubscribed"] if ax.get_title() == "mpi" else [])
        )
        frame = leg.get_window_extent()
        if sizes <= legend.INSIDE - 2:
            assert box.x0 <= frame.x0 and frame.x1 <= box.x1
        else:  # beside its axes, clear of every panel
            assert frame.x0 >= box.x1
            others = [a.get_window_extent() for a in fig.axes]
            assert not any(frame.overlaps(o) for o in others)


def test_throughput_log_ticks_are_readable(ctx: tables.Context) -> None:
    fig = timing.plot_throughput(ctx)
    ax = fig.axes[0]
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert len(labels) >= 4 and all("e" not in s and "$" not in s for s in labels)
    series = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    assert len(series) == len(
        tables.row_labels(ctx.points) and set(tables.row_labels(ctx.points).values())
    )


def test_time_has_error_bars_and_distinct_styles(ctx: tables.Context) -> None:
    ax = timing.plot_time(ctx).axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    data = [c.lines[0] for c in ax.containers]
    styles = {(ln.get_color(), ln.get_marker(), ln.get_linestyle()) for ln in data}
    assert len(styles) == len(data) == len(set(tables.row_labels(ctx.points).values()))
    assert all(c.has_yerr for c in ax.containers)


def test_decade_labels_are_plain_text(ctx: tables.Context) -> None:
    """The time plot's log axes label their decades as plain text (``10⁻³``), the
    ticks matplotlib's own log formatter labels, without its mathtext."""
    fig = timing.plot_time(ctx)
    ax = fig.axes[0]
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert labels and not any("$" in s for s in labels)
    assert any("⁻" in s for s in labels)  # seconds below one: negative powers
    assert style.plain_label(r"$\mathdefault{10^{-3}}$") == "10⁻³"
    assert style.plain_label(r"$\mathdefault{2\times10^{12}}$") == "2×10¹²"
    assert style.plain_label(r"$\mathdefault{0.5}$") == "0.5"
    assert style.plain_label("1 KiB") == "1 KiB"


def test_cuda_copy_is_a_stacked_bar_per_size(ctx: tables.Context) -> None:
    ax = parts.plot_cuda_copy(ctx).axes[0]
    bars = ax.containers
    assert [b.get_label() for b in bars] == [p[0] for p in parts.CUDA_PARTS]
    tops = [sum(b.patches[i].get_height() for b in bars) for i in range(len(SIZES))]
    assert tops == pytest.approx([100.0] * len(SIZES))
    assert [t.get_text() for t in ax.get_xticklabels()] == [s for s, _ in SIZES]


def test_cuda_copy_says_when_no_cuda_point_was_measured(tmp_path: Path) -> None:
    """Every CUDA point failed (no GPU): the plot says so in the middle of its axes,
    with no legend of empty bars, and lays out without a warning."""
    cfg, pts, summary = _campaign()
    summary.loc[summary["point"].str.startswith("cuda"), "status"] = "failed"
    fig = parts.plot_cuda_copy(tables.Context(cfg, pts, summary))
    (ax,) = fig.axes
    (note,) = ax.texts
    assert note.get_text().startswith("no CUDA point measured")
    assert note.get_transform() == ax.transAxes and ax.get_legend() is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig.savefig(tmp_path / "cuda_copy.png")


def test_cuda_copy_marks_an_unmeasured_part_n_a_not_zero() -> None:
    """A CUDA point without its copy times (its record has none) gets no segment for
    them and an "n/a" naming them above its bar, never a 0 % segment unexplained; nor
    for the rest of the timed region, which needs them."""
    cfg, pts, summary = _campaign()
    first_cuda = summary.index[summary["point"].str.startswith("cuda")][0]
    summary.loc[first_cuda, ["t_h2d_median", "t_d2h_median"]] = None
    ax = parts.plot_cuda_copy(tables.Context(cfg, pts, summary)).axes[0]
    notes = [t.get_text() for t in ax.texts if t.get_text().startswith("n/a")]
    assert notes == ["n/a:\ncopy host-device\ncopy device-host\nother (a part missing)"]
    assert sum(b.patches[0].get_height() for b in ax.containers) == pytest.approx(40.0)


def test_energy_plot_says_when_nothing_was_measured(ctx: tables.Context) -> None:
    ax = parts.plot_energy(ctx).axes[0]
    assert any("no energy measured" in t.get_text() for t in ax.texts)
    ctx.by_point[ctx.points[0].id]["joules_median"] = 2.0
    ax = parts.plot_energy(ctx).axes[0]
    assert ax.get_lines()[0].get_ydata()[0] == pytest.approx(2.0 / 0.001)
    del ctx.by_point[ctx.points[0].id]["joules_median"]


def _variant_ctx() -> tables.Context:
    pts, rows = [], []
    for v, speed in (("O0", 1.0), ("O2", 3.0)):
        for size in SIZES:
            for impl in ("ascon-ref", "ascon-opt64"):
                p = make_point(
                    size=size[0], impl=impl, mode="aead", cipher="ascon-aead128",
                    variant=v,
                )  # fmt: skip
                t = size[1] / 1e8 / speed
                pts.append(p)
                rows.append({"point": p.id, "status": "ok", "t_total_median": t})
    return tables.Context({"platform": {"energy": "none"}}, pts, pd.DataFrame(rows))


def test_variant_campaign_plots_a_panel_per_variant_and_time_vs_flags() -> None:
    ctx = _variant_ctx()
    assert "time_vs_variant" in plots.plot_names(ctx.cfg, ctx.points)
    fig = timing.plot_time(ctx)
    axes = fig.get_axes()
    assert [a.get_title().rsplit("[", 1)[1] for a in axes] == ["O0]", "O2]"]
    assert axes[0].get_ylim() == axes[1].get_ylim()
    (ax,) = timing.plot_variants(ctx).get_axes()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["O0", "O2"]
    handles, labels = ax.get_legend_handles_labels()
    assert len(labels) == 2  # one line per impl, across both variants
    lines = [h.lines[0] for h in handles]
    for ln in lines:  # O2 is three times faster in the synthetic data
        y0, y2 = ln.get_ydata()
        assert y0 == pytest.approx(3 * y2)


@pytest.mark.parametrize(
    ("series", "kind"), [(3, "inside"), (36, "beside"), (180, "note")]
)
def test_a_legend_is_laid_out_so_the_axes_keep_their_size(
    series: int, kind: str, tmp_path: Path
) -> None:
    """A legend of a few entries sits inside the axes; 36 (a study's ciphers and
    operations) sit beside them in columns, the figure grown to hold them; 180 (every
    cell of a history) would be unreadable: a note names where they are listed. In
    every case the figure is drawn without matplotlib collapsing the axes."""

    fig, (ax,) = style.figure()
    before = tuple(fig.get_size_inches())
    for i in range(series):
        ax.plot(
            [1, 2], [i + 1, i + 2], label=f"openssl-enc-legacy des-ofb {i} [decrypt]"
        )
    legend.place(ax, "tables/time.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "axes sizes collapsed to zero" fails here
        fig.savefig(tmp_path / "f.png")
    box = ax.get_position()
    assert box.width > 0.2 and box.height > 0.5
    texts = [t.get_text() for t in ax.texts]
    if kind == "note":
        assert ax.get_legend() is None
        assert texts == ["180 series, too many to name here: see tables/time.csv"]
        return
    assert len(ax.get_legend().get_texts()) == series and texts == []
    grown = tuple(fig.get_size_inches()) != before
    assert grown == (kind == "beside")


def test_the_hollow_marker_note_keeps_clear_of_the_x_label(ctx: tables.Context) -> None:
    """The note under the axes and the x label never overlap (the constrained layout
    keeps a strip for the note; it lays out axes and labels, not free text)."""
    fig, (ax,) = style.figure()
    ax.plot([1, 2], [1, 2])
    ax.set_xlabel("data size (bytes)")
    style.flag_note(fig, True, ctx)
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    note = fig.texts[-1].get_window_extent(renderer)
    label = ax.xaxis.label.get_window_extent(renderer)
    assert note.y1 <= label.y0, (note, label)


def _best_legend_figure(corner: str) -> tuple[Figure, Any]:
    """A figure whose data fill every corner but ``corner`` (so "best" goes there)."""
    fig = Figure(figsize=(5, 4), dpi=110, layout="constrained")
    ax = fig.add_subplot()
    spots = {"upper left": (0, 1), "upper right": (1, 1), "lower left": (0, 0)}
    spots["lower right"] = (1, 0)
    for name, (x, y) in spots.items():
        if name != corner:
            ax.plot([x, x + 0.01], [y, y - 0.01], "o-", label=f"near {name}")
    ax.set_xlim(-0.1, 1.1)
    ax.set_ylim(-0.1, 1.1)
    return fig, ax.legend()  # loc "best", matplotlib's default


@pytest.mark.parametrize("corner", ["upper left", "lower right", "lower left"])
def test_a_best_legend_keeps_its_first_place_in_every_file(
    tmp_path: Path, corner: str
) -> None:
    """save_figure searches "best" once, for the first file, and pins the legend
    there: the place "best" would find again, in every format."""
    fig, leg = _best_legend_figure(corner)
    paths = [tmp_path / f"p.{ext}" for ext in plots.FORMATS]
    save_figure(fig, paths)
    assert leg._loc == Legend.codes[corner]  # pinned, no longer "best"
    assert all(p.stat().st_size > 0 for p in paths)
    fig.savefig(tmp_path / "again.png")  # pinned, in the first file's pixels
    fresh, fresh_leg = _best_legend_figure(corner)
    fresh.savefig(tmp_path / "fresh.png")  # "best", searched while drawn
    assert fresh_leg.legendPatch.get_bbox().bounds == pytest.approx(
        leg.legendPatch.get_bbox().bounds
    )


def test_a_legend_placed_by_hand_is_left_as_it_is(tmp_path: Path) -> None:
    fig, _ = _best_legend_figure("upper left")
    leg = fig.axes[0].legend(loc="center")
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    assert legend.keep_places(fig, renderer) == 0
    assert leg._loc == Legend.codes["center"]


def test_the_first_files_layout_is_kept_for_the_others(tmp_path: Path) -> None:
    """The constrained layout is worked out for the first file; the engine is then
    removed (a "none" engine would still cost a dry drawing before each file), and
    the axes stay where the layout put them."""
    fig, _ = _best_legend_figure("upper left")
    fig.savefig(tmp_path / "alone.png")
    laid_out = fig.axes[0].get_position().bounds
    fresh, _ = _best_legend_figure("upper left")
    save_figure(fresh, [tmp_path / f"p.{ext}" for ext in plots.FORMATS])
    assert fresh.get_layout_engine() is None
    assert fresh.axes[0].get_position().bounds == pytest.approx(laid_out)


def _offset_figure() -> Figure:
    """Linear axes whose labels need an offset and a multiplier beside them."""
    fig = Figure(figsize=(4, 3), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([1e6 + 1, 1e6 + 3], [2e-7, 9e-7], "o-")
    return fig


def _trend_figure() -> Figure:
    """The history's trend plot: runs as labelled categories, times on a log axis."""
    from ciphersweep.analysis.plots import trend

    runs = ("abc1234", "def5678", "0123abc")
    series = [
        trend.Series(f"cell {k}", k, 0, (0, 1, 2), ys, (1e-4,) * 3, (2e-4,) * 3)
        for k, ys in enumerate([(1e-3, 1.1e-3, 0.9e-3), (0.5, 0.45, 0.6)])
    ]
    panels = (trend.Panel("seq", tuple(series)), trend.Panel("omp", tuple(series[:1])))
    return trend.plot(trend.Trend(runs, panels))


_FIGURES = {
    "time": lambda: timing.plot_time(tables.Context(*_campaign())),
    "time within a decade": lambda: timing.plot_time(
        tables.Context(*_campaign((("1MB", 10**6), ("2MB", 2 * 10**6))))
    ),
    "speedup": lambda: speedup.plot_speedup(tables.Context(*_campaign())),
    "throughput": lambda: timing.plot_throughput(tables.Context(*_campaign())),
    "cuda copy": lambda: parts.plot_cuda_copy(tables.Context(*_campaign())),
    "variants": lambda: timing.plot_variants(_variant_ctx()),
    "offset": _offset_figure,
    "nothing measured": lambda: timing.plot_variants(_failed(_variant_ctx())),
    "trend": _trend_figure,
}


def _failed(ctx: tables.Context) -> tables.Context:
    """``ctx`` with every point failed: axes that show a note and no ticks."""
    summary = ctx.summary.assign(status="failed", reason="exit 1")
    return tables.Context(ctx.cfg, ctx.points, summary)


@pytest.mark.parametrize("name", sorted(_FIGURES))
def test_the_ticks_kept_after_the_first_file_change_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """save_figure fixes each axis's ticks and labels where the first file put them
    (log axes over decades or within one, linear ones with an offset, categories):
    the other files are the bytes they are when matplotlib works the ticks out again."""
    from ciphersweep.analysis.plots import files

    kept = [tmp_path / f"kept.{ext}" for ext in plots.FORMATS]
    counted: list[int] = []
    real = files.keep_ticks
    monkeypatch.setattr(files, "keep_ticks", lambda fig: counted.append(real(fig)))
    save_figure(_FIGURES[name](), kept)
    assert counted and counted[0] >= 2  # every axes of the figure, x and y
    monkeypatch.setattr(files, "keep_ticks", lambda fig: 0)
    again = [tmp_path / f"again.{ext}" for ext in plots.FORMATS]
    save_figure(_FIGURES[name](), again)
    for a, b in zip(kept, again):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_the_same_plot_gives_the_same_bytes_in_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plot written twice from the same data, a day apart, is the same file, PNG,
    PDF and SVG (no date; an SVG's clip path ids do not come from the run's object
    ids)."""
    cfg, pts, summary = _campaign()
    summary.to_csv(tmp_path / "summary.csv", index=False)
    # the date matplotlib would write (it reads the variable as it writes a file)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    a = plots.write_plots(cfg, pts, str(tmp_path / "summary.csv"), str(tmp_path / "a"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700086400")
    b = plots.write_plots(cfg, pts, str(tmp_path / "summary.csv"), str(tmp_path / "b"))
    assert {x.suffix for x in a} == {".png", ".pdf", ".svg"}
    for x, y in zip(a, b):
        assert x.read_bytes() == y.read_bytes(), x.name


def test_drawing_process_writes_every_plot_as_drawn_here(tmp_path: Path) -> None:
    """The run's drawing process (its children side by side) writes the same files
    as drawing here, one after another; two rules asking at once both get theirs."""
    cfg, pts, summary = _campaign()
    summary.to_csv(tmp_path / "summary.csv", index=False)
    here = plots.write_plots(
        cfg, pts, str(tmp_path / "summary.csv"), str(tmp_path / "a")
    )
    drawing = plots.Drawing()
    try:
        with ThreadPoolExecutor(2) as pool:
            apart = list(
                pool.map(
                    lambda d: plots.write_plots(
                        cfg, pts, str(tmp_path / "summary.csv"), str(d), None, drawing
                    ),
                    [tmp_path / "b", tmp_path / "c"],
                )
            )
    finally:
        drawing.close()
    names = [p.name for p in here]
    assert len(names) == len(plots.plot_names(cfg, pts)) * len(plots.FORMATS)
    for written in apart:
        assert [p.name for p in written] == names
        for a, b in zip(here, written):
            if a.suffix == ".svg":  # no date, no randomness: the same drawing
                assert a.read_bytes() == b.read_bytes()
            assert b.stat().st_size > 0


def _libraries(pid: int) -> set[str]:
    """The site-packages folders whose compiled modules process ``pid`` has mapped."""
    maps = Path(f"/proc/{pid}/maps").read_text()
    return {
        m.split("/site-packages/")[1].split("/")[0]
        for m in maps.split()
        if "/site-packages/" in m
    }


def test_the_drawing_process_loads_no_table_reading_library(tmp_path: Path) -> None:
    """The drawing process and its children draw a campaign's plots and its trend
    plot without pandas (with pyarrow, about half a second of every run's drawing),
    jsonschema (whose rpds is compiled) or YAML (the user kernels' part of the sweep,
    which reading points never needs): what they are handed is plain data, and a
    plot's context reaches them without its frame."""
    from ciphersweep.analysis.history import trends

    cfg, pts, summary = _campaign()
    summary.to_csv(tmp_path / "summary.csv", index=False)
    history = pd.DataFrame(
        [
            {
                "run_id": r,
                "run_time": t,
                "appended": t,
                "git_rev": "abcdef0123",
                "git_dirty": 0,
                "backend": "seq",
                "point": pts[0].id,
                "machine": "m",
                "status": "ok",
                "estimate": v,
                "ci_low": v * 0.9,
                "ci_high": v * 1.1,
                "ci_level": 0.95,
                "n": 5,
            }
            for r, t, v in (("r1", "t1", 1.0), ("r2", "t2", 1.2))
        ]
    )
    drawing = plots.Drawing()
    try:
        plots.write_plots(
            cfg, pts, str(tmp_path / "summary.csv"), str(tmp_path), None, drawing
        )
        trends.write(history, trends.plot_files(tmp_path), drawing)
        server = psutil.Process(drawing._proc.pid)
        processes = [server, *server.children()]
        assert len(processes) > 1
        for proc in processes:
            found = _libraries(proc.pid)
            assert "matplotlib" in found  # what it is for (the check sees libraries)
            assert not found & {"pandas", "pyarrow", "rpds", "yaml"}, (proc.pid, found)
    finally:
        drawing.close()
    assert (tmp_path / "history_trend.png").read_bytes()[:4] == b"\x89PNG"


def test_drawing_process_errors_come_back_as_they_were() -> None:
    """A system error in the drawing process is the same OSError here (the console
    names its file); any other exception comes back as itself, from the traceback it
    had there; the process ending without an answer is one line, and the next request
    starts a new one."""
    drawing = plots.Drawing()
    try:
        with pytest.raises(FileNotFoundError) as err:
            drawing.map("os", "listdir", ["/no/such/folder", "/"])
        assert err.value.filename == "/no/such/folder"
        assert "Traceback" in str(err.value.__cause__)  # where it failed, there
        with pytest.raises(ValueError, match="invalid literal"):
            drawing.map("builtins", "int", ["twelve"])
        with pytest.raises(DrawingError, match=r"drawing process ended \(exit 3\)"):
            drawing.map("os", "_exit", [3])
        assert drawing.map("math", "sqrt", [4.0, 9.0]) == [2.0, 3.0]
    finally:
        drawing.close()


def test_a_drawing_process_never_asked_is_not_waited_for() -> None:
    """A run that ends before its plots (failed, interrupted, other targets) does not
    wait for its drawing process to import matplotlib only to end: one never asked
    anything is killed at close; one that drew ends by itself when its input closes,
    and so does the next one, started by the next request."""
    drawing = plots.Drawing()
    drawing.start()
    unasked = drawing._proc
    drawing.close()
    assert unasked is not None and unasked.returncode == -signal.SIGKILL
    assert drawing.map("math", "sqrt", [4.0, 9.0]) == [2.0, 3.0]
    asked = drawing._proc
    assert asked is not None and asked is not unasked
    drawing.close()
    assert asked.returncode == 0


def test_drawing_children_end_with_the_drawing_process() -> None:
    """Killed outright, the drawing process takes its children with it: none is left
    behind holding its pipes; the next request starts a new one."""
    drawing = plots.Drawing()
    try:
        drawing.map("math", "sqrt", [4.0, 9.0])
        server = psutil.Process(drawing._proc.pid)  # the process this test kills
        # a session of its own: the terminal's Ctrl-C never reaches it, even at start
        assert os.getsid(server.pid) == server.pid != os.getsid(0)
        children = server.children()
        assert len(children) == min(drawing_module.MOST_CHILDREN, os.cpu_count() or 1)
        # each child in a session of its own too (a loaded machine's share, _child)
        assert [os.getsid(c.pid) for c in children] == [c.pid for c in children]
        server.kill()
        _, alive = psutil.wait_procs(children, timeout=30)
        assert alive == []
        assert drawing.map("math", "sqrt", [1.0, 4.0]) == [1.0, 2.0]
    finally:
        drawing.close()


# a run that asks its drawing process for a request that takes 10 minutes, then waits
_A_RUN_DRAWING = """
import pickle, sys
from ciphersweep.analysis.plots.drawing import Drawing
drawing = Drawing()
drawing.map("math", "sqrt", [4.0, 9.0])  # the drawing process and its children run
proc = drawing._started()
pickle.dump(("time", "sleep", [600, 600]), proc.stdin)
proc.stdin.flush()
print(proc.pid, flush=True)
sys.stdin.read()
"""


def test_the_drawing_ends_with_its_run_killed_outright_mid_request() -> None:
    """`kill -9` of a run (its process group, which the drawing's own session is not
    in) ends its drawing process and children at once, even in the middle of a
    request: the next run finds nothing of it still running (its lock would stay)."""
    env = dict(os.environ, PYTHONPATH=str(Path(ciphersweep.__file__).parents[1]))
    run = subprocess.Popen(
        [sys.executable, "-c", _A_RUN_DRAWING],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    left: list[psutil.Process] = []
    try:
        assert run.stdout is not None
        server = psutil.Process(int(run.stdout.readline()))
        left = [server, *server.children()]
        assert len(left) == 1 + min(drawing_module.MOST_CHILDREN, os.cpu_count() or 1)
        run.send_signal(signal.SIGKILL)
        assert run.wait(timeout=30) == -signal.SIGKILL
        # (the request alone would keep them 600 s)
        _, alive = psutil.wait_procs(left, timeout=60)
        assert alive == [], alive
    finally:
        run.kill()
        for proc in left:
            if proc.is_running():
                proc.kill()


class _Picky(Exception):
    def __init__(self, what: str, why: str) -> None:
        super().__init__(f"{what}: {why}")


def test_an_exception_that_cannot_travel_is_said() -> None:
    """An exception whose constructor takes other arguments than its ``args`` would not
    come back from a pickle: it comes back as a RuntimeError that says it."""
    said = drawing_module._travelling(_Picky("plot", "no data"))
    assert isinstance(said, RuntimeError)
    assert str(said) == "_Picky: plot: no data"
    kept = OSError(2, "No such file or directory", "/x")
    assert drawing_module._travelling(kept) is kept
