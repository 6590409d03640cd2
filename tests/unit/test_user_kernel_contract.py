"""A user's own kernel without Snakemake: its checks before any job (one line naming
the kernel), its build's key, its launch line, and aes-user running small programs
that speak the contract, or misspeak it, through its real command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from ciphersweep.job import kernel_user, launch, user_build
from ciphersweep.job.record_schema import validate_record
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import sweep, user_kernels
from support import ROOT, base_config

EXAMPLE = ROOT / "examples" / "mykernel"

# A kernel in Python: OpenSSL's bytes (``right``) or its input's, and records of its
# own saying what ``extra`` says.
_KERNEL = """#!{python}
import argparse, json, subprocess
ap = argparse.ArgumentParser()
for flag in ("mode", "op", "key", "iv", "input", "output", "reps", "warmup", "threads"):
    ap.add_argument("--" + flag)
a, _ = ap.parse_known_args()
if {right}:
    d = [] if a.op == "encrypt" else ["-d"]
    subprocess.run(["openssl", "enc", "-aes-128-" + a.mode, *d, "-K", a.key,
                    "-iv", a.iv, "-in", a.input, "-out", a.output], check=True)
else:
    open(a.output, "wb").write(open(a.input, "rb").read())
print("a banner line of its own")
for _ in range(int(a.reps) + {more}):
    print(json.dumps({{"t_total": 0.002, "t_compute": 0.001, **{extra}}}))
