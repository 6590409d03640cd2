"""Results a user can trust, end to end with the local profile: the same command re-runs
exactly the failed or damaged points and brings the analysis up to date; a dry run,
--list, --lint and a run refused by the lock leave results/ byte-identical; an
interrupted Snakemake continues with the same command.

A point is held in progress deterministically: its kernel is a wrapper that creates a
file and waits for another one before it runs the real binary."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from support import (
    KERNELS,
    ROOT,
    SNAKEMAKE,
    base_config,
    default_signals,
    planned_points,
    run_snakemake,
)

SEQ = "seq-ttable-ctr-enc-1KiB-r1-t1"
SSL = "openssl-aes-128-ctr-enc-1KiB-r1-t1"


def _kernels(tmp: Path, names: tuple[str, ...] = ("aes-seq", "aes-openssl")) -> Path:
    """A private copy of the built kernels (the campaign's build.dir)."""
    kbin = tmp / "kbin"
    kbin.mkdir()
    for name in names:
        if not (KERNELS / name).exists():
            pytest.fail(
                "kernels not built (run scripts/build-kernels.sh build/kernels)"
            )
        shutil.copy(KERNELS / name, kbin / name)  # newer than the sources: up to date
    return kbin


def _cfg(kbin: Path) -> dict:
    return base_config(
        campaign="trust",
        sizes=["1KiB"],
        reps=2,
        warmup=0,
        backends={
            "seq": {"impls": ["ttable"]},
            "openssl": {"ciphers": ["aes-128-ctr"]},
        },
        build={"dir": str(kbin)},
        platform={"energy": "none"},
    )


def _tree(workdir: Path) -> dict[str, str]:
    """Every file under results/ with the hash of its bytes."""
    res = workdir / "results"
    return {
        str(f.relative_to(res)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(res.rglob("*"))
        if f.is_file()
    }


def _records(workdir: Path, pid: str) -> list[dict]:
    raw = workdir / "results" / "trust" / "raw" / f"{pid}.jsonl"
    return [json.loads(x) for x in raw.read_text().splitlines() if x.strip()]


def _planned(workdir: Path, cfg: dict) -> list[str]:
    """Points a dry run would measure (the lines it prints for them)."""
    proc = run_snakemake(workdir, cfg, "-n", "--verbose")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return planned_points(proc.stdout + proc.stderr)


def _out(proc: subprocess.CompletedProcess) -> str:
    return proc.stdout + proc.stderr


def _raw_files(workdir: Path) -> dict[str, str]:
    tree = _tree(workdir)
    return {k.split("/")[-1]: v for k, v in tree.items() if k.startswith("trust/raw/")}


def _measured(before: dict[str, str], workdir: Path) -> list[str]:
    """Points whose raw file a run rewrote."""
    after = _raw_files(workdir)
    return sorted(k.removesuffix(".jsonl") for k in after if before.get(k) != after[k])


def _hold(kbin: Path, name: str) -> tuple[Path, Path]:
    """Make ``name`` a kernel that waits while it measures (its --version, which the
    planning asks, answers at once): returns (started, release) files."""
    started, release = kbin / f"{name}.started", kbin / f"{name}.release"
    real = kbin / f"{name}.real"
    os.replace(kbin / name, real)
    (kbin / name).write_text(
        "#!/bin/sh\n"
        'case " $* " in *" --version "*) ;; *)\n'
        f"  touch '{started}'\n"
        f"  while [ ! -e '{release}' ]; do sleep 0.05; done;;\n"
        "esac\n"
        f"exec '{real}' \"$@\"\n"
    )
    (kbin / name).chmod(0o755)
    st = real.stat()  # the same age as the binary: nothing else (binary sizes) reruns
    os.utime(kbin / name, ns=(st.st_atime_ns, st.st_mtime_ns))
    return started, release


def _unhold(kbin: Path, name: str) -> None:
    os.replace(kbin / f"{name}.real", kbin / name)
    for suffix in ("started", "release"):
        (kbin / f"{name}.{suffix}").unlink(missing_ok=True)


def _start(workdir: Path, cfg: dict) -> subprocess.Popen[str]:
    """Snakemake in the background with default signal dispositions (whatever the
    suite was started with), in a session of its own."""
    cfgfile = workdir / "campaign.yaml"
    cfgfile.write_text(yaml.safe_dump(cfg))
    env = dict(os.environ, USER=os.environ.get("USER", "root"))
    with default_signals():
        return subprocess.Popen(
            [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "--directory", str(workdir)]
            + ["--configfile", str(cfgfile), "--profile", str(ROOT / "profiles/local")],
            cwd=workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        )


def _wait_for(path: Path, proc: subprocess.Popen[str], limit: float = 180) -> None:
    """Until ``path`` exists (the point is in progress); fail if Snakemake ended."""
    deadline = time.monotonic() + limit
    while not path.exists():
        if proc.poll() is not None:
            pytest.fail(f"snakemake ended first:\n{proc.stdout.read()[-3000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"{path.name} never appeared")
        time.sleep(0.05)


def test_same_command_reruns_failed_and_damaged_points(tmp_path: Path) -> None:
    kbin = _kernels(tmp_path)
    cfg = _cfg(kbin)
    res = tmp_path / "results" / "trust"
    # 1. the openssl kernel cannot start: that point fails, the other is measured
    (kbin / "aes-openssl").chmod(0o644)
    first = run_snakemake(tmp_path, cfg)
    assert first.returncode == 0, first.stderr[-3000:]
    assert _records(tmp_path, SSL)[0]["status"] == "failed"
    assert "failed" in (res / "tables" / "time.md").read_text()
    (kbin / "aes-openssl").chmod(0o755)

    # 2. planning touches nothing, and says what runs again
    before = _tree(tmp_path)
    assert _planned(tmp_path, cfg) == [SSL]
    assert run_snakemake(tmp_path, cfg, "--list").returncode == 0
    run_snakemake(tmp_path, cfg, "--lint")  # its verdict: test_workflow.test_lint_clean
    assert _tree(tmp_path) == before

    # 3. the same command again: exactly the failed point runs; while it runs, a
    #    second Snakemake is refused by the lock and changes nothing
    started, release = _hold(kbin, "aes-openssl")
    proc = _start(tmp_path, cfg)
    _wait_for(started, proc)
    held = _tree(tmp_path)
    raw_before = _raw_files(tmp_path)
    refused = run_snakemake(tmp_path, cfg)
    assert refused.returncode != 0
    assert "lock" in (refused.stdout + refused.stderr).lower()
    assert _tree(tmp_path) == held
    release.touch()
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out[-3000:]
    _unhold(kbin, "aes-openssl")
    assert _measured(raw_before, tmp_path) == [SSL], out[-6000:]
    recs = _records(tmp_path, SSL)
    assert len(recs) == 2 and all(r["verified"] and r["status"] == "ok" for r in recs)
    assert pd.read_csv(res / "failures.csv").empty
    assert "failed" not in (res / "tables" / "time.md").read_text()
    nothing = run_snakemake(tmp_path, cfg, "-n")
    assert "Nothing to be done" in nothing.stdout + nothing.stderr

    # 3b. a point measured at the first run loses its raw file and its pack's list:
    #     the summary still names it, so exactly that point is measured again
    (pack_list,) = (res / "packs").glob("pack-*.txt")
    (res / "raw" / f"{SEQ}.jsonl").unlink()
    pack_list.unlink()
    raw_before = _raw_files(tmp_path)
    assert _planned(tmp_path, cfg) == [SEQ]
    lost = run_snakemake(tmp_path, cfg)
    assert lost.returncode == 0, lost.stderr[-3000:]
    assert _measured(raw_before, tmp_path) == [SEQ]
    assert pack_list.exists() and _records(tmp_path, SEQ)[0]["attempt"].startswith(
        "lost "
    )
    assert "Nothing to be done" in _out(run_snakemake(tmp_path, cfg, "-n"))

    # 4. an unverified record appended to a finished file is not a measurement: the
    #    point runs again and the tables never show it
    raw = res / "raw" / f"{SEQ}.jsonl"
    fake = {**_records(tmp_path, SEQ)[0], "verified": False, "t_total": 999}
    with raw.open("a") as fh:
        fh.write(json.dumps(fake) + "\n")
    raw_before = _raw_files(tmp_path)
    again = run_snakemake(tmp_path, cfg)
    assert again.returncode == 0, again.stderr[-3000:]
    assert _measured(raw_before, tmp_path) == [SEQ]
    recs = _records(tmp_path, SEQ)
    assert len(recs) == 2 and all(r["t_total"] < 999 and r["verified"] for r in recs)
    times = pd.read_csv(res / "tables" / "time.csv", index_col=0)
    assert float(times.loc["seq", "1KiB"]) < 1

    # 5. a file cut short: a dry run leaves it (and everything) as it is, the run redoes it
    line = raw.read_text().splitlines()[0]
    raw.write_text(line[: len(line) // 2])
    before = _tree(tmp_path)
    assert _planned(tmp_path, cfg) == [SEQ] and _tree(tmp_path) == before
    raw_before = _raw_files(tmp_path)
    fixed = run_snakemake(tmp_path, cfg)
    assert fixed.returncode == 0, fixed.stderr[-3000:]
    assert _measured(raw_before, tmp_path) == [SEQ]
    assert len(_records(tmp_path, SEQ)) == 2
    assert pd.read_csv(res / "summary.csv").set_index("point").loc[SEQ, "n"] == 2
    # both points share one pack: its log names the one point it measured and why
    (log,) = (res / "logs" / "packs").glob("pack-*.log")
    assert log.read_text().startswith(f"{log.stem}: 1 of 2 point(s) to measure")

    # 5b. the pack forced with nothing pending: both of its points are measured again
    raw_before = _raw_files(tmp_path)
    forced = run_snakemake(
        tmp_path, cfg, "--forcerun", f"results/trust/packs/{log.stem}.txt"
    )
    assert forced.returncode == 0, forced.stderr[-3000:]
    assert _measured(raw_before, tmp_path) == sorted([SEQ, SSL])
    assert "the bench job was forced" in log.read_text()

    # 5c. a measured point's raw file removed: exactly that point is measured again
    #     (the tables would otherwise keep showing records that are gone), then nothing
    (res / "raw" / f"{SSL}.jsonl").unlink()
    raw_before = _raw_files(tmp_path)
    assert _planned(tmp_path, cfg) == [SSL]
    lost = run_snakemake(tmp_path, cfg)
    assert lost.returncode == 0, lost.stderr[-3000:]
    assert _measured(raw_before, tmp_path) == [SSL]
    assert _records(tmp_path, SSL)[0]["attempt"].startswith("lost ")
    assert "Nothing to be done" in _out(run_snakemake(tmp_path, cfg, "-n"))

    # 6. one kernel binary removed: the plan rebuilds it, and re-measures no point of
    #    the other kernels
    (kbin / "aes-openssl").unlink()
    dry = run_snakemake(tmp_path, cfg, "-n", "--verbose")
    assert dry.returncode == 0, _out(dry)[-3000:]
    assert "build_kernels" in _out(dry)
    assert SEQ not in planned_points(_out(dry))


def test_a_launcher_setting_re_measures_exactly_the_points_it_launches(
    tmp_path: Path,
) -> None:
    """cluster.mpirun_args changed, the same command once: the MPI point is measured
    again with the new launch line, the sequential point keeps its records."""
    kbin = _kernels(tmp_path, ("aes-seq", "aes-mpi"))
    cfg = _cfg(kbin)
    cfg["backends"] = {
        "seq": {"impls": ["ttable"]},
        "mpi": {"impls": ["ttable"], "ranks": [1]},
    }
    mpi = "mpi-ttable-ctr-enc-1KiB-r1-t1"
    first = run_snakemake(tmp_path, cfg)
    assert first.returncode == 0, first.stderr[-3000:]
    raw_before = _raw_files(tmp_path)
    cfg["cluster"]["mpirun_args"] = ["--mca", "btl", "self,vader"]
    assert _planned(tmp_path, cfg) == [mpi]
    again = run_snakemake(tmp_path, cfg)
    assert again.returncode == 0, again.stderr[-3000:]
    assert _measured(raw_before, tmp_path) == [mpi]
    recs = _records(tmp_path, mpi)
    assert recs and all("--mca btl self,vader" in r["launch_line"] for r in recs)
    assert "Nothing to be done" in _out(run_snakemake(tmp_path, cfg, "-n"))


def test_a_build_of_other_settings_fails_its_points_with_the_way_out(
    tmp_path: Path,
) -> None:
    """A build directory another campaign built last, with other settings and in
    another directory (this one's Snakemake has no record of the build, so nothing
    tells it to build again): its points fail at once, unmeasured, with one line
    naming the directory and the command-line flag that builds it again."""
    kbin = _kernels(tmp_path, ("aes-seq",))
    info = {"variant": "default", "build_key": "sha256:" + "0" * 64}
    (kbin / "build-info.json").write_text(json.dumps(info))
    cfg = _cfg(kbin)
    cfg["backends"] = {"seq": {"impls": ["ttable"]}}
    run = run_snakemake(tmp_path, cfg)
    said = _out(run)
    assert run.returncode != 0, said[-3000:]
    line = f"{kbin} holds a build of other sources or settings (build key sha256:0000"
    assert f"failed {SEQ}: {line}" in said, said[-3000:]
    assert "--forcerun build_kernels builds it again" in said
    [rec] = _records(tmp_path, SEQ)
    assert rec["status"] == "failed" and not rec["launch_line"]  # no kernel ran


def test_interrupted_snakemake_continues_with_the_same_command(tmp_path: Path) -> None:
    """Ctrl-C reaching Snakemake alone (a hang-up, the terminal closed, ends the run
    the same way: test_hangup.py closes a real one)."""
    kbin = _kernels(tmp_path)
    cfg = _cfg(kbin)
    started, release = _hold(kbin, "aes-openssl")
    proc = _start(tmp_path, cfg)
    _wait_for(started, proc)
    os.kill(proc.pid, signal.SIGINT)  # Snakemake alone, not its kernel
    release.touch()
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode != 0, out[-3000:]
    assert not list((tmp_path / ".snakemake" / "locks").glob("*")), out[-3000:]
    _unhold(kbin, "aes-openssl")
    again = run_snakemake(tmp_path, cfg)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "IncompleteFilesException" not in again.stderr
    res = tmp_path / "results" / "trust"
    summary = pd.read_csv(res / "summary.csv").set_index("point")
    assert summary.loc[SSL, "status"] == "ok" and summary.loc[SSL, "n"] == 2
