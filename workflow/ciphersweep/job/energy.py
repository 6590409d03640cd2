"""Energy sources: probe, likwid-perfctr wrapper and CSV parser, powercap (RAPL) reader.

Sources, in the order they are tried for a benchmark job (the probe runs ONCE per job
and nothing is cached across jobs):

1. ``likwid``: the kernels carry likwid's Marker API around the timed region (region
   ``"aes"``) and the launch line runs them under
   ``likwid-perfctr -m -g ENERGY -C <pinned cores> -O -o <file>.csv``; the CSV is parsed
   here and merged into the records (:func:`merge_likwid`). Not used for MPI points
   (one likwid-perfctr per rank measures the same socket-wide counters several times;
   the kernels' node-leader RAPL reader is used instead) nor for CUDA points (NVML).
2. ``rapl``: the kernel reads the powercap sysfs tree itself (``--energy auto``)
   immediately before and after the timed region. The probe only checks that the tree
   is there and ``energy_uj`` is readable, with the same root the C reader uses
   (``$CIPHERSWEEP_POWERCAP_ROOT`` or ``/sys/class/powercap``).
3. ``nvml``: aes-cuda reads the GPU's energy counter itself.
4. none: ``joules`` null and a note saying why. Never 0, never a guess, and a missing
   source never stops the timing run.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "LIKWID_GROUP",
    "LIKWID_REGION",
    "POWERCAP_ENV",
    "PowercapZone",
    "Probe",
    "SourceCheck",
    "allowed_cores",
    "annotate",
    "check_likwid",
    "check_nvml",
    "check_rapl",
    "cores_for",
    "energy_delta_uj",
    "kernel_flag",
    "likwid_csv_path",
    "likwid_energy",
    "merge_likwid",
    "parse_likwid_csv",
    "powercap_root",
    "probe",
    "read_powercap",
    "wrapper",
]

LIKWID_GROUP = "ENERGY"
LIKWID_REGION = "aes"
POWERCAP_ENV = "CIPHERSWEEP_POWERCAP_ROOT"
DEFAULT_POWERCAP_ROOT = "/sys/class/powercap"
MODES = ("auto", "none", "likwid", "rapl")
EXCLUSIVE_CAVEAT = "socket-wide counters: meaningful only on an exclusive node"

_PROBE_TOKEN = "ciphersweep-likwid-probe-ran"


# --------------------------------------------------------------------------- probe


@dataclass(frozen=True)
class SourceCheck:
    """Outcome of checking one energy source on this machine."""

    name: str
    ok: bool
    reason: str | None = None  # why not usable (None when ok)
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Probe:
    """What one benchmark job measures energy with, and why not with the others.

    ``source`` is the source the job's records will carry (``likwid``, ``rapl``,
    ``nvml`` or ``None``); ``kernel_energy`` is the value for the kernel's ``--energy``
    flag; ``note`` lists, ``"; "``-joined, why the sources before ``source`` were not
    used (when ``source`` is None: why there is no energy at all).
    """

    mode: str
    cores: tuple[int, ...]
    backend: str | None
    source: str | None
    kernel_energy: str
    note: str | None
    checks: tuple[SourceCheck, ...] = ()

    @property
    def uses_likwid(self) -> bool:
        return self.source == "likwid"

    def check(self, name: str) -> SourceCheck | None:
        for c in self.checks:
            if c.name == name:
                return c
        return None

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["cores"] = list(self.cores)
        d["checks"] = [asdict(c) for c in self.checks]
        return d

    def summary(self) -> str:
        """One line for the job log."""
        src = self.source or "none"
        cores = ",".join(str(c) for c in self.cores)
        line = f"energy: source={src} (mode {self.mode}, cores {cores or '-'})"
        if self.note:
            line += f"; {self.note}"
        return line


def probe(
    cores: Sequence[int] | str | None = None,
    mode: str | None = None,
    *,
    backend: str | None = None,
    binary: str | os.PathLike[str] | None = None,
    point: Any = None,
    likwid_timeout: float = 20.0,
    check_likwid_fn: Callable[[tuple[int, ...], float], SourceCheck] | None = None,
) -> Probe:
    """Decide the energy source of one job. Run once per job; caches nothing.

    ``cores``: the cores the kernel is pinned to (likwid's ``-C``; default: those of
    :func:`cores_for` ``point``, else the first core this job may use). ``mode``: the
    campaign's ``platform.energy`` (``auto`` tries likwid, then RAPL; ``none`` measures
    nothing; ``likwid``/``rapl`` try only that source); ``probe("auto")`` is accepted
    too. ``backend``: the point's backend (``mpi`` never uses likwid, ``cuda`` uses
    NVML), taken from ``point`` when given. ``binary``: the kernel binary; when given,
    likwid is used only if it is linked against liblikwid (so that its Marker API
    region exists). ``check_likwid_fn``: replaces :func:`check_likwid` (a caller that
    runs many jobs in one process may reuse one likwid check per core).
    """
    if isinstance(cores, str):  # probe(mode)
        cores, mode = None, cores
    mode = mode or "auto"
    if point is not None:
        backend = backend or _get(point, "backend")
        if cores is None:
            cores = cores_for(point)
    if cores is None:
        cores = allowed_cores()[:1]
    if mode not in MODES:
        raise ValueError(f"energy mode {mode!r} is not one of {', '.join(MODES)}")
    cores_t = tuple(int(c) for c in cores)
    if mode == "none":
        return Probe(
            mode,
            cores_t,
            backend,
            None,
            "none",
            "energy disabled (platform.energy: none)",
        )

    checks: list[SourceCheck] = []
    reasons: list[str] = []
    # The kernel's own readers (powercap, NVML) stay on with "auto": harmless next to
    # likwid, and their values remain when likwid's output cannot be read.
    kernel_energy = {"rapl": "rapl", "likwid": "none"}.get(mode, "auto")

    def done(source: str | None) -> Probe:
        return Probe(
            mode,
            cores_t,
            backend,
            source,
            kernel_energy,
            "; ".join(reasons) or None,
            tuple(checks),
        )

    if backend == "cuda" and mode == "auto":
        nv = check_nvml()
        checks.append(nv)
        if nv.ok:
            return done("nvml")
        reasons.append(nv.reason or "nvml: unavailable")
    elif mode in ("auto", "likwid"):
        if backend == "mpi":
            lk = SourceCheck(
                "likwid",
                False,
                "likwid: not used for MPI points (per-rank readings of shared sockets cannot be summed)",
            )
        else:
            lk = (check_likwid_fn or _check_likwid_positional)(
                cores_t[:1] or (0,), likwid_timeout
            )
            if lk.ok and binary is not None and not _linked_to_likwid(binary):
                lk = SourceCheck(
                    "likwid",
                    False,
                    f"likwid: {Path(binary).name} built without likwid's Marker API",
                    lk.detail,
                )
        checks.append(lk)
        if lk.ok:
            return done("likwid")
        reasons.append(lk.reason or "likwid: unavailable")
        if mode == "likwid":
            return done(None)

    rp = check_rapl()
    checks.append(rp)
    if rp.ok:
        return done("rapl")
    reasons.append(rp.reason or "powercap: unavailable")
    return done(None)


def _check_likwid_positional(cores: tuple[int, ...], timeout: float) -> SourceCheck:
    return check_likwid(cores, timeout=timeout)


def annotate(
    records: list[dict[str, Any]],
    p: Probe | None,
    point: Any = None,
    likwid_csv: str | os.PathLike[str] | None = None,
) -> list[dict[str, Any]]:
    """Finish a point's records after the kernel ran (in place; also returned).

    1. When likwid was the source (and the point had the wrapper): parse its CSV
       (``likwid_csv``, default :func:`likwid_csv_path` of ``point``) and
       :func:`merge_likwid` it into the records; the CSV file is removed afterwards.
    2. Records whose ``joules`` is null get the probe's reasons in ``energy_note`` (the
       kernel only knows about its own readers; the probe also knows why likwid was not
       used). Records with a value get the exclusivity caveat.
    Failed records are left alone.
    """
    if p is None:
        return records
    likwid_point = point is None or _get(point, "backend") not in ("mpi", "cuda")
    if p.uses_likwid and (point is not None or likwid_csv is not None) and likwid_point:
        path = Path(likwid_csv) if likwid_csv is not None else likwid_csv_path(point)
        for rec, new in zip(
            records, merge_likwid(records, _read_likwid_csv(path)), strict=True
        ):
            rec.update(new)
        if likwid_csv is None:
            path.unlink(missing_ok=True)
    for r in records:
        if r.get("status", "ok") != "ok":
            continue
        if r.get("joules") is None:
            r["joules"] = None
            r["energy_source"] = None
            r["energy_note"] = _join_notes(p.note, r.get("energy_note"))
        else:
            r["energy_note"] = _join_notes(r.get("energy_note"), EXCLUSIVE_CAVEAT)
    return records


def _read_likwid_csv(path: Path) -> dict[str, Any] | None:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return None
    try:
        return parse_likwid_csv(text)
    except ValueError:
        return None


def kernel_flag(p: Probe | None) -> str:
    """The kernel's ``--energy`` value for this job."""
    return p.kernel_energy if p is not None else "auto"