"""


def kernel(tmp_path: Path, right: bool = True, more: int = 0, **extra: Any) -> str:
    path = tmp_path / "kernel"
    path.write_text(
        _KERNEL.format(python=sys.executable, right=right, more=more, extra=extra)
    )
    path.chmod(0o755)
    return str(path)


def _cfg(tmp_path: Path, **kernel_over: Any) -> dict[str, Any]:
    k = {"name": "mine", "ciphers": ["aes-128-ctr"], **kernel_over}
    return base_config(backends={"user": {"kernels": [k]}})


@pytest.mark.parametrize(
    ("over", "line"),
    [
        ({"program": "no/such"}, "program: kernel 'mine': no/such does not exist"),
        ({"program": "README.md"}, "README.md is not an executable file"),
        ({"source": "docs"}, "source: kernel 'mine': docs is not a CMake project"),
        ({}, "kernel 'mine': give either source (a CMake project) or program"),
        ({"program": "x", "source": "y"}, "program (an executable), not both"),
        (
            {"source": "examples/mykernel", "ranks": [1, 99]},
            "ranks[1]: 99 is out of range",
        ),
        (
            {"source": "examples/mykernel", "ciphers": ["rot13"]},
            "ciphers[0]: kernel 'mine'",
        ),
    ],
)
def test_a_bad_kernel_is_one_line_before_any_job(
    tmp_path: Path, over: dict[str, Any], line: str
) -> None:
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_config.validate(_cfg(tmp_path, **over), root=ROOT, workdir=ROOT)
    msg = str(exc.value)
    assert msg.startswith("invalid config: backends.user.kernels[0]") and line in msg
    assert "\n" not in msg


def test_a_user_kernel_runs_fixed_repetitions(tmp_path: Path) -> None:
    """With a precision target, the built-ins repeat until it is met; a user kernel,
    whose contract has no stop rule, runs its min_reps; a batch is refused."""
    cfg = _cfg(tmp_path, source="examples/mykernel")
    cfg["backends"]["openssl"] = {"ciphers": ["aes-128-ctr"]}
    cfg["precision"] = {"target": 0.05, "min_reps": 4, "max_reps": 50}
    points = sweep.expand(cs_config.validate(cfg, root=ROOT, workdir=ROOT))
    user = [p for p in points if p.backend == "user"]
    assert user and all(p.rep_range == (4, 4) and p.target is None for p in user)
    assert all(p.rep_range == (4, 50) for p in points if p.backend == "openssl")
    cfg.pop("precision")
    cfg["batch"] = 3
    with pytest.raises(cs_config.ConfigError, match="^invalid config: batch: not with"):
        cs_config.validate(cfg, root=ROOT, workdir=ROOT)


def test_an_edited_source_is_a_new_build(tmp_path: Path) -> None:
    src = tmp_path / "k"
    src.mkdir()
    (src / "CMakeLists.txt").write_text("project(k C)\n")
    (src / "k.c").write_text("int main(void) { return 0; }\n")
    (src / "build").mkdir()  # a build tree inside is not a source
    (src / "build" / "junk.o").write_text("x")
    k = {"name": "k", "source": str(src), "ciphers": ["aes-128-ctr"]}
    first = user_kernels.build_of(k)
    assert [Path(f).name for f in first.sources] == ["CMakeLists.txt", "k.c"]
    (src / "build" / "junk.o").write_text("y")
    assert user_kernels.build_of(k) == first
    (src / "k.c").write_text("int main(void) { return 1; }\n")
    second = user_kernels.build_of(k)
    assert second.key != first.key and second.dir != first.dir
    assert user_kernels.build_of({**k, "cmake_args": ["-DX=1"]}).key != second.key


def test_points_and_launch_line_of_two_ranks(tmp_path: Path) -> None:
    cfg = cs_config.validate(
        _cfg(tmp_path, source="examples/mykernel", ranks=[1, 2], args=["--x=1"]),
        root=ROOT,
        workdir=ROOT,
    )
    points = sweep.expand(cfg)
    assert [p.id for p in points] == [
        f"user-mine-aes-128-ctr-enc-{s}-r{r}-t1"
        for s in ("1KiB", "64KiB")
        for r in (1, 2)
    ]
    p = points[1]
    assert p.mpi_launched and not points[0].mpi_launched
    assert (
        p.build_key == user_kernels.build_of(cfg["backends"]["user"]["kernels"][0]).key
    )
    args = launch.kernel_args(p, input_path="in.bin", json_path="out.json")
    plat = launch.Platform(where="local", cores=1)
    argv = launch.build(p, plat, args).argv
    assert argv[1:3] == ["-m", "ciphersweep.job.kernel_user"]
    assert argv[argv.index("--") + 1 : argv.index("--") + 4] == ["mpirun", "-np", "2"]
    assert "--kernel-arg=--x=1" in argv and p.program in argv


def _run(
    tmp_path: Path, program: str, op: str = "encrypt", **more: str
) -> tuple[int, Any]:
    data = tmp_path / "in.bin"
    data.write_bytes(bytes(range(256)) * 5)
    out = tmp_path / "recs.jsonl"
    argv = ["--cipher", "aes-128-ctr", "--op", op, "--input", str(data)]
    argv += ["--reps", "3", "--warmup", "1", "--energy", "none", "--json", str(out)]
    argv += ["--name", "mine", "--program", program]
    for k, v in more.items():
        argv += [f"--{k}", v]
    rc = kernel_user.main(argv)
    recs = [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []
    return rc, recs


@pytest.mark.parametrize("op", ["encrypt", "decrypt"])
def test_a_kernel_speaking_the_contract_gets_records(tmp_path: Path, op: str) -> None:
    rc, recs = _run(tmp_path, kernel(tmp_path, bytes=1280, ranks=1), op)
    assert rc == 0 and len(recs) == 3
    for i, r in enumerate(recs):
        assert validate_record(r) is None
        assert (r["rep"], r["backend"], r["impl"], r["verified"]) == (
            i,
            "user",
            "mine",
            True,
        )
        assert r["t_total"] == 0.002 and r["t_compute"] == 0.001
        assert r["fingerprint"]["impl"] == "mine" and r["fingerprint"]["op"] == op
        assert r["stop_reason"] == "fixed" and r["reps_run"] == 3


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ({"right": False}, "aes-user: mine: verification FAILED: encryption output"),
        ({"ranks": 2}, "aes-user: mine: record 0 reports ranks 2, the point has 1"),
        ({"bytes": 7}, "aes-user: mine: record 0 reports bytes 7, the point has 1280"),
        ({"more": 1}, "aes-user: mine: printed 4 JSON records, 3 expected (--reps)"),
        ({"t_total": None}, "aes-user: mine: record 0 has no t_total"),
        ({"t_total": "fast"}, "record 0 has t_total 'fast', not a number of seconds"),
        ({"t_total": 60}, "reports 180 s of timed repetitions, more than the"),
    ],
)
def test_a_kernel_misspeaking_is_refused_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: dict[str, Any], reason: str
) -> None:
    rc, recs = _run(tmp_path, kernel(tmp_path, **how))
    assert rc == 1 and recs == []
    assert reason in capsys.readouterr().err


def test_a_missing_or_failed_build_fails_its_points(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, _ = _run(tmp_path, str(tmp_path / "gone"))
    assert rc == 1 and f"aes-user: mine: {tmp_path / 'gone'} does not exist" in (
        capsys.readouterr().err
    )
    src = tmp_path / "broken"
    src.mkdir()
    (src / "CMakeLists.txt").write_text("project(broken C)\nadd_executable(mine m.c)\n")
    (src / "m.c").write_text("this is not C\n")
    b = user_kernels.build_of({"name": "mine", "source": str(src)})
    info = tmp_path / b.dir / user_kernels.BUILD_FILE
    info.parent.mkdir(parents=True)
    done = user_build.build(b, str(info), str(tmp_path / f"{b.dir}.log"))
    assert done["ok"] is False and f"{b.dir}.log" in done["reason"]
    rc, _ = _run(tmp_path, str(info.parent / "mine"))
    err = capsys.readouterr().err
    assert rc == 1 and "aes-user: mine: the build failed: cmake failed" in err


def test_the_example_builds_and_is_chosen(tmp_path: Path) -> None:
    b = user_kernels.build_of({"name": "mykernel", "source": str(EXAMPLE)})
    info = tmp_path / "b" / user_kernels.BUILD_FILE
    info.parent.mkdir()
    done = user_build.build(b, str(info), str(tmp_path / "b.log"))
    assert done["ok"], done
    assert done["target"] == "mykernel" and done["build_key"] == b.key
    assert (info.parent / "mykernel").is_file() and "-O3" in (done["cflags"] or "")
    with pytest.raises(RuntimeError, match="name the one to run with target"):
        user_build.choose(b, ["a", "b"])
    assert user_build.choose(b, ["tool", "sub/mykernel"]) == "sub/mykernel"
    other = user_kernels.Build("k", b.source, b.sources, b.cmake_args, None, b.key)
    assert user_build.choose(other, ["bin/aes", "test_aes", "aes_tests"]) == "bin/aes"


def test_its_own_timing_parts_are_kept_where_they_are_seconds(tmp_path: Path) -> None:
    rc, recs = _run(tmp_path, kernel(tmp_path, t_io=0.5, t_unit="s"))
    assert rc == 0 and recs[0]["t_io"] == 0.5 and "t_unit" not in recs[0]


def test_a_program_on_path_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kernel(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    cfg = cs_config.validate(_cfg(tmp_path, program="kernel"), root=ROOT, workdir=ROOT)
    assert cfg["backends"]["user"]["kernels"][0]["program"] == str(tmp_path / "kernel")


def test_the_shipped_example_campaign_plans_beside_openssl() -> None:
    cfg = cs_config.validate(
        cs_config.load_file(ROOT / "examples" / "mykernel.yaml"),
        root=ROOT,
        workdir=ROOT,
    )
    points = sweep.expand(cfg)
    mine = [p for p in points if p.backend == "user"]
    assert {p.backend for p in points} == {"openssl", "user"}
    assert sorted({p.ranks for p in mine}) == [1, 2] and len(mine) == 8
    assert all(p.build_key and p.program.endswith("/mykernel") for p in mine)


class _Meter:
    """A package energy counter that read ``joules`` over the whole run."""

    def __init__(self, joules: float | None) -> None:
        self.joules = joules

    def fields(self, before: Any, after: Any) -> dict[str, Any]:
        if self.joules is None:
            return {"joules": None, "energy_source": None, "energy_note": "rapl: none"}
        return {
            "joules": self.joules,
            "joules_pkg": self.joules,
            "energy_source": "rapl",
        }


def test_energy_of_a_repetition_is_the_runs_mean_power_over_its_time() -> None:
    parts = [{"t_total": 0.1}, {"t_total": 0.3}]
    ns = argparse.Namespace(name="mine")
    got = kernel_user._energy(ns, parts, (_Meter(8.0), [], [], 2.0))
    assert [e["joules"] for e in got] == pytest.approx([0.4, 1.2])
    assert all("mean package power" in e["energy_note"] for e in got)
    none = kernel_user._energy(ns, parts, (_Meter(None), [], [], 2.0))
    assert [e["joules"] for e in none] == [None, None]
    assert none[0]["energy_note"] == "rapl: none"
