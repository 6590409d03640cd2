"""What a table shows of how a cell was measured: the impl an ``auto`` point really
ran in its row label, and a footnote on every cell of a point whose records say it ran
oversubscribed (README: "marked in the records, the tables' notes and the speedup
plot"), in the generic tables and the campaign's own layouts alike."""

from __future__ import annotations

from typing import Any

from ciphersweep.analysis import render
from ciphersweep.analysis.tables import generic, layout_tables
from ciphersweep.analysis.tables.model import row_labels
from support import make_point, summary_context

SEQ = make_point(impl="auto")
TT = make_point(impl="ttable")
MPI = make_point(backend="mpi", impl="ttable", ranks=2)
OMP = make_point(backend="omp", impl="ttable", threads=2)


def _row(
    t: float, impl: str, oversubscribed: Any = False, hw: float = 0.01
) -> dict[str, Any]:
    return {
        "t_total_median": t,
        "t_total_ci_low": t * (1 - hw),
        "t_total_ci_high": t * (1 + hw),
        "n": 10,
        "impl": impl,
        "oversubscribed": oversubscribed,
    }


def _ctx(**cfg: Any):
    return summary_context(
        [
            (SEQ, _row(4.0, "ttable")),
            (TT, _row(4.0, "ttable")),
            (MPI, _row(2.8, "ttable", True, hw=0.3)),  # wider than the target
            # as summary.csv gives it back: text
            (OMP, _row(2.1, "ttable", "True")),
        ],
        baseline={"backend": "seq", "impl": "ttable"},
        **cfg,
    )


def test_an_auto_row_names_the_impl_that_ran() -> None:
    ctx = _ctx()
    t = generic.build_time(ctx)
    assert "seq [auto→ttable]" in t.rows and "seq [ttable]" in t.rows
    assert "seq [auto]" not in t.rows
    # before anything ran (no records), the plan's word is all there is
    assert row_labels([SEQ, TT])[SEQ.id] == "seq [auto]"
    assert "seq [auto$\\rightarrow$ttable]" in render.render_latex(t)


def test_an_auto_row_names_it_where_no_other_impl_runs() -> None:
    ctx = summary_context([(SEQ, _row(4.0, "aesni"))])
    assert ctx.row_of[SEQ.id] == "seq [auto→aesni]"


def test_oversubscribed_cells_are_footnoted() -> None:
    ctx = _ctx()
    t = generic.build_time(ctx)
    col = SEQ.input_name
    mpi, omp = ctx.row_of[MPI.id], ctx.row_of[OMP.id]
    assert "ran oversubscribed (2 ranks" in t.notes[(mpi, col)]
    assert "ran oversubscribed (2 threads" in t.notes[(omp, col)]
    # the note of the interval wider than the target stays, before it
    assert t.notes[(mpi, col)].startswith("±30")
    assert "; ran oversubscribed" in t.notes[(mpi, col)]
    assert "oversubscribed" not in t.notes.get((ctx.row_of[TT.id], col), "")
    md = render.render_markdown(t)
    assert md.count("ran oversubscribed") == 2
    speed = generic.build_speedup(ctx)
    assert "ran oversubscribed" in speed.notes[(mpi, col)]


def test_layout_cells_of_oversubscribed_points_are_footnoted() -> None:
    layout = {"name": "study", "value": "t_total", "rows": ["backend", "p"]}
    ctx = _ctx(tables=[layout])
    (t,) = layout_tables.build(ctx)
    marked = [k for k, n in t.notes.items() if "ran oversubscribed" in n]
    assert sorted(r for r, _ in marked) == ["mpi, 2", "omp, 2"]