def _join_notes(*notes: str | None) -> str | None:
    parts: list[str] = []
    for n in notes:
        for part in (n or "").split("; "):
            part = part.strip()
            if not part or any(part in p or p in part for p in parts):
                continue
            parts.append(part)
    return "; ".join(parts) or None


# --------------------------------------------------------------------------- likwid


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
        "hardware_perf_events": _hardware_perf_events(),
    }
    paranoid = _perf_event_paranoid()
    if paranoid is not None:
        detail["perf_event_paranoid"] = paranoid
    core = str(int(cores[0]) if cores else 0)
    with tempfile.TemporaryDirectory(prefix="cs-likwid-") as tmp:
        out_csv = Path(tmp) / "probe.csv"
        cmd = [
            path,
            "-C",
            core,
            "-g",
            LIKWID_GROUP,
            "-O",
            "-o",
            str(out_csv),
            "sh",
            "-c",
            f"echo {_PROBE_TOKEN}",
        ]
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            return SourceCheck(
                "likwid",
                False,
                f"likwid: likwid-perfctr did not finish within {timeout:g} s",
                detail,
            )
        except OSError as exc:
            return SourceCheck(
                "likwid",
                False,
                f"likwid: cannot run likwid-perfctr ({exc.strerror or exc})",
                detail,
            )
        detail["rc"] = proc.returncode
        text = (proc.stderr or "") + "\n" + (proc.stdout or "")
        started = _PROBE_TOKEN in (proc.stdout or "")
        detail["started_program"] = started
        csv_text = out_csv.read_text(errors="replace") if out_csv.is_file() else ""
    if proc.returncode != 0 or not started:
        return SourceCheck(
            "likwid",
            False,
            classify_likwid_failure(text, proc.returncode, detail),
            detail,
        )
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


