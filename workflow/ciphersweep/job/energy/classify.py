"""likwid-perfctr's failure output turned into one reason phrase, and the host facts
(perf events, perf_event_paranoid) that explain it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ciphersweep.job.energy.source import LIKWID_GROUP


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


def hardware_perf_events(root: str = "/sys/bus/event_source/devices") -> bool | None:
    """Whether the kernel exposes a CPU PMU for perf_event (None: cannot tell)."""
    base = Path(root)
    if not base.is_dir():
        return None
    names = {p.name for p in base.iterdir()}
    return bool(names & {"cpu", "cpu_core", "cpu_atom", "armv8_pmuv3"}) or any(
        n.startswith("armv8_") for n in names
    )


def perf_event_paranoid(
    path: str = "/proc/sys/kernel/perf_event_paranoid",
) -> int | None:
    try:
        return int(Path(path).read_text().strip())
    except (OSError, ValueError):
        return None
