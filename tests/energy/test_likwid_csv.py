"""likwid-perfctr CSV parser and merge, on files in likwid 5.x's exact CSV layout.

The fixtures in data/likwid_*.csv were written by likwid's own printing code:
data/make_likwid_fixtures.lua loads likwid.lua (likwid 5.x, src/applications/likwid.lua,
functions printOutput() and printcsv(), what `likwid-perfctr -O` / `-o FILE.csv` call)
and only replaces the hardware-facing functions with fixed readings.
test_fixtures_are_what_likwid_prints re-runs it where likwid is installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from ciphersweep.job import energy

DATA = Path(__file__).parent / "data"
SCENARIOS = [
    "skx_plain_1core",
    "skx_marker_1core",
    "skx_marker_2socket",
    "skx_plain_2socket",
    "zen3_marker_2core",
]
LIKWID_LUA = Path("/usr/share/lua/likwid.lua")


def load(name: str) -> dict:
    return energy.parse_likwid_csv((DATA / f"likwid_{name}.csv").read_text())


@pytest.mark.parametrize("name", SCENARIOS)
def test_fixtures_are_what_likwid_prints(name: str) -> None:
    lua = shutil.which("lua5.3")
    if lua is None or not LIKWID_LUA.is_file():
        pytest.skip("likwid's Lua library (Debian package likwid) is not installed")
    out = subprocess.run(
        [lua, "make_likwid_fixtures.lua", name],
        cwd=DATA,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert out == (DATA / f"likwid_{name}.csv").read_text()


def test_plain_single_core() -> None:
    p = load("skx_plain_1core")
    assert p["cpu_name"] == "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz"
    assert p["cpu_type"] == "Intel Skylake SP processor"
    assert p["cpu_clock_ghz"] == pytest.approx(2.4)
    assert list(p["regions"]) == [""]
    r = p["regions"][""]
    assert r["group"] == "ENERGY"
    assert r["hwthreads"] == [0]
    assert r["events"]["PWR_PKG_ENERGY"] == {0: pytest.approx(98.3125)}
    assert r["counters"]["PWR_DRAM_ENERGY"] == "PWR3"
    assert r["metrics"]["Power [W]"][0] == pytest.approx(64.5341)
    assert r["joules_pkg"] == pytest.approx(98.3125)
    assert r["joules_core"] == pytest.approx(61.0742)
    assert r["joules_dram"] == pytest.approx(9.8811)
    assert r["region_time_s"] == pytest.approx(1.5234)
    assert r["call_count"] is None
    assert r["sockets"] == 1
    # a plain run has no marker region "aes"
    assert energy.likwid_energy(p) is None
    assert energy.likwid_energy(p, region="")["joules"] == pytest.approx(
        98.3125 + 9.8811
    )


def test_marker_single_core() -> None:
    p = load("skx_marker_1core")
    r = p["regions"]["aes"]
    assert r["calls"] == {0: 4}
    assert r["runtime_s"] == {0: pytest.approx(0.402771)}
    e = energy.likwid_energy(p)
    assert e is not None
    assert e["calls"] == 4
    assert e["total_joules"] == pytest.approx(27.1187 + 2.6543)
    assert e["joules"] == pytest.approx((27.1187 + 2.6543) / 4)
    assert e["joules_pkg"] == pytest.approx(27.1187 / 4)
    assert e["joules_core"] == pytest.approx(17.4402 / 4)
    assert e["joules_dram"] == pytest.approx(2.6543 / 4)
    assert e["energy_scope"] == "package+dram"


def test_marker_two_sockets_sums_socket_leaders() -> None:
    p = load("skx_marker_2socket")
    r = p["regions"]["aes"]
    assert r["hwthreads"] == [0, 1, 20, 21]
    assert r["metrics"]["Energy [J]"] == {0: 16.4023, 1: 0.0, 20: 14.9731, 21: 0.0}
    assert r["joules_pkg"] == pytest.approx(16.4023 + 14.9731)
    assert r["joules_dram"] == pytest.approx(1.4021 + 1.3312)
    assert r["sockets"] == 2
    assert r["call_count"] == 4
    assert r["region_time_s"] == pytest.approx(0.212908)
    # likwid's own STAT table agrees with our sum (to its 4 printed decimals)
    assert r["stat"]["Energy [J]"]["Sum"] == pytest.approx(r["joules_pkg"], abs=1e-4)
    assert r["stat"]["PWR_PKG_ENERGY"]["Sum"] == pytest.approx(
        r["joules_pkg"], abs=1e-4
    )
    e = energy.likwid_energy(p)
    assert e["energy_scope"] == "package+dram (2 sockets)"
    assert e["joules"] == pytest.approx((31.3754 + 2.7333) / 4, abs=1e-4)


def test_plain_two_sockets_matches_stat_sum() -> None:
    r = load("skx_plain_2socket")["regions"][""]
    assert r["hwthreads"] == [0, 20]
    assert r["joules_pkg"] == pytest.approx(252.25)
    assert r["joules_pkg"] == pytest.approx(r["stat"]["Energy [J]"]["Sum"])
    assert r["joules_dram"] == pytest.approx(23.1875)
    assert r["stat"]["Energy DRAM [J]"] == {
        "Sum": pytest.approx(23.1875),
        "Min": pytest.approx(11.0625),
        "Max": pytest.approx(12.125),
        "Avg": pytest.approx(11.5938),
    }


def test_zen3_names() -> None:
    p = load("zen3_marker_2core")
    r = p["regions"]["aes"]
    assert r["joules_pkg"] == pytest.approx(31.8215)
    assert r["joules_core"] == pytest.approx(5.2231 + 5.0117)
    assert r["joules_dram"] is None
    e = energy.likwid_energy(p)
    assert e["energy_scope"] == "package"
    assert e["joules"] == pytest.approx(31.8215 / 4)
    assert e["joules_dram"] is None


def test_missing_values_and_raw_event_fallback() -> None:
    text = """\