def classify_likwid_failure(
    text: str, rc: int | None, detail: Mapping[str, Any] | None = None
) -> str:
    """Turn likwid-perfctr's failure output into one reason phrase.

    The first meaningful line (likwid's ``ERROR - [file:func:line] message`` prefix
    removed) is kept in parentheses so that the note says what likwid itself said.
    """
    detail = detail or {}
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    errors = [_strip_likwid_prefix(ln) for ln in lines if _is_likwid_error(ln)]
    first = errors[0] if errors else _first_meaningful(lines)
    low = text.lower()
    extras: list[str] = []
    if "unsupported" in low and ("processor" in low or "cpu" in low):
        kind = "unsupported CPU"
    elif "perf_event" in low or "perf event" in low:
        kind = "no access to hardware perf events"
    elif "msr" in low and ("access" in low or "permission" in low):
        kind = "no access to MSRs"
    elif "group" in low and LIKWID_GROUP.lower() in low:
        kind = f"no {LIKWID_GROUP} group for this CPU"
    elif rc == 0 and not detail.get("started_program", True):
        kind = "did not start the program"
    else:
        kind = f"likwid-perfctr failed (rc {rc})"
    if (
        "msr" in low
        and kind != "no access to MSRs"
        and ("access" in low or "permission" in low)
    ):
        extras.append("no MSR access")
    if detail.get("hardware_perf_events") is False:
        hp = "no hardware perf events"
        if detail.get("perf_event_paranoid") is not None:
            hp += f" (perf_event_paranoid={detail['perf_event_paranoid']})"
        extras.append(hp)
    reason = f"likwid: {kind}"
    if first:
        reason += f" ({first})"
    if extras:
        reason += "; " + "; ".join(extras)
    return reason


