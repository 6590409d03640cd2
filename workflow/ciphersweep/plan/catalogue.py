"""The vocabulary a campaign's ``tables`` and ``compare`` keys are written in: the
values a table layout may show and their units, a layout's defaults, and the measures,
units and claim kinds of a study's published numbers.

The plan checks a campaign against these names before any job starts; the analysis
(:mod:`ciphersweep.analysis.tables.layouts`, :mod:`ciphersweep.analysis.compare`)
computes with the same ones, so each is declared here, once.
"""

from __future__ import annotations

from ciphersweep.core.record_fields import TIMINGS

# ------------------------------------------------------------------ table layouts

TIME_UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6}
RATE_UNITS = {"MB/s": 1e6, "MiB/s": 2.0**20, "B/s": 1.0}
# the times a layout may show: every timing field of the record schema
TIMES_ALL = TIMINGS
# the unit each value of a layout may be shown in (first: the default)
LAYOUT_UNITS: dict[str, tuple[str, ...]] = {
    **{t: tuple(TIME_UNITS) for t in TIMES_ALL},
    "throughput": tuple(RATE_UNITS),
    "speedup": ("x",),
    "efficiency": ("x",),
    "cpu_util": ("%",),
    "cpu_peak_pct": ("%",),
    "joules": ("J",),
    "verified": ("",),
    "security_bits": ("bits",),
    "aes_path": ("",),  # the AES code a Python library ran (its records' aes_path)
}
# ------------------------------------------------------------------ published studies

PUBLISHED_COLUMNS = ("source", "row", "column", "value", "unit", "measure")
# measure -> (layout value, time it is computed from)
MEASURES: dict[str, tuple[str, str]] = {
    **{t: (t, "t_total") for t in TIMES_ALL},
    "speedup": ("speedup", "t_total"),
    "speedup_compute": ("speedup", "t_compute"),
    "efficiency": ("efficiency", "t_total"),
    "throughput": ("throughput", "t_total"),
    "throughput_compute": ("throughput", "t_compute"),
    "cpu_util": ("cpu_util", "t_total"),
    "cpu_peak_pct": ("cpu_peak_pct", "t_total"),
    "joules": ("joules", "t_total"),
}
# quantities a study reports that are not a layout value
SPECIAL = ("enc_dec_ratio", "binary_bytes", "watts")
PUBLISHED_UNITS = {"s", "ms", "us", "MB/s", "MiB/s", "x", "%", "J", "W", "B", "unknown"}
CLAIM_KINDS = ("values", "factor", "order", "paper")
