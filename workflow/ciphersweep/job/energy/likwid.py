"""likwid-perfctr as an energy source: its check on this machine, the launch-line
wrapper, and its energy merged into a point's records."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ciphersweep.job.energy.classify import (
    classify_likwid_failure,
    hardware_perf_events,
    perf_event_paranoid,
)
from ciphersweep.job.energy.cores import cores_for, format_cpulist
from ciphersweep.job.energy.likwid_csv import likwid_energy, parse_likwid_csv
from ciphersweep.job.energy.source import (
    EXCLUSIVE_CAVEAT,
    LIKWID_GROUP,
    LIKWID_REGION,
    Probe,
    SourceCheck,
    get_field,
    join_notes,
)

_PROBE_TOKEN = "ciphersweep-likwid-probe-ran"


def check_likwid(
    cores: Sequence[int] = (0,), *, timeout: float = 20.0, exe: str = "likwid-perfctr"
) -> SourceCheck:
    """Run likwid-perfctr's ENERGY group around a trivial program and classify the outcome.

    Usable means: the command exits 0, really started the program it wraps, and its
    CSV has energy values. Otherwise ``reason`` is one short phrase with likwid's own
    first error line in parentheses, e.g.
    ``likwid: unsupported CPU (Unsupported AMD Zen Processor)``.
    """
    path = shutil.which(exe)
    if path is None:
        return SourceCheck("likwid", False, "likwid: likwid-perfctr not installed")
    detail: dict[str, Any] = {
        "exe": path,
        "hardware_perf_events": hardware_perf_events(),
    }
    paranoid = perf_event_paranoid()
    if paranoid is not None:
        detail["perf_event_paranoid"] = paranoid
    core = str(int(cores[0]) if cores else 0)
    try:
        rc, stdout, stderr, csv_text = _run_probe(path, core, timeout)
    except subprocess.TimeoutExpired:
        reason = f"likwid: likwid-perfctr did not finish within {timeout:g} s"
        return SourceCheck("likwid", False, reason, detail)
    except OSError as exc:
        reason = f"likwid: cannot run likwid-perfctr ({exc.strerror or exc})"
        return SourceCheck("likwid", False, reason, detail)
    detail["rc"] = rc
    started = _PROBE_TOKEN in stdout
    detail["started_program"] = started
    if rc != 0 or not started:
        reason = classify_likwid_failure(stderr + "\n" + stdout, rc, detail)
        return SourceCheck("likwid", False, reason, detail)
    return _judge_csv(csv_text, detail)


def _run_probe(exe: str, core: str, timeout: float) -> tuple[int, str, str, str]:
    """likwid-perfctr's ENERGY group around ``echo``: exit status, stdout, stderr and
    the CSV it wrote ("" when none)."""
    with tempfile.TemporaryDirectory(prefix="cs-likwid-") as tmp:
        out_csv = Path(tmp) / "probe.csv"
        cmd = [exe, "-C", core, "-g", LIKWID_GROUP, "-O", "-o", str(out_csv)]
        cmd += ["sh", "-c", f"echo {_PROBE_TOKEN}"]
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, check=False
        )
        csv_text = out_csv.read_text(errors="replace") if out_csv.is_file() else ""
    return proc.returncode, proc.stdout or "", proc.stderr or "", csv_text


def _judge_csv(csv_text: str, detail: dict[str, Any]) -> SourceCheck:
    """Usable when the probe's CSV holds a package energy."""
    try:
        parsed = parse_likwid_csv(csv_text)
    except ValueError as exc:
        return SourceCheck(
            "likwid", False, f"likwid: unreadable CSV output ({exc})", detail
        )
    regions = parsed["regions"]
    summary = next(iter(regions.values()), None) if regions else None
    if summary is None or summary.get("joules_pkg") is None:
        return SourceCheck(
            "likwid", False, "likwid: ENERGY group gave no package energy", detail
        )
    return SourceCheck("likwid", True, None, detail)


def has_markers(binary: str | os.PathLike[str]) -> bool:
    """Whether a kernel binary has likwid's Marker API compiled in: it names liblikwid
    (which it opens in marker mode, kernels/src/likwid_marker.h) and the marker
    functions."""
    try:
        data = Path(binary).read_bytes()
    except OSError:
        return False
    return b"liblikwid" in data and b"likwid_markerStartRegion" in data


def wrapper(
    point: Any, p: Probe | None, out: str | os.PathLike[str] | None = None
) -> list[str]:
    """The energy-wrapper prefix of the launch line for one point ([] when none).

    ``likwid-perfctr -m -g ENERGY -C <cores> -O -o <out>``: marker mode, so that only
    the kernel's region ``"aes"`` (the timed repetitions) is measured; ``-C`` also pins
    the kernel (one core per thread, :func:`cores_for`). ``out`` defaults to
    :func:`likwid_csv_path`, where :func:`annotate` looks for it. MPI and CUDA points
    get no wrapper (see the module docstring).
    """
    if p is None or p.source != "likwid":
        return []
    if get_field(point, "backend") in ("mpi", "cuda"):
        return []
    threads = int(get_field(point, "threads") or 1)
    cores = p.cores if len(p.cores) == threads else cores_for(point)
    if not cores:
        return []
    if out is None:
        out = likwid_csv_path(point)
    return [
        "likwid-perfctr",
        "-m",
        "-g",
        LIKWID_GROUP,
        "-C",
        format_cpulist(cores),
        "-O",
        "-o",
        str(out),
    ]


def likwid_csv_path(point: Any) -> Path:
    """Where the wrapper writes likwid's CSV for a point: ``$CIPHERSWEEP_LIKWID_DIR``
    (default: the temporary directory) / ``ciphersweep-likwid-<point id>.csv``."""
    name = (
        get_field(point, "id")
        or get_field(point, "point")
        or get_field(point, "name")
        or "point"
    )
    base = os.environ.get("CIPHERSWEEP_LIKWID_DIR") or tempfile.gettempdir()
    return Path(base) / f"ciphersweep-likwid-{name}.csv"


def merge_likwid(
    records: Iterable[dict[str, Any]],
    parsed: Mapping[str, Any] | None,
    region: str = LIKWID_REGION,
) -> list[dict[str, Any]]:
    """Fill likwid's energy into a point's records (one per timed repetition).

    likwid accumulates a marker region over all its calls, so each record gets the
    mean per call (the note says so and gives the total). When the region is missing
    the records keep what the kernel measured itself and the note says why likwid's
    values are absent. Failed records are returned unchanged.
    """
    recs = [dict(r) for r in records]
    e = likwid_energy(parsed, region) if parsed else None
    for r in recs:
        if r.get("status", "ok") != "ok":
            continue
        if e is None:
            why = f"likwid: no energy for region '{region}' in its output"
            r["energy_note"] = join_notes(why, r.get("energy_note"))
            continue
        r["joules"] = e["joules"]
        r["joules_pkg"] = e["joules_pkg"]
        r["joules_core"] = e["joules_core"]
        r["joules_dram"] = e["joules_dram"]
        r["energy_source"] = "likwid"
        r["energy_scope"] = e["energy_scope"]
        r["energy_nodes"] = 1
        r["energy_note"] = join_notes(
            f"likwid {LIKWID_GROUP} region '{region}': {e['total_joules']:.6g} J over {e['calls']} calls, "
            "per-repetition value is the mean",
            EXCLUSIVE_CAVEAT,
        )
    return recs


def read_likwid_csv(path: Path) -> dict[str, Any] | None:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return None
    try:
        return parse_likwid_csv(text)
    except ValueError:
        return None
