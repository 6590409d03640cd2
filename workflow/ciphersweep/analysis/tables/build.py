"""The compiled-size tables of a campaign's builds (text + data + bss per binary and
algorithm object, per build variant), from the size files the build rule wrote
(ciphersweep.job.build)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ciphersweep.analysis.tables.model import NA, Builder, Context, Table
from ciphersweep.job.build import load_sizes
from ciphersweep.plan.sweep import Point


def _label(row: dict[str, Any]) -> str:
    return row["name"] if row["part"] == "binary" else f"{row['name']}.o"


def build_size_table(ctx: Context) -> Table:
    """Compiled size per build (columns) of each binary and algorithm object (rows):
    text + data + bss bytes, the study's "size of the compiled files"."""
    sizes = load_sizes(ctx.cfg)
    rows: list[str] = []
    cells: dict[tuple[str, str], Any] = {}
    for b, items in sizes.items():
        for r in items:
            label = _label(r)
            if label not in rows:
                rows.append(label)
            cells[(label, b)] = r["total"]
    t = Table(
        "binary_size",
        "Compiled size (bytes: text + data + bss, as size(1) reports), per build",
        rows,
        list(sizes),
        cells,
        digits=0,
        row_header="binary / object",
        caption="Size of each compiled kernel binary and algorithm object file in bytes "
        "(text + data + bss, as size(1) reports it) for every build variant (columns), "
        "measured on the files the campaign built: the study's size of the compiled files.",
    )
    for r in rows:
        for b in sizes:
            t.cells.setdefault((r, b), NA)
            if t.cells[(r, b)] == NA:
                t.notes[(r, b)] = f"no size record of build {b} for {r}"
    return t


def build_size_sections_table(ctx: Context) -> Table:
    """text, data and bss of every binary and algorithm object, one row per build."""
    cols = ["text", "data", "bss", "total", "bytes_on_disk"]
    rows: list[str] = []
    cells: dict[tuple[str, str], Any] = {}
    for b, items in load_sizes(ctx.cfg).items():
        for r in items:
            label = f"{_label(r)} [{b}]"
            rows.append(label)
            for c in cols:
                cells[(label, c)] = r[c]
    return Table(
        "binary_size_sections",
        "Sections of the compiled code (bytes, size(1) Berkeley format) and file size",
        rows,
        cols,
        cells,
        digits=0,
        row_header="binary / object [build]",
        caption="The sections of every compiled binary and object (text, data, bss, "
        "their total, in bytes from size(1) in Berkeley format) and the size of the file "
        "on disk, one row per build variant.",
    )


def _native(cfg: dict[str, Any], points: Sequence[Point]) -> bool:
    container = cfg.get("platform", {}).get("container", {})
    return "build" in cfg and container.get("runtime", "none") == "none"


BUILDERS = [
    Builder("binary_size", build_size_table, _native),
    Builder("binary_size_sections", build_size_sections_table, _native),
]