_LIKWID_ERR = re.compile(
    r"^(?:ERROR|WARN(?:ING)?)\s*[-:]\s*(?:\[[^\]]*\]\s*)?", re.IGNORECASE
)


def _is_likwid_error(line: str) -> bool:
    return bool(re.match(r"^(ERROR|Cannot|Failed|Unsupported)", line, re.IGNORECASE))


def _strip_likwid_prefix(line: str) -> str:
    return _LIKWID_ERR.sub("", line).strip()


def _first_meaningful(lines: Sequence[str]) -> str | None:
    for ln in lines:
        if set(ln) <= set("-=* "):
            continue
        if re.match(r"^CPU (name|type|clock):", ln):
            continue
        return ln
    return None


def _hardware_perf_events(root: str = "/sys/bus/event_source/devices") -> bool | None:
    """Whether the kernel exposes a CPU PMU for perf_event (None: cannot tell)."""
    base = Path(root)
    if not base.is_dir():
        return None
    names = {p.name for p in base.iterdir()}
    return bool(names & {"cpu", "cpu_core", "cpu_atom", "armv8_pmuv3"}) or any(
        n.startswith("armv8_") for n in names
    )


def _perf_event_paranoid(
    path: str = "/proc/sys/kernel/perf_event_paranoid",
) -> int | None:
    try:
        return int(Path(path).read_text().strip())
    except (OSError, ValueError):
        return None


def _linked_to_likwid(binary: str | os.PathLike[str]) -> bool:
    """Whether a kernel binary links liblikwid (i.e. has the Marker API compiled in)."""
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
    if _get(point, "backend") in ("mpi", "cuda"):
        return []
    threads = int(_get(point, "threads") or 1)
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
    name = _get(point, "id") or _get(point, "point") or _get(point, "name") or "point"
    base = os.environ.get("CIPHERSWEEP_LIKWID_DIR") or tempfile.gettempdir()
    return Path(base) / f"ciphersweep-likwid-{name}.csv"


