"""Every interruption converges. A run is interrupted at each stage (Snakemake's own
start, reading the campaign, planning, build, bench, gather, tables, report, history append) by Ctrl-C
(SIGINT to the process group), a hang-up, SIGTERM or ``kill -9``; the interrupted run
prints at most one line about it and no traceback, and the same command then brings
the summary, the tables and the history to exactly what the admitted raw records say,
with no temporary file, lock or incomplete marker left and nothing measured lost.

Each stage is held in progress deterministically, and the signal comes while it is:
the bench stage by a kernel that waits, the build by a ``cmake --build`` that waits,
Snakemake's start and the reading of the campaign by a call that waits, and the
analysis stages by holding their outputs' atomic write once the temporary
files are written in full, before they are renamed into place
(tests/workflow/holds/sitecustomize.py)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
import yaml
from ciphersweep.analysis.history import store
from ciphersweep.campaign import lock
from ciphersweep.core import atomic
from support import (
    KERNELS,
    ROOT,
    SNAKEMAKE,
    base_config,
    default_signals,
    run_snakemake,
    with_plugin,
)

CAMPAIGN = "halt"
SEQ = "seq-ttable-ctr-enc-1KiB-r1-t1"
SSL = "openssl-aes-128-ctr-enc-1KiB-r1-t1"
HOLDS = Path(__file__).resolve().parent / "holds"
BUILD_ARGS = ["-DCS_WITH_LIKWID=OFF", "-DCS_WITH_CUDA=OFF"]
KBIN = "kbin"


def _config(build_dir: str, reps: int = 2) -> dict:
    return base_config(
        campaign=CAMPAIGN,
        sizes=["1KiB"],
        reps=reps,
        warmup=0,
        backends={
            "seq": {"impls": ["ttable"]},
            "openssl": {"ciphers": ["aes-128-ctr"]},
        },
        build={"dir": build_dir, "cmake_args": BUILD_ARGS},
        platform={"energy": "none"},
    )


def _kernels(tmp: Path) -> Path:
    """A private copy of the built kernels (newer than the sources: up to date), in
    ``tmp``/kbin: the campaign's build.dir ``KBIN``, relative to its working
    directory."""
    kbin = tmp / KBIN
    kbin.mkdir()
    for name in ("aes-seq", "aes-openssl"):
        if not (KERNELS / name).exists():
            pytest.fail(
                "kernels not built (run scripts/build-kernels.sh build/kernels)"
            )
        shutil.copy(KERNELS / name, kbin / name)
    return kbin


def _holding_kernel(kbin: Path, started: Path, release: Path) -> None:
    """aes-openssl waits while it measures (its --version answers at once): the
    same age as the real binary, which it runs once released."""
    real = kbin / "aes-openssl.real"
    os.replace(kbin / "aes-openssl", real)
    wrapper = kbin / "aes-openssl"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" --reps "*)\n'
        f"  touch '{started}'\n"
        f"  while [ ! -e '{release}' ]; do sleep 0.05; done;;\n"
        "esac\n"
        f"exec '{real}' \"$@\"\n"
    )
    wrapper.chmod(0o755)
    st = real.stat()
    os.utime(wrapper, ns=(st.st_atime_ns, st.st_mtime_ns))


def _holding_cmake(tmp: Path, started: Path, release: Path) -> Path:
    """A folder whose `cmake` waits before it builds (configuring runs at once)."""
    real = shutil.which("cmake")
    assert real, "cmake not installed"
    shim = tmp / "shim"
    shim.mkdir()
    (shim / "cmake").write_text(
        "#!/bin/sh\n"
        'case " $* " in *" --build "*)\n'
        f"  touch '{started}'\n"
        f"  while [ ! -e '{release}' ]; do sleep 0.05; done;;\n"
        "esac\n"
        f"exec '{real}' \"$@\"\n"
    )
    (shim / "cmake").chmod(0o755)
    return shim


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working directory whose campaign (``_config(KBIN)``) ran to its end once: the
    starting point of the tests that interrupt a second run, each in a copy of its own
    (:func:`_measured_copy`; nothing in it names its own path)."""
    work = tmp_path_factory.mktemp("measured")
    _kernels(work)
    first = run_snakemake(work, _config(KBIN))
    assert first.returncode == 0, first.stderr[-3000:]
    return work


def _measured_copy(measured: Path, tmp: Path) -> Path:
    """``tmp`` made a copy of the measured working directory (file times kept, which
    Snakemake compares); returns its kernels' folder."""
    shutil.copytree(measured, tmp, symlinks=True, dirs_exist_ok=True)
    return tmp / KBIN


