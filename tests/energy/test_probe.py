"""The energy probe: on this machine (really runs likwid-perfctr) and with stand-ins."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from ciphersweep.job import energy

DATA = Path(__file__).parent / "data"

# What likwid-perfctr 5.2.2 prints on stderr on a CPU it does not know (rc 1; the
# wrapped program never starts).
UNSUPPORTED = """\
ERROR - [./src/perfmon.c:perfmon_init_maps:1262] Unsupported AMD Zen Processor
ERROR - [./src/perfmon.c:perfmon_init_funcs:1839] Unsupported AMD Zen3 Processor
Cannot get access to MSRs. Please check permissions to the MSRs
--------------------------------------------------------------------------------
CPU name:\tAMD EPYC
CPU type:\tnil
CPU clock:\t2.60 GHz
"""


def likwid_installed() -> str:
    exe = shutil.which("likwid-perfctr")
    if exe is None:
        pytest.skip(
            "likwid-perfctr is not installed (Debian package likwid, scripts/apt-run.txt)"
        )
    return exe


def test_probe_on_this_machine() -> None:
    """Runs the real likwid-perfctr and checks the probe says what it really did."""
    exe = likwid_installed()
    run = subprocess.run(
        [exe, "-C", "0", "-g", "ENERGY", "-O", "sh", "-c", "echo started"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    p = energy.probe([0], "auto")
    lk = p.check("likwid")
    assert lk is not None
    if run.returncode != 0 or "started" not in run.stdout:
        assert not lk.ok
        assert lk.reason.startswith("likwid: ")
        errors = [ln for ln in run.stderr.splitlines() if ln.startswith("ERROR")]
        if errors:  # likwid's own first error line is quoted in the note
            assert errors[0].split("] ", 1)[-1].strip() in lk.reason
        if "Unsupported" in run.stderr:
            assert "likwid: unsupported CPU (" in lk.reason
        assert lk.detail["started_program"] is False
        assert p.source in ("rapl", None)
        assert lk.reason in p.note
    hw = Path("/sys/bus/event_source/devices")
    if hw.is_dir() and not (
        {"cpu", "cpu_core", "cpu_atom"} & {d.name for d in hw.iterdir()}
    ):
        assert "no hardware perf events" in lk.reason
    if not Path(os.environ.get(energy.POWERCAP_ENV) or "/sys/class/powercap").is_dir():
        assert p.source is None
        assert p.note.endswith("powercap not present")
        assert p.kernel_energy == "auto"  # the kernel still tries (and says why not)
    assert p.cores == (0,)


def test_classify_unsupported_cpu() -> None:
    r = energy.classify_likwid_failure(
        UNSUPPORTED, 1, {"hardware_perf_events": False, "perf_event_paranoid": 2}
    )
    assert r == (
        "likwid: unsupported CPU (Unsupported AMD Zen Processor); no MSR access; "
        "no hardware perf events (perf_event_paranoid=2)"
    )


@pytest.mark.parametrize(
    ("text", "rc", "want"),
    [
        (
            "ERROR - [./src/access.c:access_init:96] Cannot get access to MSRs. Please check permissions\n",
            1,
            "likwid: no access to MSRs (Cannot get access to MSRs. Please check permissions)",
        ),
        (
            "ERROR - [./src/perfmon.c:perfmon_init:1204] perf_event_paranoid is 3, cannot measure\n",
            1,
            "likwid: no access to hardware perf events (perf_event_paranoid is 3, cannot measure)",
        ),
        (
            "ERROR: Performance group ENERGY not found for this architecture\n",
            1,
            "likwid: no ENERGY group for this CPU (Performance group ENERGY not found for this architecture)",
        ),
        (
            "Segmentation fault\n",
            139,
            "likwid: likwid-perfctr failed (rc 139) (Segmentation fault)",
        ),
    ],
)
def test_classify_other_failures(text: str, rc: int, want: str) -> None:
    assert energy.classify_likwid_failure(text, rc) == want


def fake_likwid(bindir: Path, body: str) -> None:
    """A likwid-perfctr stand-in on PATH (a shell script)."""
    bindir.mkdir(exist_ok=True)
    exe = bindir / "likwid-perfctr"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


# Writes a plain-run ENERGY CSV (as likwid 5.x prints it) to the -o file, then runs the
# program after the options, like likwid-perfctr does.
WORKING = f"""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2;;
    -C|-g) shift 2;;
    -O|-m) shift;;
    *) break;;
  esac
