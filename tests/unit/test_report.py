"""The report page: summary (headline speedups, published comparison), sections."""

from __future__ import annotations

import pandas as pd
from ciphersweep.analysis import report
from ciphersweep.analysis.tables.model import Table


def _t(name: str, cells: dict, notes: dict | None = None) -> Table:
    rows = list(dict.fromkeys(r for r, _ in cells))
    cols = list(dict.fromkeys(c for _, c in cells))
    return Table(
        name, name.title(), rows, cols, cells, notes or {}, caption=f"how {name}"
    )


def test_headline_speedups_best_first() -> None:
    sp = _t(
        "speedup",
        {
            ("omp (2 threads)", "1KB"): 0.8,
            ("omp (2 threads)", "1MB"): 1.9,
            ("mpi (8 ranks)", "1KB"): "failed",
            ("mpi (8 ranks)", "1MB"): 7.25,
        },
    )
    assert report.headline_speedups([sp]) == [
        "mpi (8 ranks): 7.25x at 1MB",
        "omp (2 threads): 1.90x at 1MB",
    ]


def test_page_sections_and_published_comparison(tmp_path) -> None:
    tabs = [
        _t("time", {("seq", "1KB"): 1e-5}, {("seq", "1KB"): "coarse"}),
        _t(
            "published",
            {("mpi 8 speedup", "paper"): 7.9, ("mpi 8 speedup", "measured"): 7.2},
        ),
        _t("provenance", {("Hosts", "value"): "node1"}),
    ]
    fails = pd.DataFrame(
        [
            {
                "point": "p1",
                "reason": "timeout after 60 s",
                "launch_line": "mpirun -np 2 aes-mpi",
            }
        ]
    )
    png = tmp_path / "throughput.png"
    png.write_bytes(b"\x89PNG fake")
    page = report.page({"campaign": "c", "reps": 3}, [], tabs, [png], fails)
    summary = page[page.index("id='summary'") : page.index("id='tables'")]
    assert (
        "Comparison with the published study" in summary and "how published" in summary
    )
    tables = page[page.index("id='tables'") : page.index("id='plots'")]
    assert "data-table='time'" in tables and "data-table='published'" not in tables
    assert "[1] coarse" in tables and "<figcaption>how time</figcaption>" in tables
    assert "src='data:image/png;base64," in page and "Throughput vs data size" in page
    assert "timeout after 60 s" in page and "mpirun -np 2 aes-mpi" in page
    prov = page[page.index("id='provenance'") :]
    assert "node1" in prov