@dataclass
class Interrupted:
    """What the interrupted run printed, its exit status, and the raw files (bytes)
    that were admitted before it."""

    out: str
    rc: int
    before: dict[str, bytes]


def _interrupt(
    tmp: Path,
    cfg: dict,
    sig: signal.Signals,
    env: dict[str, str],
    started: Path,
    group: bool = True,
) -> tuple[str, int]:
    """Run the campaign; once ``started`` exists, send ``sig`` to its process group
    (as a terminal's Ctrl-C or hang-up, or `kill -- -PGID`, reaches it; ``group``
    false: to Snakemake alone), then release the held stage (Snakemake alone killed:
    not before the test does)."""
    (tmp / "campaign.yaml").write_text(yaml.safe_dump(cfg))
    cmd = [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "--directory", str(tmp)]
    cmd += ["--configfile", str(tmp / "campaign.yaml")]
    cmd += ["--profile", str(ROOT / "profiles" / "local")]
    with default_signals():
        proc = subprocess.Popen(
            cmd,
            cwd=tmp,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        )
    deadline = time.monotonic() + 300
    while not started.exists():
        if proc.poll() is not None:
            pytest.fail(
                f"the run ended before the stage:\n{proc.stdout.read()[-3000:]}"
            )
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("the stage never started")
        time.sleep(0.02)
    if group:
        os.killpg(proc.pid, sig)
    else:
        os.kill(proc.pid, sig)
    if group or sig != signal.SIGKILL:
        (started.parent / "release").touch()
    out, _ = proc.communicate(timeout=300)
    return out, proc.returncode


def _env(**extra: str) -> dict[str, str]:
    env = with_plugin(dict(os.environ, USER=os.environ.get("USER", "root")))
    env.update(extra)
    return env


def _raw(tmp: Path) -> dict[str, bytes]:
    raw = tmp / "results" / CAMPAIGN / "raw"
    return {f.name: f.read_bytes() for f in sorted(raw.glob("*.jsonl"))}


def _records(data: bytes) -> list[dict]:
    return [json.loads(x) for x in data.decode().splitlines() if x.strip()]


def _run_interrupted(
    stage: str, sig: signal.Signals, tmp: Path, request: pytest.FixtureRequest
) -> Interrupted:
    """The campaign run with ``stage`` held and interrupted by ``sig``."""
    started = tmp / "started"
    if stage == "build":
        cfg = _config("build/k")
        shim = _holding_cmake(tmp, started, tmp / "release")
        env = _env(PATH=f"{shim}{os.pathsep}{os.environ['PATH']}")
        out, rc = _interrupt(tmp, cfg, sig, env, started)
        return Interrupted(out, rc, {})
    if stage == "bench":
        # the points measured (the module's one run), then measured again with one
        # more repetition each: the interrupted point must keep its previous records
        kbin = _measured_copy(request.getfixturevalue("measured"), tmp)
        before = _raw(tmp)
        _holding_kernel(kbin, started, tmp / "release")
        out, rc = _interrupt(tmp, _config(KBIN, reps=3), sig, _env(), started)
        os.replace(kbin / "aes-openssl.real", kbin / "aes-openssl")
        return Interrupted(out, rc, before)
    _kernels(tmp)
    what = {
        # in Snakemake's own start, its modules imported, before it reads the command
        # line and the workflow (which then installs its own one-line ending)
        "starting": "call:snakemake.cli.main",
        # as the campaign is read, before its own modules are imported in full
        "reading": "call:ciphersweep.plan.campaign_source.campaign_files",
        # while Snakemake plans the run: the first point's plan key worked out
        "planning": "call:ciphersweep.plan.fingerprint.plan_key",
        "gather": "write:/summary.csv",
        "tables": "write:/tables/time.csv",
        "report": "write:/report.html",
        "history append": "write:/history/appended.json",
    }[stage]
    hold = f"{what}:{started}:{tmp / 'release'}"
    env = _env(CIPHERSWEEP_TEST_HOLD=hold)
    env["PYTHONPATH"] = os.pathsep.join([str(HOLDS), env["PYTHONPATH"]])
    out, rc = _interrupt(tmp, _config(KBIN), sig, env, started)
    return Interrupted(out, rc, {})