STRUCT,Info,3
CPU name:,Some CPU,
CPU type:,Some type,
CPU clock:,2.1 GHz,
TABLE,Region aes,Group 1 Raw,CUSTOM,2
Region Info,HWThread 3,
RDTSC Runtime [s],0.500000,
call count,2,
Event,Counter,HWThread 3
PWR_PKG_ENERGY,PWR0,20.5000
PWR_DRAM_ENERGY,PWR3,-
"""
    p = energy.parse_likwid_csv(text)
    r = p["regions"]["aes"]
    assert r["events"]["PWR_DRAM_ENERGY"] == {3: None}
    assert r["joules_pkg"] == pytest.approx(20.5)
    assert r["joules_dram"] is None
    assert energy.likwid_energy(p)["joules"] == pytest.approx(10.25)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "--------\nCPU name:\tAMD EPYC\n",
        "TABLE,Group 1 Sideways,ENERGY,7\n",
        "STRUCT,Info,3\nEvent,Counter,HWThread 0\n",
    ],
)
def test_not_likwid_csv(text: str) -> None:
    with pytest.raises(ValueError):
        energy.parse_likwid_csv(text)


def records(n: int = 4) -> list[dict]:
    return [
        {
            "status": "ok",
            "rep": i,
            "t_total": 0.1,
            "joules": None,
            "energy_source": None,
            "energy_note": "powercap not present",
        }
        for i in range(n)
    ]


def test_merge_likwid_fills_every_record() -> None:
    p = load("skx_marker_1core")
    recs = records() + [{"status": "failed", "reason": "timeout"}]
    out = energy.merge_likwid(recs, p)
    assert recs[0]["joules"] is None  # input not modified
    for r in out[:4]:
        assert r["energy_source"] == "likwid"
        assert r["joules"] == pytest.approx((27.1187 + 2.6543) / 4)
        assert r["joules_pkg"] == pytest.approx(27.1187 / 4)
        assert r["joules_core"] == pytest.approx(17.4402 / 4)
        assert r["joules_dram"] == pytest.approx(2.6543 / 4)
        assert r["energy_scope"] == "package+dram"
        assert r["energy_nodes"] == 1
        assert "over 4 calls" in r["energy_note"]
        assert "exclusive" in r["energy_note"]
        assert r["t_total"] == 0.1
    assert out[4] == {"status": "failed", "reason": "timeout"}


def test_merge_likwid_without_region_keeps_kernel_values() -> None:
    plain = load("skx_plain_1core")  # no region "aes": wrapper not in marker mode
    for parsed in (plain, None):
        out = energy.merge_likwid(records(2), parsed)
        for r in out:
            assert r["joules"] is None
            assert r["energy_source"] is None
            assert r["energy_note"].startswith("likwid: no energy for region 'aes'")
            assert "powercap not present" in r["energy_note"]


def test_wrapper_argv() -> None:
    p = energy.Probe("auto", (0, 1, 2, 5), "omp", "likwid", "auto", None)
    point = {"backend": "omp", "threads": 4, "id": "omp-ttable-ctr-enc-1KiB-r1-t4"}
    assert energy.wrapper(point, p, out="raw/x.likwid.csv") == [
        "likwid-perfctr",
        "-m",
        "-g",
        "ENERGY",
        "-C",
        "0-2,5",
        "-O",
        "-o",
        "raw/x.likwid.csv",
    ]
    assert energy.wrapper(point, p)[-1] == str(energy.likwid_csv_path(point))
    assert (
        energy.likwid_csv_path(point).name
        == "ciphersweep-likwid-omp-ttable-ctr-enc-1KiB-r1-t4.csv"
    )
    # probe cores that do not fit the point: one core per thread from the job's mask
    seq = {"backend": "seq", "threads": 1, "id": "s"}
    assert energy.wrapper(seq, p, out="o.csv")[5] == str(energy.allowed_cores()[0])


def test_cores_for() -> None:
    assert energy.cores_for({"threads": 2}, [4, 5, 6]) == (4, 5)
    assert energy.cores_for({"threads": None}, [4, 5, 6]) == (4,)
    assert energy.cores_for({"threads": 8}, [0, 1]) == (0, 1)


def test_annotate_merges_likwid_csv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the bench job does after a likwid run: the wrapper's CSV goes into the records."""
    monkeypatch.setenv("CIPHERSWEEP_LIKWID_DIR", str(tmp_path))
    point = {"backend": "seq", "threads": 1, "id": "seq-x"}
    p = energy.Probe("auto", (0,), "seq", "likwid", "auto", None)
    out = energy.wrapper(point, p)[-1]
    assert Path(out).parent == tmp_path
    Path(out).write_text((DATA / "likwid_skx_marker_1core.csv").read_text())
    recs = records(4)
    assert energy.annotate(recs, p, point) is recs  # in place
    assert not Path(out).exists()  # consumed
    for r in recs:
        assert r["energy_source"] == "likwid"
        assert r["joules"] == pytest.approx((27.1187 + 2.6543) / 4)
    # the kernel crashed before likwid wrote anything: records keep the kernel's values
    recs = records(2)
    energy.annotate(recs, p, point)
    assert recs[0]["joules"] is None
    assert recs[0]["energy_note"].startswith("likwid: no energy for region 'aes'")
    # MPI point: likwid output is never merged (no wrapper was used)
    recs = records(1)
    energy.annotate(recs, p, {"backend": "mpi", "id": "m"})
    assert (
        recs[0]["energy_source"] is None
        and recs[0]["energy_note"] == "powercap not present"
    )


@pytest.mark.parametrize("backend", ["mpi", "cuda"])
def test_no_wrapper_for_mpi_and_cuda(backend: str) -> None:
    p = energy.Probe("auto", (0,), None, "likwid", "auto", None)
    assert energy.wrapper({"backend": backend, "id": "x"}, p) == []


@pytest.mark.parametrize("source", [None, "rapl", "nvml"])
def test_no_wrapper_without_likwid(source: str | None) -> None:
    p = energy.Probe("auto", (0,), "seq", source, "auto", "n")
    assert energy.wrapper({"backend": "seq", "id": "x"}, p) == []


def test_format_cpulist() -> None:
    assert energy.format_cpulist([3]) == "3"
    assert energy.format_cpulist([0, 1, 2, 3]) == "0-3"
    assert energy.format_cpulist([8, 0, 1, 10, 11, 1]) == "0-1,8,10-11"