def allowed_cores() -> list[int]:
    """The cores this job may run on (its affinity mask, e.g. Slurm's cgroup)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return list(range(os.cpu_count() or 1))


def cores_for(point: Any, allowed: Sequence[int] | None = None) -> tuple[int, ...]:
    """The cores a point's kernel is pinned to under likwid: one per thread, the first
    ones the job may use (MPI ranks are pinned by the launcher, not here)."""
    cores = list(allowed) if allowed is not None else allowed_cores()
    threads = max(1, int(_get(point, "threads") or 1))
    return tuple(cores[:threads])


def format_cpulist(cores: Iterable[int]) -> str:
    """likwid/taskset style list: 0-3,8,10-11."""
    cs = sorted({int(c) for c in cores})
    parts: list[str] = []
    i = 0
    while i < len(cs):
        j = i
        while j + 1 < len(cs) and cs[j + 1] == cs[j] + 1:
            j += 1
        parts.append(str(cs[i]) if i == j else f"{cs[i]}-{cs[j]}")
        i = j + 1
    return ",".join(parts)


def _get(point: Any, key: str) -> Any:
    if isinstance(point, Mapping):
        return point.get(key)
    return getattr(point, key, None)


# likwid-perfctr -O / -o FILE.csv layout (likwid 5.x, src/applications/likwid.lua,
# printOutput() and printcsv()): per region (marker mode) or once (plain run)
#   STRUCT,Info,3
#   CPU name:,<name>            CPU type:,<type>          CPU clock:,<x> GHz
#   TABLE,[Region <tag>,]Group <g> Raw,<GROUP>,<n events>
#   [Region Info,HWThread a,...  /  RDTSC Runtime [s],t_a,...  /  call count,n_a,...]
#   Event,Counter,HWThread a,...  then one row per event
#   [TABLE,[Region <tag>,]Group <g> Raw STAT,...  Event,Counter,Sum,Min,Max,Avg ...]
#   TABLE,[Region <tag>,]Group <g> Metric,<GROUP>,<n metrics>
#   Metric,HWThread a,...  then one row per metric
#   [TABLE,[Region <tag>,]Group <g> Metric STAT,...  Metric,Sum,Min,Max,Avg ...]
# Lines are padded with trailing commas to the widest table; missing values print as
# "-" (or "nan"). RAPL package/DRAM counters are socket-wide: likwid reports them on
# one HW thread per socket and 0 on the others, so summing the threads sums sockets.

_TABLE_RE = re.compile(
    r"^(?:Region (?P<region>.*),)?Group (?P<group>\d+) (?P<kind>Raw|Metric)(?P<stat> STAT)?$"
)
_ENERGY_METRIC = re.compile(r"^Energy(?: (?P<domain>[A-Za-z0-9]+))? \[J\]$")
_DOMAIN = {
    None: "pkg",
    "PKG": "pkg",
    "PP0": "core",
    "CORE": "core",
    "DRAM": "dram",
    "PP1": "pp1",
    "PLATFORM": "platform",
}
_ENERGY_EVENT = {
    "PWR_PKG_ENERGY": "pkg",
    "RAPL_PKG_ENERGY": "pkg",
    "PWR_PP0_ENERGY": "core",
    "RAPL_CORE_ENERGY": "core",
    "PWR_DRAM_ENERGY": "dram",
    "PWR_PP1_ENERGY": "pp1",
    "PWR_PLATFORM_ENERGY": "platform",
}


def _num(s: str) -> float | None:
    s = s.strip()
    if s in ("", "-", "nan", "-nan", "inf", "-inf"):
        return None
    try:
        return float(s)
    except ValueError:
        return None


def _hwthread(s: str) -> int:
    m = re.fullmatch(r"HWThread (\d+)", s.strip())
    if not m:
        raise ValueError(f"expected 'HWThread N', got {s!r}")
    return int(m.group(1))


def parse_likwid_csv(text: str) -> dict[str, Any]:
    """Parse likwid-perfctr's CSV output (``-O`` or ``-o FILE.csv``) for any group.

    Returns ``{"cpu_name", "cpu_type", "cpu_clock_ghz", "regions": {tag: region}}``
    where ``tag`` is the marker region (``""`` for a plain run) and ``region`` holds
    ``group``, ``hwthreads``, ``runtime_s`` / ``calls`` (per HW thread, marker mode),
    ``events`` / ``counters`` / ``metrics`` (name -> {hwthread: value}), ``stat``
    (``Sum``/``Min``/``Max``/``Avg`` rows where likwid printed them) and the energy
    totals ``joules_pkg``, ``joules_core``, ``joules_dram`` (summed over HW threads,
    i.e. over sockets; None when the group has no such domain) and ``sockets``.
    Raises ValueError when the text is not likwid CSV.
    """
    rows = list(csv.reader(io.StringIO(text)))
    info: dict[str, Any] = {
        "cpu_name": None,
        "cpu_type": None,
        "cpu_clock_ghz": None,
        "regions": {},
    }
    if not any(r and r[0] in ("STRUCT", "TABLE") for r in rows):
        raise ValueError(
            "no likwid CSV tables (expected 'STRUCT,Info' / 'TABLE,...' lines)"
        )
    regions: dict[str, dict[str, Any]] = info["regions"]
    cur: dict[str, Any] | None = None
    kind = ""
    stat = False
    header: list[str] = []
    for raw in rows:
        row = list(raw)
        while row and row[-1] == "":
            row.pop()
        if not row:
            continue
        head = row[0]
        if head == "STRUCT":
            cur = None
            continue
        if head in ("CPU name:", "CPU type:", "CPU clock:"):
            value = ",".join(row[1:]).strip()
            if head == "CPU name:":
                info["cpu_name"] = value
            elif head == "CPU type:":
                info["cpu_type"] = value
            else:
                m = re.match(r"([0-9.eE+-]+)\s*GHz", value)
                info["cpu_clock_ghz"] = float(m.group(1)) if m else None
            continue
        if head == "TABLE":
            desc = ",".join(row[1:-2]) if len(row) >= 4 else ""
            m = _TABLE_RE.match(desc)
            if not m:
                raise ValueError(f"unexpected likwid TABLE line: {','.join(row)!r}")
            tag = m.group("region") or ""
            cur = regions.setdefault(
                tag,
                {
                    "region": tag,
                    "group": row[-2],
                    "hwthreads": [],
                    "runtime_s": {},
                    "calls": {},
                    "events": {},
                    "counters": {},
                    "metrics": {},
                    "stat": {},
                },
            )
            kind = m.group("kind")
            stat = bool(m.group("stat"))
            header = []
            continue
        if cur is None:
            raise ValueError(f"likwid CSV row outside a table: {','.join(row)!r}")
        if head in ("Region Info", "Event", "Metric"):
            header = row
            if not stat:
                first = 1 if head in ("Region Info", "Metric") else 2
                threads = [_hwthread(h) for h in row[first:]]
                if not cur["hwthreads"]:
                    cur["hwthreads"] = threads
            continue
        if not header:
            raise ValueError(f"likwid CSV row before its header: {','.join(row)!r}")
        if header[0] == "Region Info":
            threads = [_hwthread(h) for h in header[1:]]
            vals = [_num(v) for v in row[1:]]
            key = (
                "runtime_s"
                if head.startswith("RDTSC Runtime")
                else "calls"
                if head == "call count"
                else None
            )
            if key:
                cur[key] = {
                    t: (int(v) if key == "calls" and v is not None else v)
                    for t, v in zip(threads, vals)
                }
            continue
        first = 2 if header[0] == "Event" else 1
        name = head[: -len(" STAT")] if stat and head.endswith(" STAT") else head
        cols = header[first:]
        vals = [_num(v) for v in row[first:]]
        if stat:
            cur["stat"].setdefault(name, {})
            cur["stat"][name].update(dict(zip(cols, vals)))
            continue
        threads = [_hwthread(h) for h in cols]
        table = cur["events"] if kind == "Raw" else cur["metrics"]
        table[name] = dict(zip(threads, vals))
        if kind == "Raw" and len(row) > 1:
            cur["counters"][name] = row[1]
    for reg in regions.values():
        reg.update(_energy_totals(reg))
    return info


def _energy_totals(reg: Mapping[str, Any]) -> dict[str, Any]:
    totals: dict[str, float | None] = {}
    pkg_threads: dict[int, float] = {}
    for name, per_thread in reg["metrics"].items():
        m = _ENERGY_METRIC.match(name)
        if not m:
            continue
        dom = _DOMAIN.get(
            (m.group("domain") or "").upper() or None, (m.group("domain") or "").lower()
        )
        vals = [v for v in per_thread.values() if v is not None]
        totals[dom] = sum(vals) if vals else None
        if dom == "pkg":
            pkg_threads = {t: v for t, v in per_thread.items() if v}
    if not totals:  # a group with events only: fall back to the raw RAPL events
        for name, per_thread in reg["events"].items():
            dom = _ENERGY_EVENT.get(name)
            if dom is None:
                continue
            vals = [v for v in per_thread.values() if v is not None]
            totals[dom] = sum(vals) if vals else None
            if dom == "pkg":
                pkg_threads = {t: v for t, v in per_thread.items() if v}
    calls = [c for c in reg["calls"].values() if c is not None]
    runtimes = [t for t in reg["runtime_s"].values() if t is not None]
    if not runtimes:
        rt = reg["metrics"].get("Runtime (RDTSC) [s]", {})
        runtimes = [t for t in rt.values() if t is not None]
    return {
        "joules_pkg": totals.get("pkg"),
        "joules_core": totals.get("core"),
        "joules_dram": totals.get("dram"),
        "joules_platform": totals.get("platform"),
        "sockets": len(pkg_threads) or None,
        "call_count": max(calls) if calls else None,
        "region_time_s": max(runtimes) if runtimes else None,
    }


def likwid_energy(
    parsed: Mapping[str, Any], region: str = LIKWID_REGION
) -> dict[str, Any] | None:
    """Energy of one marker region from :func:`parse_likwid_csv`, per call.

    Returns ``joules`` (package + DRAM where likwid has DRAM), ``joules_pkg``,
    ``joules_core``, ``joules_dram`` -- each the region total divided by its call
    count, i.e. the mean energy of one timed repetition -- plus ``energy_scope``,
    ``calls``, ``total_joules`` and ``sockets``. None when the region or its package
    energy is missing.
    """
    reg = parsed.get("regions", {}).get(region)
    if reg is None or reg.get("joules_pkg") is None:
        return None
    calls = reg.get("call_count") or 1
    pkg = reg["joules_pkg"]
    dram = reg.get("joules_dram")
    core = reg.get("joules_core")
    total = pkg + (dram or 0.0)
    scope = "package+dram" if dram is not None else "package"
    if reg.get("sockets") and reg["sockets"] > 1:
        scope += f" ({reg['sockets']} sockets)"
    return {
        "joules": total / calls,
        "joules_pkg": pkg / calls,
        "joules_core": core / calls if core is not None else None,
        "joules_dram": dram / calls if dram is not None else None,
        "energy_scope": scope,
        "calls": calls,
        "total_joules": total,
        "sockets": reg.get("sockets"),
    }


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
            r["energy_note"] = _join_notes(why, r.get("energy_note"))
            continue
        r["joules"] = e["joules"]
        r["joules_pkg"] = e["joules_pkg"]
        r["joules_core"] = e["joules_core"]
        r["joules_dram"] = e["joules_dram"]
        r["energy_source"] = "likwid"
        r["energy_scope"] = e["energy_scope"]
        r["energy_nodes"] = 1
        r["energy_note"] = _join_notes(
            f"likwid {LIKWID_GROUP} region '{region}': {e['total_joules']:.6g} J over {e['calls']} calls, "
            "per-repetition value is the mean",
            EXCLUSIVE_CAVEAT,
        )
    return recs


# --------------------------------------------------------------------------- powercap


@dataclass(frozen=True)
class PowercapZone:
    """One RAPL zone of the powercap sysfs tree (``intel-rapl:0``, ``intel-rapl:0:1``)."""

    zone: str
    path: Path
    name: str | None
    energy_uj: int | None
    max_energy_range_uj: int | None
    enabled: bool | None
    error: str | None = None  # why energy_uj could not be read
    subzones: tuple[PowercapZone, ...] = ()

    @property
    def readable(self) -> bool:
        return self.energy_uj is not None


def powercap_root() -> Path:
    """``$CIPHERSWEEP_POWERCAP_ROOT`` or ``/sys/class/powercap`` (as the C reader)."""
    return Path(os.environ.get(POWERCAP_ENV) or DEFAULT_POWERCAP_ROOT)


def energy_delta_uj(start: int, end: int, max_range: int | None) -> int | None:
    """Energy between two ``energy_uj`` readings, handling one counter wrap-around.

    The counter runs from 0 to ``max_energy_range_uj`` and then starts again at 0, so
    when ``end < start`` it wrapped once: ``max_range - start + end``. None when it
    wrapped and the range is unknown.
    """
    if end >= start:
        return end - start
    if not max_range or max_range <= 0:
        return None
    return max_range - start + end


def _read_text(path: Path) -> tuple[str | None, str | None]:
    """File content, or None and a reason worded like the C reader's notes."""
    try:
        return path.read_text().strip(), None
    except PermissionError:
        return None, f"permission denied on {path}"
    except OSError as exc:
        return None, f"cannot read {path}: {exc.strerror or exc}"
    except UnicodeDecodeError:
        return None, f"cannot read {path}: not a counter value"