def _left_behind(tmp: Path) -> list[str]:
    """Temporary files, scratch files, locks and incomplete markers under the
    working directory's results and Snakemake's own folder."""
    left = [
        str(f.relative_to(tmp))
        for f in (tmp / "results").rglob("*")
        if atomic.is_temp(f) or ".tmp" in f.name or f.name.endswith(".kernel.tmp.d")
    ]
    snake = tmp / ".snakemake"
    left += [str(f.relative_to(tmp)) for f in (snake / "locks").glob("*.lock")]
    left += [str(f.relative_to(tmp)) for f in (snake / "incomplete").rglob("*")]
    return left


def _converged(
    tmp: Path, reps: int, runs: int, points: tuple[str, ...] = (SEQ, SSL)
) -> None:
    """Summary, tables and history exactly as the admitted raw records say; the
    history holds ``runs`` runs of the campaign (one per finished summary)."""
    res = tmp / "results" / CAMPAIGN
    raw = _raw(tmp)
    assert sorted(raw) == sorted(f"{p}.jsonl" for p in points)
    medians = {}
    for name, data in raw.items():
        recs = _records(data)
        assert len(recs) == reps, (name, recs)
        assert all(r["status"] == "ok" and r["verified"] is True for r in recs)
        medians[name.removesuffix(".jsonl")] = statistics.median(
            r["t_total"] for r in recs
        )
    summary = pd.read_csv(res / "summary.csv").set_index("point")
    assert sorted(summary.index) == sorted(medians)
    for pid, median in medians.items():
        assert summary.loc[pid, "status"] == "ok"
        assert summary.loc[pid, "n"] == reps
        assert summary.loc[pid, "t_total_median"] == pytest.approx(median, rel=1e-9)
    shown = pd.read_csv(res / "tables" / "time.csv", index_col=0)["1KiB"]
    assert sorted(shown) == pytest.approx(sorted(medians.values()), rel=1e-6)
    assert f"median of {reps} repetitions" in (res / "tables" / "time.md").read_text()
    marker = json.loads((res / "history" / "appended.json").read_text())
    cells = store.read(tmp / marker["store"], CAMPAIGN)
    assert cells["run_id"].nunique() == runs, cells[["run_id", "point", "n"]]
    # the latest run is the one these records make, each cell as the summary has it
    cells = cells[cells["run_id"] == marker["run_id"]]
    assert sorted(cells["point"]) == sorted(medians)
    for _, cell in cells.iterrows():
        assert cell["n"] == reps
        assert cell["estimate"] == pytest.approx(medians[cell["point"]], rel=1e-9)


def _one_line(out: str, sig: signal.Signals) -> None:
    """An interrupted run's output: no traceback, and one line naming the signal."""
    assert "Traceback" not in out and 'File "' not in out, out[-3000:]
    lines = [ln for ln in out.splitlines() if "interrupted" in ln.lower()]
    assert len(lines) == 1, out[-3000:]
    assert lines[0].startswith(f"ciphersweep: interrupted by {sig.name}"), lines


# Every stage is interrupted; at the bench stage by every signal (the kernel gets it
# too), at the others by kill -9 (what is left half written) and one signal the run
# handles (Ctrl-C and a hang-up end it at once, SIGTERM lets the running job finish):
# the module's time is kept down.
CASES = [
    ("starting", signal.SIGINT),
    ("reading", signal.SIGINT),
    ("planning", signal.SIGINT),
    ("planning", signal.SIGTERM),
    ("build", signal.SIGINT),
    ("bench", signal.SIGINT),
    ("bench", signal.SIGTERM),
    ("bench", signal.SIGHUP),
    ("bench", signal.SIGKILL),
    ("gather", signal.SIGTERM),
    ("gather", signal.SIGKILL),
    ("tables", signal.SIGKILL),
    ("report", signal.SIGKILL),
    ("history append", signal.SIGINT),
    ("history append", signal.SIGKILL),
]


