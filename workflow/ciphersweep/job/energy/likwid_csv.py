"""Parser of likwid-perfctr's CSV output and the energy of one marker region."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from typing import Any

from ciphersweep.job.energy.source import LIKWID_REGION

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
    if not any(r and r[0] in ("STRUCT", "TABLE") for r in rows):
        raise ValueError(
            "no likwid CSV tables (expected 'STRUCT,Info' / 'TABLE,...' lines)"
        )
    reader = _Reader()
    for raw in rows:
        row = list(raw)
        while row and row[-1] == "":
            row.pop()
        if row:
            reader.feed(row)
    for reg in reader.regions.values():
        reg.update(_energy_totals(reg))
    return {**reader.cpu, "regions": reader.regions}


_CPU_KEYS = {
    "CPU name:": "cpu_name",
    "CPU type:": "cpu_type",
    "CPU clock:": "cpu_clock_ghz",
}


def _new_region(tag: str, group: str) -> dict[str, Any]:
    return {
        "region": tag,
        "group": group,
        "hwthreads": [],
        "runtime_s": {},
        "calls": {},
        "events": {},
        "counters": {},
        "metrics": {},
        "stat": {},
    }


class _Reader:
    """The state of one pass over likwid's CSV rows: the table being read (its region,
    kind and whether it is a STAT table) and its header row."""

    def __init__(self) -> None:
        self.cpu: dict[str, Any] = dict.fromkeys(_CPU_KEYS.values())
        self.regions: dict[str, dict[str, Any]] = {}
        self.cur: dict[str, Any] | None = None
        self.kind = ""
        self.stat = False
        self.header: list[str] = []

    def feed(self, row: list[str]) -> None:
        head = row[0]
        if head == "STRUCT":
            self.cur = None
        elif head in _CPU_KEYS:
            self._cpu_line(head, ",".join(row[1:]).strip())
        elif head == "TABLE":
            self._table(row)
        elif self.cur is None:
            raise ValueError(f"likwid CSV row outside a table: {','.join(row)!r}")
        elif head in ("Region Info", "Event", "Metric"):
            self._header(row)
        elif not self.header:
            raise ValueError(f"likwid CSV row before its header: {','.join(row)!r}")
        elif self.header[0] == "Region Info":
            self._region_info(row)
        else:
            self._values(row)

    def _cpu_line(self, head: str, value: str) -> None:
        if head == "CPU clock:":
            m = re.match(r"([0-9.eE+-]+)\s*GHz", value)
            self.cpu["cpu_clock_ghz"] = float(m.group(1)) if m else None
        else:
            self.cpu[_CPU_KEYS[head]] = value

    def _table(self, row: list[str]) -> None:
        desc = ",".join(row[1:-2]) if len(row) >= 4 else ""
        m = _TABLE_RE.match(desc)
        if not m:
            raise ValueError(f"unexpected likwid TABLE line: {','.join(row)!r}")
        tag = m.group("region") or ""
        self.cur = self.regions.setdefault(tag, _new_region(tag, row[-2]))
        self.kind = m.group("kind")
        self.stat = bool(m.group("stat"))
        self.header = []

    def _header(self, row: list[str]) -> None:
        assert self.cur is not None
        self.header = row
        if not self.stat:
            first = 1 if row[0] in ("Region Info", "Metric") else 2
            threads = [_hwthread(h) for h in row[first:]]
            if not self.cur["hwthreads"]:
                self.cur["hwthreads"] = threads

    def _region_info(self, row: list[str]) -> None:
        assert self.cur is not None
        head = row[0]
        threads = [_hwthread(h) for h in self.header[1:]]
        vals = [_num(v) for v in row[1:]]
        if head.startswith("RDTSC Runtime"):
            self.cur["runtime_s"] = dict(zip(threads, vals))
        elif head == "call count":
            self.cur["calls"] = {
                t: (int(v) if v is not None else v) for t, v in zip(threads, vals)
            }

    def _values(self, row: list[str]) -> None:
        assert self.cur is not None
        head = row[0]
        first = 2 if self.header[0] == "Event" else 1
        stat = self.stat
        name = head[: -len(" STAT")] if stat and head.endswith(" STAT") else head
        cols = self.header[first:]
        vals = [_num(v) for v in row[first:]]
        if stat:
            self.cur["stat"].setdefault(name, {}).update(dict(zip(cols, vals)))
            return
        threads = [_hwthread(h) for h in cols]
        table = self.cur["events"] if self.kind == "Raw" else self.cur["metrics"]
        table[name] = dict(zip(threads, vals))
        if self.kind == "Raw" and len(row) > 1:
            self.cur["counters"][name] = row[1]


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