done
"$@"
rc=$?
cp "{DATA / "likwid_skx_plain_1core.csv"}" "$out"
exit $rc
"""


def test_probe_picks_working_likwid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_likwid(tmp_path / "bin", WORKING)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv(energy.POWERCAP_ENV, str(tmp_path / "no-powercap"))
    p = energy.probe([2, 3], "auto")
    assert p.source == "likwid" and p.note is None and p.kernel_energy == "auto"
    assert p.check("likwid").detail["started_program"] is True
    assert energy.wrapper({"backend": "omp", "threads": 2, "id": "pt"}, p, out="o.csv")[
        :6
    ] == [
        "likwid-perfctr",
        "-m",
        "-g",
        "ENERGY",
        "-C",
        "2-3",
    ]
    # MPI: likwid is not used even though it works; no powercap here -> none
    p = energy.probe([2, 3], "auto", backend="mpi")
    assert p.source is None
    assert p.note.startswith("likwid: not used for MPI points")
    # a kernel binary without the Marker API cannot be measured in marker mode
    plain = tmp_path / "aes-seq"
    plain.write_bytes(b"\x7fELF no markers")
    p = energy.probe([0], "auto", binary=plain)
    assert p.source is None
    assert "likwid: aes-seq built without likwid's Marker API" in p.note


def test_probe_likwid_that_never_starts_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_likwid(tmp_path / "bin", "echo 'CPU name: x'\nexit 0\n")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    c = energy.check_likwid([0])
    assert not c.ok
    assert c.reason.startswith("likwid: did not start the program")


def test_probe_likwid_without_energy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_likwid(
        tmp_path / "bin", WORKING.replace("likwid_skx_plain_1core.csv", "nothing.csv")
    )
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    c = energy.check_likwid([0])
    assert not c.ok and c.reason.startswith("likwid: ")


def test_probe_likwid_hangs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_likwid(tmp_path / "bin", "exec sleep 30\n")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    c = energy.check_likwid([0], timeout=0.5)
    assert c.reason == "likwid: likwid-perfctr did not finish within 0.5 s"


def test_likwid_not_installed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert energy.check_likwid([0]).reason == "likwid: likwid-perfctr not installed"


def test_modes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    p = energy.probe("none")  # the probe(mode) form
    assert p.mode == "none" and p.cores == tuple(energy.allowed_cores()[:1])
    assert energy.kernel_flag(p) == "none" and energy.kernel_flag(None) == "auto"
    p = energy.probe(mode="none", point={"backend": "omp", "threads": 2, "id": "x"})
    assert p.backend == "omp" and p.cores == tuple(energy.allowed_cores()[:2])
    p = energy.probe([0], "none")
    assert p.source is None and p.kernel_energy == "none"
    assert p.note == "energy disabled (platform.energy: none)"
    with pytest.raises(ValueError, match="energy mode"):
        energy.probe([0], "watts")
    monkeypatch.setenv("PATH", str(tmp_path))
    p = energy.probe([0], "likwid")
    assert p.source is None and p.kernel_energy == "none"
    assert p.note == "likwid: likwid-perfctr not installed"
    assert [c.name for c in p.checks] == ["likwid"]


def test_cuda_uses_nvml_or_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(energy.POWERCAP_ENV, str(tmp_path / "none"))
    p = energy.probe([0], "auto", backend="cuda")
    nv = p.check("nvml")
    assert nv is not None
    if nv.ok:
        assert p.source == "nvml"
    else:
        assert p.source is None
        assert (
            p.note
            == "nvml: libnvidia-ml not found (no NVIDIA driver); powercap not present"
        )


def test_annotate_null_records() -> None:
    p = energy.Probe(
        "auto",
        (0,),
        "seq",
        None,
        "auto",
        "likwid: unsupported CPU (X); powercap not present",
    )
    recs = [
        {
            "status": "ok",
            "joules": None,
            "energy_source": None,
            "energy_note": "powercap not present",
            "t_total": 1.0,
        },
        {"status": "ok", "joules": 2.5, "energy_source": "rapl", "energy_note": None},
        {"status": "failed", "reason": "timeout"},
    ]
    out = energy.annotate(recs, p)
    assert out[0]["energy_note"] == "likwid: unsupported CPU (X); powercap not present"
    assert out[0]["joules"] is None and out[0]["t_total"] == 1.0
    assert out[1]["joules"] == 2.5
    assert out[1]["energy_note"] == energy.EXCLUSIVE_CAVEAT
    assert out[2] == recs[2]


def test_probe_summary_line() -> None:
    p = energy.Probe("auto", (0, 1), "seq", None, "auto", "powercap not present")
    assert (
        p.summary()
        == "energy: source=none (mode auto, cores 0,1); powercap not present"
    )
    assert p.as_dict()["cores"] == [0, 1]
