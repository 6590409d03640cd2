"""The powercap (RAPL) sysfs tree, read as the kernels' C reader reads it."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ciphersweep.job.energy.source import SourceCheck

POWERCAP_ENV = "CIPHERSWEEP_POWERCAP_ROOT"
DEFAULT_POWERCAP_ROOT = "/sys/class/powercap"


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