def _read_int(path: Path) -> tuple[int | None, str | None]:
    text, err = _read_text(path)
    if text is None:
        return None, err
    if not text.isdigit():
        return None, f"cannot read {path}: not a counter value"
    return int(text), None


_ZONE_RE = re.compile(r"^intel-rapl:(\d+(?::\d+)*)$")


def _read_zone(d: Path) -> PowercapZone:
    name, _ = _read_text(d / "name")
    energy, err = _read_int(d / "energy_uj")
    rng, _ = _read_int(d / "max_energy_range_uj")
    en_text, _ = _read_text(d / "enabled")
    enabled = None if en_text is None else en_text == "1"
    return PowercapZone(d.name, d, name, energy, rng, enabled, err)


def read_powercap(root: str | os.PathLike[str] | None = None) -> list[PowercapZone]:
    """The RAPL zones under a powercap root, top-level zones with their subzones.

    Accepts both layouts the kernel produces: every zone linked flat under the root
    (``intel-rapl:0``, ``intel-rapl:0:0`` side by side) and subzones nested in their
    parent's directory.
    """
    base = Path(root) if root is not None else powercap_root()
    if not base.is_dir():
        return []
    found: dict[str, Path] = {}
    for d in sorted(base.glob("intel-rapl:*")):
        if _ZONE_RE.match(d.name):
            found.setdefault(d.name, d)
    for top in [p for n, p in list(found.items()) if n.count(":") == 1]:
        for d in sorted(top.glob("intel-rapl:*")):
            if _ZONE_RE.match(d.name):
                found.setdefault(d.name, d)
    zones = {n: _read_zone(p) for n, p in found.items()}
    tops = []
    for n in sorted((n for n in zones if n.count(":") == 1), key=_zone_key):
        subs = tuple(
            zones[s]
            for s in sorted(zones, key=_zone_key)
            if s.count(":") == 2 and s.startswith(n + ":")
        )
        z = zones[n]
        tops.append(
            PowercapZone(
                z.zone,
                z.path,
                z.name,
                z.energy_uj,
                z.max_energy_range_uj,
                z.enabled,
                z.error,
                subs,
            )
        )
    return tops


