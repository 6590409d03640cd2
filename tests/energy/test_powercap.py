"""Powercap (RAPL) sysfs reader on fake trees with the kernel's real file names.

Real layout (Linux drivers/powercap): /sys/class/powercap/intel-rapl:N and
intel-rapl:N:M are links to .../devices/virtual/powercap/intel-rapl/intel-rapl:N[/...],
each zone has name, energy_uj, max_energy_range_uj, enabled; subzones also sit inside
their package's directory.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ciphersweep.job import energy

MAX = 262143328850  # max_energy_range_uj of a current Intel package


def zone(
    d: Path, name: str, uj: int | None, *, enabled: str = "1", rng: int = MAX
) -> Path:
    d.mkdir(parents=True)
    (d / "name").write_text(name + "\n")
    if uj is not None:
        (d / "energy_uj").write_text(f"{uj}\n")
    (d / "max_energy_range_uj").write_text(f"{rng}\n")
    (d / "enabled").write_text(enabled + "\n")
    return d


def sysfs(tmp: Path, packages: int = 2, dram: bool = True) -> Path:
    """A tree like the kernel's: zones under devices/, flat links under class/."""
    dev = tmp / "devices" / "virtual" / "powercap" / "intel-rapl"
    cls = tmp / "class" / "powercap"
    cls.mkdir(parents=True)
    (cls / "intel-rapl").symlink_to(os.path.relpath(dev, cls))
    for n in range(packages):
        top = zone(dev / f"intel-rapl:{n}", f"package-{n}", 1_000_000 * (n + 1))
        subs = [("core", 400_000)] + ([("dram", 90_000)] if dram else [])
        for m, (sname, uj) in enumerate(subs):
            zone(top / f"intel-rapl:{n}:{m}", sname, uj)
            (cls / f"intel-rapl:{n}:{m}").symlink_to(
                os.path.relpath(top / f"intel-rapl:{n}:{m}", cls)
            )
        (cls / f"intel-rapl:{n}").symlink_to(os.path.relpath(top, cls))
    return cls


def test_read_real_layout(tmp_path: Path) -> None:
    root = sysfs(tmp_path)
    zones = energy.read_powercap(root)
    assert [z.zone for z in zones] == ["intel-rapl:0", "intel-rapl:1"]
    z0 = zones[0]
    assert z0.name == "package-0"
    assert z0.energy_uj == 1_000_000
    assert z0.max_energy_range_uj == MAX
    assert z0.enabled is True
    assert z0.error is None
    assert [(s.zone, s.name, s.energy_uj) for s in z0.subzones] == [
        ("intel-rapl:0:0", "core", 400_000),
        ("intel-rapl:0:1", "dram", 90_000),
    ]
    assert zones[1].energy_uj == 2_000_000


def test_nested_only_layout(tmp_path: Path) -> None:
    top = zone(tmp_path / "intel-rapl:0", "package-0", 5)
    zone(top / "intel-rapl:0:0", "core", 3)
    zones = energy.read_powercap(tmp_path)
    assert [s.name for s in zones[0].subzones] == ["core"]


def test_check_rapl_uses_env_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = sysfs(tmp_path)
    monkeypatch.setenv(energy.POWERCAP_ENV, str(root))
    assert energy.powercap_root() == root
    c = energy.check_rapl()
    assert c.ok and c.reason is None
    assert c.detail["zones"]["intel-rapl:1"]["subzones"] == {
        "intel-rapl:1:0": "core",
        "intel-rapl:1:1": "dram",
    }
    p = energy.probe([0], "rapl")
    assert p.source == "rapl" and p.kernel_energy == "rapl" and p.note is None
    p = energy.probe([0], "auto", backend="mpi")
    assert p.source == "rapl"
    assert p.note.startswith("likwid: not used for MPI points")


@pytest.mark.parametrize(
    ("start", "end", "rng", "delta"),
    [
        (1_000, 5_500, MAX, 4_500),
        (MAX - 1_000, 500, MAX, 1_500),  # wrapped once
        (7, 7, MAX, 0),
        (MAX - 1, 2, None, None),  # wrapped, range unknown: no guess
    ],
)
def test_wrap_around(start: int, end: int, rng: int | None, delta: int | None) -> None:
    assert energy.energy_delta_uj(start, end, rng) == delta


