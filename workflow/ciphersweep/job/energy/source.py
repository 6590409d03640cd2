"""What an energy source check says, the probe's decision, and the names they share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

LIKWID_GROUP = "ENERGY"
LIKWID_REGION = "aes"
MODES = ("auto", "none", "likwid", "rapl")
EXCLUSIVE_CAVEAT = "socket-wide counters: meaningful only on an exclusive node"


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


def get_field(point: Any, key: str) -> Any:
    if isinstance(point, Mapping):
        return point.get(key)
    return getattr(point, key, None)


def join_notes(*notes: str | None) -> str | None:
    parts: list[str] = []
    for n in notes:
        for part in (n or "").split("; "):
            part = part.strip()
            if not part or any(part in p or p in part for p in parts):
                continue
            parts.append(part)
    return "; ".join(parts) or None
