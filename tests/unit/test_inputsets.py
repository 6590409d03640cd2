"""Input file sets: generated sets deterministic by seed and inside their bounds,
glob/dir sets, their checks, and the points they make."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import inputsets
from ciphersweep.plan.sweep import expand
from support import ROOT, base_config


def test_uniform_sizes_deterministic_and_bounded() -> None:
    a = inputsets.set_sizes(50, 10_000, 500_000, "uniform", 1, "audio")
    assert a == inputsets.set_sizes(50, 10_000, 500_000, "uniform", 1, "audio")
    assert a != inputsets.set_sizes(50, 10_000, 500_000, "uniform", 2, "audio")
    assert a != inputsets.set_sizes(50, 10_000, 500_000, "uniform", 1, "images")
    assert len(a) == 50 and all(10_000 <= n <= 500_000 for n in a)
    assert len(set(a)) > 40  # spread over the range, not one value


def test_even_sizes_span_the_range() -> None:
    assert inputsets.set_sizes(5, 20, 1000, "even", 1, "t") == [20, 265, 510, 755, 1000]
    assert inputsets.set_sizes(1, 20, 1000, "even", 1, "t") == [20]
    with pytest.raises(ValueError):
        inputsets.set_sizes(3, 100, 10, "even", 1, "t")


def _cfg(tmp_path: Path, *items: dict) -> dict:
    return cs_config.validate(
        base_config(inputs=list(items), backends={"seq": {"impls": ["ttable"]}}),
        root=ROOT,
        workdir=tmp_path,
    )


def test_generated_set_points(tmp_path: Path) -> None:
    item = {"name": "texts", "generate": {"count": 3, "min": "20B", "max": "1000B"}}
    pts = [p for p in expand(_cfg(tmp_path, item)) if p.input_set]
    assert [p.input_name for p in pts] == ["texts.001", "texts.002", "texts.003"]
    assert all(20 <= p.size_bytes <= 1000 and p.input_path is None for p in pts)
    assert len({p.seed for p in pts}) == 3  # distinct contents per member
    again = [p for p in expand(_cfg(tmp_path, copy.deepcopy(item))) if p.input_set]
    assert [(p.size_bytes, p.seed) for p in again] == [
        (p.size_bytes, p.seed) for p in pts
    ]


STUDY_SETS = (  # Centellas Claros et al. 2021, §5.1: 50 files of each kind
    {"name": "texts", "generate": {"count": 50, "min": "20B", "max": "1000B"}},
    {"name": "audio", "generate": {"count": 50, "min": "10000B", "max": "500000B"}},
    {"name": "images", "generate": {"count": 50, "min": "100000B", "max": "300000B"}},
)


def _members(cfg: dict) -> dict[str, list[tuple[str, int, int | None]]]:
    out: dict[str, list[tuple[str, int, int | None]]] = {}
    for f in inputsets.expand(cfg):
        if f.set_name:
            out.setdefault(f.set_name, []).append((f.name, f.size_bytes, f.seed))
    return out


def test_a_study_shaped_set_and_its_reduced_set(tmp_path: Path) -> None:
    """files_per_set: every generated set reduced at once, to the first files of the
    full one (same names, sizes and contents); deterministic by seed."""
    full = _members(_cfg(tmp_path, *copy.deepcopy(STUDY_SETS)))
    ranges = {
        "texts": (20, 1000),
        "audio": (10_000, 500_000),
        "images": (100_000, 300_000),
    }
    for name, (lo, hi) in ranges.items():
        sizes = [n for _, n, _ in full[name]]
        assert len(sizes) == 50 and all(lo <= n <= hi for n in sizes)
        assert min(sizes) < lo + (hi - lo) / 4 and max(sizes) > hi - (hi - lo) / 4
    assert full == _members(_cfg(tmp_path, *copy.deepcopy(STUDY_SETS)))
    raw = base_config(inputs=copy.deepcopy(list(STUDY_SETS)), files_per_set=5)
    raw["backends"] = {"seq": {"impls": ["ttable"]}}
    small = _members(cs_config.validate(raw, root=ROOT, workdir=tmp_path))
    assert small == {k: v[:5] for k, v in full.items()}
    other = base_config(inputs=copy.deepcopy(list(STUDY_SETS)), seed=2)
    other["backends"] = {"seq": {"impls": ["ttable"]}}
    assert _members(cs_config.validate(other, root=ROOT, workdir=tmp_path)) != full
    raw["files_per_set"] = 0
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_config.validate(raw, root=ROOT, workdir=tmp_path)
    assert "files_per_set: 0" in str(exc.value) and "\n" not in str(exc.value)


def test_glob_and_dir_sets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "data"
    d.mkdir()
    for name, n in (("b.txt", 30), ("a.txt", 10), ("c.bin", 5)):
        (d / name).write_bytes(b"x" * n)
    monkeypatch.chdir(tmp_path)
    cfg = _cfg(
        tmp_path,
        {"name": "txt", "glob": "data/*.txt"},
        {"name": "all", "dir": "data"},
    )
    pts = [p for p in expand(cfg) if p.input_set]
    got = {(p.input_set, p.input_name, p.size_bytes, p.input_path) for p in pts}
    assert ("txt", "txt.001", 10, "data/a.txt") in got
    assert ("txt", "txt.002", 30, "data/b.txt") in got
    assert {p.input_name for p in pts if p.input_set == "all"} == {
        "all.001",
        "all.002",
        "all.003",
    }


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (
            {"name": "s", "glob": "nothing/*.bin"},
            "inputs[0].glob: 'nothing/*.bin' matches no file",
        ),
        ({"name": "s", "dir": "nodir"}, "inputs[0].dir: 'nodir': no such directory"),
        (
            {"name": "s", "generate": {"count": 2, "min": "2KB", "max": "1KB"}},
            "inputs[0].generate: min '2KB' > max '1KB'",
        ),
        (
            {"name": "s", "generate": {"count": 2, "min": "1QB", "max": "1KB"}},
            "inputs[0].generate",
        ),
        ({"name": "s"}, "inputs[0]: give exactly one of path, glob, dir, generate"),
        ({"name": "s", "glob": "a", "dir": "b"}, "give exactly one"),
    ],
)
def test_bad_sets(tmp_path: Path, item: dict, expected: str) -> None:
    with pytest.raises(cs_config.ConfigError) as exc:
        _cfg(tmp_path, item)
    assert expected in str(exc.value) and "\n" not in str(exc.value)


def test_set_mean_never_partial() -> None:
    from ciphersweep.analysis.tables import layout_tables
    from ciphersweep.analysis.tables import model as tables

    assert layout_tables._mean([1.0, 2.0, 6.0]) == (3.0, "mean over 3 inputs")
    failed = (tables.FAILED, "exit 1: boom")
    assert layout_tables._mean([1.0, failed, (tables.NA, "x")]) == failed
    assert layout_tables._mean([1.0, None])[0] == tables.NA
    assert layout_tables._mean(["OK", "OK"]) == "OK"