def test_wrap_around_from_tree_readings(tmp_path: Path) -> None:
    top = zone(tmp_path / "intel-rapl:0", "package-0", MAX - 2_000_000)
    before = energy.read_powercap(tmp_path)[0]
    (top / "energy_uj").write_text("3000000\n")
    after = energy.read_powercap(tmp_path)[0]
    d = energy.energy_delta_uj(
        before.energy_uj, after.energy_uj, after.max_energy_range_uj
    )
    assert d == 5_000_000  # 5 J across the wrap


def test_missing_root(tmp_path: Path) -> None:
    c = energy.check_rapl(tmp_path / "nope")
    assert not c.ok and c.reason == "powercap not present"
    (tmp_path / "empty").mkdir()
    assert energy.check_rapl(tmp_path / "empty").reason == "powercap not present"


def test_no_package_zone(tmp_path: Path) -> None:
    zone(tmp_path / "intel-rapl:0", "psys", 10)
    c = energy.check_rapl(tmp_path)
    assert not c.ok and c.reason == "powercap has no package zone"


def test_energy_uj_is_a_directory(tmp_path: Path) -> None:
    top = zone(tmp_path / "intel-rapl:0", "package-0", None)
    (top / "energy_uj").mkdir()  # unreadable for root too
    c = energy.check_rapl(tmp_path)
    assert not c.ok
    assert c.reason == f"cannot read {top / 'energy_uj'}: Is a directory"


def test_energy_uj_dangling_link(tmp_path: Path) -> None:
    top = zone(tmp_path / "intel-rapl:0", "package-0", None)
    (top / "energy_uj").symlink_to(tmp_path / "gone")
    c = energy.check_rapl(tmp_path)
    assert not c.ok
    assert c.reason == f"cannot read {top / 'energy_uj'}: No such file or directory"


def test_energy_uj_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = zone(tmp_path / "intel-rapl:0", "package-0", 1)
    target = top / "energy_uj"
    real = Path.read_text

    def read_text(self: Path, *a: object, **k: object) -> str:
        if self == target:  # what a non-root user gets since Linux 5.10 (mode 0400)
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "read_text", read_text)
    c = energy.check_rapl(tmp_path)
    assert not c.ok
    assert c.reason == f"permission denied on {target}"
    monkeypatch.setenv(energy.POWERCAP_ENV, str(tmp_path))
    p = energy.probe([0], "rapl")
    assert p.source is None and p.note == f"permission denied on {target}"


def test_energy_uj_garbage(tmp_path: Path) -> None:
    top = zone(tmp_path / "intel-rapl:0", "package-0", None)
    (top / "energy_uj").write_text("-12\n")
    assert (
        energy.check_rapl(tmp_path).reason
        == f"cannot read {top / 'energy_uj'}: not a counter value"
    )


def test_one_unreadable_package_disables_source(tmp_path: Path) -> None:
    root = sysfs(tmp_path)
    pkg1 = (root / "intel-rapl:1").resolve()
    (pkg1 / "energy_uj").unlink()
    (pkg1 / "energy_uj").mkdir()
    c = energy.check_rapl(root)
    assert not c.ok  # a partial package sum would be a guess
    assert "intel-rapl:1/energy_uj: Is a directory" in c.reason


def test_unreadable_subzone_is_only_noted(tmp_path: Path) -> None:
    root = sysfs(tmp_path, packages=1)
    dram = (root / "intel-rapl:0:1").resolve()
    (dram / "energy_uj").unlink()
    (dram / "energy_uj").mkdir()
    (root / "intel-rapl:0" / "enabled").write_text("0\n")
    c = energy.check_rapl(root)
    assert c.ok
    assert any(
        "intel-rapl:0:1/energy_uj: Is a directory" in n for n in c.detail["notes"]
    )
    assert "some RAPL zones report enabled=0" in c.detail["notes"]