def _zone_key(n: str) -> tuple[int, ...]:
    return tuple(int(x) for x in n.split(":")[1:])


def check_rapl(root: str | os.PathLike[str] | None = None) -> SourceCheck:
    """Whether the kernel's powercap reader will find readable RAPL counters.

    Same rules and wording as the C reader: every package zone (top-level zone named
    ``package-*``) must have a readable ``energy_uj`` (a partial sum would be a guess);
    unreadable subzones are only mentioned.
    """
    base = Path(root) if root is not None else powercap_root()
    zones = read_powercap(base) if base.is_dir() else []
    if not zones:
        return SourceCheck("rapl", False, "powercap not present", {"root": str(base)})
    detail: dict[str, Any] = {
        "root": str(base),
        "zones": {
            z.zone: {
                "name": z.name,
                "readable": z.readable,
                "subzones": {s.zone: s.name for s in z.subzones},
            }
            for z in zones
        },
    }
    packages = [z for z in zones if (z.name or "").startswith("package")]
    if not packages:
        return SourceCheck("rapl", False, "powercap has no package zone", detail)
    for z in packages:
        if not z.readable:
            return SourceCheck(
                "rapl", False, z.error or f"cannot read {z.path}/energy_uj", detail
            )
    notes = [s.error for z in packages for s in z.subzones if s.error]
    if any(z.enabled is False for z in packages):
        notes.append("some RAPL zones report enabled=0")
    if notes:
        detail["notes"] = notes
    return SourceCheck("rapl", True, None, detail)


# --------------------------------------------------------------------------- NVML


def check_nvml() -> SourceCheck:
    """Whether the NVIDIA management library (aes-cuda's energy source) is present."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("nvidia-ml")
    candidates = [name] if name else []
    candidates += ["libnvidia-ml.so.1"]
    for lib in candidates:
        try:
            ctypes.CDLL(lib)
        except OSError:
            continue
        return SourceCheck("nvml", True, None, {"library": lib})
    return SourceCheck("nvml", False, "nvml: libnvidia-ml not found (no NVIDIA driver)")


# --------------------------------------------------------------------------- tables
