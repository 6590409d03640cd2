"""A finished campaign directory (``results/<campaign>/``) as one run of the history.

The cells come from the campaign's ``summary.csv`` (the campaign's statistic with its
interval and n, :func:`ciphersweep.core.stats.row_estimate`); what only the records carry
(CPU and GPU model, compiler flags, the time of the run) from ``measurements.parquet``
(or ``.csv``). The run's id is a digest of the campaign name, the machine name it is
filed under and the summary's bytes: appending the same results again adds nothing.
What the summary holds is checked first (:mod:`.validate`): a run that could not have
been measured is refused with one line.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ciphersweep.core import stats
from ciphersweep.job import provenance

from . import validate
from .schema import POINT_KEY

# the build variant at the end of a point id (input names hold no '-')
_VARIANT = re.compile(r"-t\d+(?:-g\d+-b\d+(?:-s\d+)?)?-v([A-Za-z0-9_.+-]+)$")
_RECORD_FIELDS = ("cpu_model", "gpu_model", "cflags", "fingerprint")


class RunError(Exception):
    """A directory that is not a finished campaign (one line naming it and why)."""


@dataclass
class Run:
    """One run: its row of the ``runs`` table and its cells."""

    info: dict[str, Any]
    cells: list[dict[str, Any]] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return str(self.info["run_id"])


def _value(v: Any) -> Any:
    """A summary value as stored: None for missing, ints for integral floats."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if hasattr(v, "item"):  # numpy scalars
        return _value(v.item())
    return v


def code_digest(fingerprint: Any) -> str | None:
    """The digest of a record's fingerprint (JSON text or an object; None: none):
    equal for two cells of a point measured by the same code on the same input."""
    if fingerprint is None or (
        isinstance(fingerprint, float) and math.isnan(fingerprint)
    ):
        return None
    text = (
        fingerprint
        if isinstance(fingerprint, str)
        else json.dumps(fingerprint, sort_keys=True)
    )
    if text in ("", "null"):
        return None
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def variant_of(point: str) -> str:
    """The build variant named in a point id ("" for the default build)."""
    m = _VARIANT.search(point)
    return m.group(1) if m else ""


def run_id(campaign: str, machine: str | None, summary: bytes) -> str:
    h = hashlib.sha256(f"{campaign}\0{machine or ''}\0".encode() + summary)
    return h.hexdigest()[:16]


def _measurements(resdir: Path) -> tuple[pd.DataFrame, Path | None]:
    """The campaign's records and the file they came from (none: an empty frame)."""
    pq, csv = resdir / "measurements.parquet", resdir / "measurements.csv"
    try:
        if pq.is_file() and pq.stat().st_size > 0:
            return pd.read_parquet(pq), pq
        if csv.is_file() and csv.stat().st_size > 1:
            return pd.read_csv(csv), csv
    except (ValueError, OSError):
        pass
    return pd.DataFrame(), None


def _per_point(meas: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """point -> the record fields of its first record (CPU, GPU, compiler flags)."""
    if meas.empty or "point" not in meas:
        return {}
    cols = [c for c in _RECORD_FIELDS if c in meas]
    first = meas.groupby("point", sort=False)[cols].first()
    return {str(p): {c: _value(v) for c, v in r.items()} for p, r in first.iterrows()}


def _run_time(meas: pd.DataFrame, source: Path | None, summary: Path) -> str:
    """The last record's timestamp; without records, when summary.csv was written."""
    stamps = meas.get("timestamp", [])
    written = _dt.datetime.fromtimestamp(summary.stat().st_mtime, _dt.UTC)
    try:
        return validate.run_time(stamps, written)
    except validate.Problem as exc:
        raise RunError(f"{source or summary}: {exc}") from None


def _cell(
    row: Mapping[str, Any],
    statistic: str,
    machine: str | None,
    build_digests: Mapping[str, str | None],
    facts: Mapping[str, Any],
) -> dict[str, Any]:
    point = str(row["point"])
    variant = variant_of(point)
    est = stats.row_estimate(row, statistic) if row.get("status") == "ok" else None
    host = _value(row.get("host"))
    known = est is not None and not math.isnan(est.level)
    return {
        **{k: _value(row.get(k)) for k in POINT_KEY},
        "point": point,
        "impl": _value(row.get("cfg_impl", row.get("impl"))),  # the planned impl
        "variant": variant,
        "build_digest": build_digests.get(variant),
        "image_digest": _value(row.get("image_digest")),
        "machine": machine or host,
        "host": host,
        "cpu_model": facts.get("cpu_model"),
        "gpu_model": facts.get("gpu_model"),
        "nodelist": _value(row.get("slurm_nodelist")),
        "cflags": facts.get("cflags"),
        "code_digest": code_digest(facts.get("fingerprint")),
        "status": "ok" if est is not None else str(row.get("status") or "failed"),
        "estimate": est.value if est else None,
        "ci_low": est.low if known and est else None,
        "ci_high": est.high if known and est else None,
        "ci_level": est.level if known and est else None,
        "n": est.n if known and est else _value(row.get("n")),
    }


def from_campaign(
    resdir: str | Path,
    *,
    statistic: str = "median",
    machine: str | None = None,
    build_digests: Mapping[str, str | None] | None = None,
    git_dirty: bool | None = None,
    campaign: str | None = None,
) -> Run:
    """The run a finished campaign directory holds. ``machine`` files every cell under
    that machine name (default: the host the cell ran on); ``build_digests`` maps a
    build variant ("" = the default build) to its fingerprint."""
    d = Path(resdir)
    summary = d / "summary.csv"
    if not summary.is_file():
        raise RunError(
            f"{d}: no summary.csv (allowed: the results directory of a finished campaign)"
        )
    raw = summary.read_bytes()
    try:
        table = pd.read_csv(summary)
    except (ValueError, pd.errors.EmptyDataError):
        table = pd.DataFrame()
    if table.empty or "point" not in table:
        raise RunError(f"{summary}: no cells (a finished campaign has one per point)")
    if "status" not in table:
        raise RunError(
            f"{summary}: no status column (allowed: the summary.csv a campaign wrote)"
        )
    try:
        validate.summary_rows(table.to_dict("records"), statistic)
    except validate.Problem as exc:
        raise RunError(f"{summary}: {exc}") from None
    meas, source = _measurements(d)
    name = campaign or _campaign_of(meas, d)
    facts = _per_point(meas)
    # when appended: two appends within one second keep their order
    appended = provenance.utc_now(micro=True)
    revs = [str(v) for v in table.get("git_rev", pd.Series()).dropna().unique()]
    info = {
        "run_id": run_id(name, machine, raw),
        "campaign": name,
        "run_time": _run_time(meas, source, summary),
        "git_rev": "; ".join(revs) or None,
        "git_dirty": None if git_dirty is None else int(git_dirty),
        "statistic": statistic,
        "source": str(d),
        "appended": appended,
    }
    cells = [
        _cell(
            r, statistic, machine, build_digests or {}, facts.get(str(r["point"]), {})
        )
        for r in table.to_dict("records")
    ]
    return Run(info, cells)


def _campaign_of(meas: pd.DataFrame, d: Path) -> str:
    if not meas.empty and "campaign" in meas:
        names = [str(v) for v in meas["campaign"].dropna().unique()]
        if len(names) == 1:
            return names[0]
    return d.name
