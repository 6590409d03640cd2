"""The rows (label, value) of the report's provenance section: what the records of a
campaign say (several values listed where they differ), filled with the host facts of
the machine that made the report (:func:`ciphersweep.job.hostfacts.host_facts`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

# Report rows: (label, record fields, host_facts keys). Record values win: they say what
# the kernels really ran with; host facts fill what no record carries.
PROVENANCE_ROWS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("Hosts", ("host",), ("host",)),
    ("CPU model", ("cpu_model",), ("cpu_model",)),
    ("CPU cores", ("cpu_cores",), ("cpu_cores",)),
    ("Sockets", (), ("cpu_sockets",)),
    ("Memory [GiB]", (), ("memory_gib",)),
    ("OS / kernel", (), ("os", "kernel")),
    ("GPU model", ("gpu_model",), ("gpu_model",)),
    ("GPU driver", ("gpu_driver",), ("gpu_driver",)),
    ("GPU power limit [W]", ("gpu_power_limit_w",), ()),
    ("GPU SM clock [MHz]", ("gpu_sm_clock_mhz_start", "gpu_sm_clock_mhz_end"), ()),
    (
        "GPU memory clock [MHz]",
        ("gpu_mem_clock_mhz_start", "gpu_mem_clock_mhz_end"),
        (),
    ),
    ("GPU temperature [°C]", ("gpu_temp_c_start", "gpu_temp_c_end"), ()),
    ("Compiler", ("compiler",), ("cc",)),
    ("Compiler flags", ("cflags",), ()),
    ("Build settings", ("build_settings",), ()),
    ("CUDA", (), ("nvcc",)),
    ("MPI library", ("mpi_version",), ("mpi",)),
    ("OpenSSL", ("openssl_version",), ("openssl",)),
    ("Libraries doing the work", ("libraries",), ()),
    ("Code-path environment", ("code_path_env",), ()),
    ("likwid", (), ("likwid",)),
    ("Energy sources", ("energy_source",), ()),
    ("Project git revision", ("git_rev",), ("git_rev",)),
    ("Container runtime", ("runtime",), ()),
    ("Image", ("image",), ()),
    ("Image digest", ("image_digest",), ()),
    ("Slurm job ids", ("slurm_job_id",), ("slurm_job_id",)),
    ("Slurm node lists", ("slurm_nodelist",), ("slurm_nodelist",)),
    ("Python / Snakemake", (), ("python", "snakemake")),
    ("First / last record", ("timestamp",), ()),
    ("Busy machine before a point", ("busy_warning",), ()),
)


_NONE_TEXT = {
    "Image": "none (native binaries)",
    "Image digest": "none (native binaries)",
    "Container runtime": "none",
    "GPU model": "none found",
    "GPU driver": "none found",
    "GPU power limit [W]": "not read (no GPU, or no NVML)",
    "GPU SM clock [MHz]": "not read (no GPU, or no NVML)",
    "GPU memory clock [MHz]": "not read (no GPU, or no NVML)",
    "GPU temperature [°C]": "not read (no GPU, or no NVML)",
    "Slurm job ids": "none (not run under Slurm)",
    "Slurm node lists": "none (not run under Slurm)",
    "Energy sources": "none",
    "Build settings": "none (no build of the workflow's, or an image)",
    "Libraries doing the work": "none recorded (the kernels' own code)",
    "Code-path environment": "none of the variables that choose a code path was set",
    "Busy machine before a point": "no warning (or not checked: Slurm, older records)",
}


def _missing(v: Any) -> bool:
    """None, or the NaN pandas puts in a numeric column for a missing value."""
    return v is None or (isinstance(v, float) and math.isnan(v))


# Rows whose values vary from point to point: shown as the range over the start and end
# readings of every point (aes-cuda reads them when a point starts and ends).
_RANGE_ROWS = ("GPU SM clock [MHz]", "GPU memory clock [MHz]", "GPU temperature [°C]")


def _range(cols: Mapping[str, list[Any]], fields: tuple[str, ...]) -> list[str]:
    nums = [float(v) for f in fields for v in cols.get(f, ()) if not _missing(v)]
    if not nums:
        return []
    lo, hi = min(nums), max(nums)
    return [
        f"{lo:g}" if lo == hi else f"{lo:g} .. {hi:g} (start and end of the points)"
    ]


def _distinct(values: Iterable[Any]) -> list[str]:
    """The distinct non-empty texts of ``values``, in the order first seen."""
    out: dict[str, None] = {}
    for v in values:
        if _missing(v):
            continue
        if (
            isinstance(v, float) and v.is_integer()
        ):  # pandas turns int columns with gaps into floats
            v = int(v)
        s = str(v).strip()
        if s:
            out[s] = None
    return list(out)


# Every record field a row reads, and the two the selection of records needs.
_FIELDS = tuple(
    dict.fromkeys(
        [f for _, fields, _ in PROVENANCE_ROWS for f in fields] + ["status", "joules"]
    )
)


def _ok_columns(
    records: Iterable[Mapping[str, Any]] | Any,
) -> tuple[dict[str, list[Any]], int]:
    """Field -> values of the records that count (status ok or none; all of them when
    none is ok), column by column (a campaign has a record per repetition, often
    tens of thousands; a field no record has is absent), and how many count."""
    if hasattr(records, "columns"):
        cols = {f: records[f].tolist() for f in _FIELDS if f in records.columns}
        n = len(records)
    else:
        recs = [dict(r) for r in records]
        fields = [f for f in _FIELDS if any(f in r for r in recs)]
        cols = {f: [r.get(f) for r in recs] for f in fields}
        n = len(recs)
    status = cols.get("status", [None] * n)
    keep = [s in ("ok", None) or _missing(s) for s in status]
    if not any(keep):
        return cols, n
    return {f: [v for v, k in zip(vs, keep) if k] for f, vs in cols.items()}, sum(keep)


def _some_missing(cols: Mapping[str, list[Any]], field: str, some: bool) -> bool:
    """Whether a record that counts lacks ``field`` (``some``: there are records)."""
    if field not in cols:
        return some
    return any(_missing(v) for v in cols[field])


def provenance_rows(
    records: Iterable[Mapping[str, Any]] | Any,
    facts: Mapping[str, Any] | None = None,
    *,
    max_values: int = 6,
) -> list[tuple[str, str]]:
    """(label, value) rows for the report's provenance section.

    ``records``: the measurements (an iterable of dicts or a pandas DataFrame, one row
    per repetition); ``facts``: :func:`ciphersweep.job.hostfacts.host_facts` of the machine that made the report.
    Several distinct values are listed (at most ``max_values``, then "+N more");
    nothing known is shown as "unknown".
    """
    ok, counted = _ok_columns(records)
    facts = facts or {}
    rows: list[tuple[str, str]] = []
    for label, rfields, fkeys in PROVENANCE_ROWS:
        if label == "First / last record":
            ts = sorted(_distinct(ok.get("timestamp", ())))
            rows.append((label, f"{ts[0]} / {ts[-1]}" if ts else "unknown"))
            continue
        vals: list[str] = _range(ok, rfields) if label in _RANGE_ROWS else []
        if label not in _RANGE_ROWS:
            vals = _distinct(v for f in rfields for v in ok.get(f, ()))
        if label == "Energy sources" and _some_missing(ok, "joules", counted > 0):
            some = "none for some points" if vals else "none"
            vals.append(f"{some} (see the energy table's notes)")
        if not vals and fkeys:
            parts = _distinct(facts.get(k) for k in fkeys)
            if parts:
                vals = [" / ".join(parts)] if len(fkeys) > 1 else parts
        if label == "Project git revision" and facts.get("git_dirty"):
            vals = [v + " (working tree had local changes)" for v in vals]
        if not vals:
            text = _NONE_TEXT.get(label, "unknown")
        elif len(vals) > max_values:
            text = "; ".join(vals[:max_values]) + f"; +{len(vals) - max_values} more"
        else:
            text = "; ".join(vals)
        rows.append((label, text))
    return rows