@pytest.mark.parametrize(
    ("stage", "sig"), CASES, ids=[f"{st.replace(' ', '_')}-{s.name}" for st, s in CASES]
)
def test_an_interrupted_stage_converges_with_the_same_command(
    stage: str, sig: signal.Signals, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    halted = _run_interrupted(stage, sig, tmp_path, request)
    assert halted.rc != 0, halted.out[-3000:]
    if sig == signal.SIGKILL:
        assert halted.rc == -signal.SIGKILL
    else:
        _one_line(halted.out, sig)
        assert not list((tmp_path / ".snakemake" / "locks").glob("*.lock"))
    # nothing admitted is lost: the interrupted point keeps its previous records, the
    # others theirs or complete new ones
    after = _raw(tmp_path)
    for name, data in halted.before.items():
        assert name in after, f"{name} was lost"
        if name == f"{SSL}.jsonl":
            assert after[name] == data, "the interrupted point lost its records"
        else:
            assert after[name] == data or len(_records(after[name])) == 3, name

    cfg = yaml.safe_load((tmp_path / "campaign.yaml").read_text())
    again = run_snakemake(tmp_path, cfg, timeout=600)
    assert again.returncode == 0, (again.stdout + again.stderr)[-4000:]
    assert "Traceback" not in again.stderr
    assert not _left_behind(tmp_path), _left_behind(tmp_path)
    # (the bench stage's campaign had finished once before it was measured again)
    _converged(tmp_path, cfg["reps"], runs=2 if stage == "bench" else 1)
    dry = run_snakemake(tmp_path, cfg, "-n")
    assert "Nothing to be done" in dry.stdout + dry.stderr, dry.stderr[-3000:]


def test_what_touch_marked_done_is_measured_by_the_same_command(
    measured: Path, tmp_path: Path
) -> None:
    """`--touch` after a change marks the bench jobs done without measuring: it says
    so, and the same command without it then measures what the change asked for
    (before, the records of the old repetitions stayed in the tables for good, every
    run naming them as run again and then doing nothing)."""
    _measured_copy(measured, tmp_path)  # the campaign measured once
    # 1. one more repetition per point
    cfg = _config(KBIN, reps=3)
    touched = run_snakemake(tmp_path, cfg, "--touch")
    assert touched.returncode == 0, touched.stderr[-3000:]
    said = touched.stdout + touched.stderr
    assert "left to the next run (--touch measures none)" in said, said[-3000:]
    assert "run again" not in said
    assert all(len(_records(d)) == 2 for d in _raw(tmp_path).values())
    again = run_snakemake(tmp_path, cfg)
    assert again.returncode == 0, again.stderr[-3000:]
    _converged(tmp_path, 3, runs=2)
    assert "Nothing to be done" in _out(run_snakemake(tmp_path, cfg, "-n"))
    # 2. other parameters of every point (a warm-up) and a point new to the pack
    cfg["warmup"] = 1
    cfg["backends"]["openssl"]["ciphers"].append("aes-256-ctr")
    new = "openssl-aes-256-ctr-enc-1KiB-r1-t1"
    touched = run_snakemake(tmp_path, cfg, "--touch")
    assert touched.returncode == 0, touched.stderr[-3000:]
    again = run_snakemake(tmp_path, cfg)
    assert again.returncode == 0, again.stderr[-3000:]
    _converged(tmp_path, 3, runs=3, points=(SEQ, SSL, new))
    assert all(r["warmup"] == 1 for d in _raw(tmp_path).values() for r in _records(d))
    assert "Nothing to be done" in _out(run_snakemake(tmp_path, cfg, "-n"))


def _out(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout + proc.stderr


def test_kill_9_of_snakemake_alone_waits_for_the_kernel_it_left(
    tmp_path: Path,
) -> None:
    """`kill -9` of Snakemake alone leaves its kernel running: the same command says
    so and keeps the lock (it would measure beside that kernel) until the kernel
    ends; then it releases the lock, removes what the kernel left and converges."""
    kbin = _kernels(tmp_path)
    cfg = _config(KBIN)
    started, release = tmp_path / "started", tmp_path / "release"
    _holding_kernel(kbin, started, release)
    _, rc = _interrupt(tmp_path, cfg, signal.SIGKILL, _env(), started, group=False)
    assert rc == -signal.SIGKILL
    owner = lock.stale(tmp_path / ".snakemake" / "locks")
    assert owner is not None and lock.survivors(owner)
    blocked = run_snakemake(tmp_path, cfg)
    assert blocked.returncode != 0
    said = _out(blocked)
    assert "still has" in said and " aes-openssl" in said, said[-3000:]  # the kernel
    assert "its lock stays until they end" in said
    release.touch()  # the held kernel runs to its end, with no one to read it
    deadline = time.monotonic() + 120
    while lock.survivors(owner):
        assert time.monotonic() < deadline, "the left kernel never ended"
        time.sleep(0.1)
    os.replace(kbin / "aes-openssl.real", kbin / "aes-openssl")
    again = run_snakemake(tmp_path, cfg)
    assert again.returncode == 0, _out(again)[-3000:]
    assert "the lock of a run that was killed" in _out(again)
    assert not _left_behind(tmp_path), _left_behind(tmp_path)
    _converged(tmp_path, 2, runs=1)
