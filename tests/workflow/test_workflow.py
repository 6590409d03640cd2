"""The workflow as users run it: dry runs of every shipped config x profile, lint and
format checks, an end-to-end local campaign whose tables come from its measurements,
and a failing point that is marked, does not stop the others, and alone re-runs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml
from support import KERNELS, ROOT, SNAKEMAKE, base_config, run_snakemake

CONFIGS = [
    ROOT / "config" / "config.yaml",
    *sorted((ROOT / "config" / "campaigns").glob("*.yaml")),
]
PROFILES = sorted(p.name for p in (ROOT / "profiles").iterdir() if p.is_dir())


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_dry_run(config: Path, profile: str, tmp_path: Path) -> None:
    """`snakemake -n` plans every shipped campaign with no build and no cluster."""
    cfg = yaml.safe_load(config.read_text())
    proc = run_snakemake(
        tmp_path, cfg, "-n", "--quiet", "rules", profile=profile, timeout=180
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "bench" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()


def test_a_plain_dry_run_is_a_screenful(tmp_path: Path) -> None:
    """`snakemake -n` of a 1,000-point sweep, plain and with the Slurm profile: the plan
    summary (counts per backend and shape, why, the first and last point), Snakemake's
    job counts once and its reasons per rule, in a screenful; Snakemake's run header
    and the per-job list only with --verbose."""
    sizes = [f"{k}KiB" for k in range(1, 201)]
    cfg = base_config(sizes=sizes, build={"dir": "build/kernels"})
    for profile in (None, "slurm"):  # plain `snakemake -n`, and the cluster's profile
        plain = run_snakemake(tmp_path / str(profile), cfg, "-n", profile=profile)
        out = plain.stdout + plain.stderr
        assert plain.returncode == 0, out[-3000:]
        assert len(out.splitlines()) <= 40, out
        assert "ciphersweep: 1000 benchmark points to measure" in out
        assert "ciphersweep: why: 1000 no records" in out
        assert "ciphersweep: first: " in out and "ciphersweep: last: " in out
        assert out.count("Job stats:") == 1, out
        assert "(every job with its reason: --verbose)" in out
        assert "Workflow ID:" not in out and "rule bench:" not in out
    verbose = run_snakemake(tmp_path / "v", cfg, "-n", "--verbose", timeout=300)
    text = verbose.stdout + verbose.stderr
    assert verbose.returncode == 0, text[-3000:]
    assert "Workflow ID:" in text and "rule bench:" in text
    assert text.count("ciphersweep: to measure: ") == 1000


def test_local_listing_shows_local_resources_only(tmp_path: Path) -> None:
    """Snakemake's per-job listing (a dry run, or -p) with the local profile: no
    Slurm-only resources, no `Shell command: None`, long input lists shortened; the
    Slurm profile still passes its resources on."""
    cfg = base_config(build={"dir": "build/kernels"})
    local = run_snakemake(tmp_path / "l", cfg, "-n", "-p", timeout=180)
    out = local.stdout + local.stderr
    assert local.returncode == 0, out[-3000:]
    assert "rule bench:" in out and "resources:" in out
    for slurm_only in ("slurm_extra", "mpi="):
        assert slurm_only not in out, slurm_only
    assert "Shell command: None" not in out
    assert re.search(r"input: .*\.\.\. \(\d+ more\)", out)  # build_kernels' sources
    # the binaries' sizes (size(1)) are read holding `bench`: never beside a point
    sizes = out[out.index("rule binary_sizes:") :].split("rule ")[1]
    assert re.search(r"resources: .*\bbench=1\b", sizes), sizes
    slurm = run_snakemake(tmp_path / "s", cfg, "-n", "-p", profile="slurm", timeout=180)
    assert "slurm_extra=--exclusive" in slurm.stdout + slurm.stderr


def test_lint_clean() -> None:
    proc = subprocess.run(
        [SNAKEMAKE, "--lint"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_snakefmt_clean() -> None:
    snakefmt = str(Path(SNAKEMAKE).with_name("snakefmt"))
    proc = subprocess.run(
        [snakefmt, "--check", "Snakefile", "workflow/rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def _need_kernels() -> None:
    missing = [
        b
        for b in ("aes-seq", "aes-omp", "aes-mpi", "aes-openssl")
        if not (KERNELS / b).exists()
    ]
    if missing:
        pytest.fail(
            f"kernels not built (run scripts/build-kernels.sh build/kernels): {missing}"
        )
    if shutil.which("mpirun") is None:
        pytest.fail("mpirun not installed (apt: openmpi-bin)")


def _tiny(**over) -> dict:
    cfg = base_config(
        campaign="tiny",
        sizes=["1KiB", "256KiB"],
        reps=3,
        warmup=1,
        build={"dir": str(KERNELS)},
        platform={"energy": "none"},
    )
    cfg.update(over)
    return cfg


def _raw(tmp: Path, campaign: str = "tiny") -> dict[str, list[dict]]:
    out = {}
    for f in sorted((tmp / "results" / campaign / "raw").glob("*.jsonl")):
        out[f.stem] = [json.loads(x) for x in f.read_text().splitlines() if x.strip()]
    return out


def test_end_to_end_tables_come_from_measurements(tmp_path: Path) -> None:
    _need_kernels()
    proc = run_snakemake(tmp_path, _tiny(), timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = tmp_path / "results" / "tiny"
    raw = _raw(tmp_path)
    assert len(raw) == 10
    for pid, recs in raw.items():
        assert len(recs) == 3 and all(
            r["status"] == "ok" and r["verified"] for r in recs
        ), pid
        assert all(
            r["point"] == pid and r["campaign"] == "tiny" and r["launch_line"]
            for r in recs
        )
    mpi2 = raw["mpi-ttable-ctr-enc-256KiB-r2-t1"][0]
    assert mpi2["launch_line"].startswith("mpirun -np 2 ")
    assert mpi2["oversubscribed"] is False
    git = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    assert mpi2["git_rev"] == git
    # launch line printed in the job log
    log = (res / "logs" / "bench" / "mpi-ttable-ctr-enc-256KiB-r2-t1.log").read_text()
    assert "launch: mpirun -np 2" in log
    meas = pd.read_csv(res / "measurements.csv")
    assert len(meas) == 30
    # speedup cell == median Ts / median Tp of the raw rows
    speed = pd.read_csv(res / "tables" / "speedup.csv", index_col=0)
    time_t = pd.read_csv(res / "tables" / "time.csv", index_col=0)
    for size in ("1KiB", "256KiB"):
        ts = pd.Series(
            [r["t_total"] for r in raw[f"seq-ttable-ctr-enc-{size}-r1-t1"]]
        ).median()
        for row, pid in (
            ("mpi (2 ranks)", f"mpi-ttable-ctr-enc-{size}-r2-t1"),
            ("omp (2 threads)", f"omp-ttable-ctr-enc-{size}-r1-t2"),
        ):
            tp = pd.Series([r["t_total"] for r in raw[pid]]).median()
            assert float(speed.loc[row, size]) == pytest.approx(ts / tp, rel=1e-9)
            assert float(time_t.loc[row, size]) == pytest.approx(tp, rel=1e-9)
    for name in ("time", "speedup", "efficiency", "throughput"):
        for ext in ("csv", "md", "tex"):
            assert (res / "tables" / f"{name}.{ext}").stat().st_size > 0
    for plot in ("time_vs_size", "speedup_vs_p", "throughput"):
        assert (res / "plots" / f"{plot}.png").read_bytes()[:4] == b"\x89PNG"
    # the campaign's report page comes with the run; Snakemake's own report as well
    html = (res / "report.html").read_text()
    for needle in ("Speedup Ts/Tp", "speedup_vs_p.png", "Provenance"):
        assert needle in html, needle
    smk_report = tmp_path / "snakemake-report.html"
    rep = run_snakemake(tmp_path, _tiny(), "--report", str(smk_report), timeout=300)
    assert rep.returncode == 0, rep.stderr[-3000:]
    smk_html = smk_report.read_text(errors="replace")
    for needle in ("speedup.csv", "time_vs_size.png", "report.html"):
        assert needle in smk_html, needle
    # its captions say what ran, read from summary.csv when the report was made (3
    # repetitions each: the median's min..max interval covers 1 - 2^(1-3) = 75 %)
    said = "Statistic: the median of 3 timed repetitions per point, with its 75 % "
    assert said + "confidence interval." in smk_html
    # nothing left to do
    again = run_snakemake(tmp_path, _tiny(), "-n", timeout=120)
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr
    # a result that goes missing is made again from the records, nothing measured
    records = {f: f.read_bytes() for f in (res / "raw").glob("*.jsonl")}
    gone = ["summary.csv", "measurements.parquet", "build/default.sizes.json"]
    gone += ["plots/throughput.pdf", "plots/time_vs_size.svg"]
    for name in gone:
        (res / name).unlink()
    remade = run_snakemake(tmp_path, _tiny(), timeout=300)
    said = remade.stdout + remade.stderr
    assert remade.returncode == 0, said[-3000:]
    assert "ciphersweep: 0 benchmark points to measure" in said
    assert all((res / name).stat().st_size > 0 for name in gone)
    assert records == {f: f.read_bytes() for f in (res / "raw").glob("*.jsonl")}


def test_failed_point_is_marked_and_alone_reruns(tmp_path: Path) -> None:
    _need_kernels()
    bad = "mpi-ttable-ctr-enc-256KiB-r2-t1"
    cfg = _tiny(
        debug={"inject_fault": [bad]},
        backends={
            "seq": {"impls": ["ttable"]},
            "mpi": {"impls": ["ttable"], "ranks": [2]},
        },
    )
    proc = run_snakemake(tmp_path, cfg, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = tmp_path / "results" / "tiny"
    # the console: one progress line per step and a short summary, no per-job blocks
    out = proc.stdout + proc.stderr
    assert "ciphersweep: 4 benchmark points to measure" in out
    assert "4/4 points, 1 failed" in out
    assert "points measured: 3 of 4, 1 failed" in out
    assert f"failed {bad}: exit" in out and "verification FAILED" in out
    assert "report: results/tiny/report.html" in out
    assert "make the report: snakemake --profile profiles/local" in out
    for block in ("rule bench:", "Shell command", "input:", "resources:"):
        assert block not in out, block
    raw = _raw(tmp_path)
    assert len(raw[bad]) == 1 and raw[bad][0]["status"] == "failed"
    assert "verification FAILED" in raw[bad][0]["reason"]
    others = [pid for pid in raw if pid != bad]
    assert others and all(raw[p][0]["status"] == "ok" for p in others)
    fails = pd.read_csv(res / "failures.csv")
    assert list(fails["point"]) == [bad]
    md = (res / "tables" / "time.md").read_text()
    # the failed cell's footnote gives the reason (interval footnotes may come first)
    why = [ln for ln in md.splitlines() if "verification FAILED" in ln]
    assert len(why) == 1 and f"failed {why[0].split()[0]}" in md
    assert (
        pd.read_csv(res / "tables" / "speedup.csv", index_col=0).loc[
            "mpi (2 ranks)", "256KiB"
        ]
        == "failed"
    )
    # fix the fault: the next run re-executes only the failed point
    mtimes = {p: (res / "raw" / f"{p}.jsonl").stat().st_mtime_ns for p in others}
    cfg["debug"] = {"inject_fault": []}
    dry = run_snakemake(tmp_path, cfg, "-n", timeout=120)
    assert bad in dry.stdout + dry.stderr
    proc2 = run_snakemake(tmp_path, cfg, timeout=300)
    assert proc2.returncode == 0, proc2.stderr[-4000:]
    assert "ciphersweep: 1 benchmark point to measure" in proc2.stderr + proc2.stdout
    raw2 = _raw(tmp_path)
    assert raw2[bad][0]["status"] == "ok" and len(raw2[bad]) == 3
    assert {
        p: (res / "raw" / f"{p}.jsonl").stat().st_mtime_ns for p in others
    } == mtimes
    assert pd.read_csv(res / "failures.csv").empty


def test_small_pousa2011_produces_its_published_comparison(tmp_path: Path) -> None:
    """A small, CPU-only pousa2011 (the study's layout, its published numbers and
    claims): the published table and claims come out; a performance reference that a
    cell misses fails the run with one line per cell, and keeps every result."""
    _need_kernels()
    cfg = yaml.safe_load((ROOT / "config/campaigns/pousa2011.yaml").read_text())
    del cfg["backends"]["cuda"]
    cfg.update(
        campaign="pousa_small",
        sizes=["1KiB", "512KiB"],
        reps=3,
        build={"dir": str(KERNELS)},
        platform={"energy": "none"},
        cluster={"cores_per_node": 8, "max_ranks": 8, "gpus_per_node": 0},
    )
    cfg["backends"]["mpi"]["ranks"] = [8]
    # a reference the cell misses from below, whatever the noise: 3 repetitions on a
    # loaded machine can vary so much that the mean's interval reaches 0 (a reference
    # of 1 ns is then, rightly, inconclusive), but its top stays far under 1e6 s
    cfg["compare"]["references"] = [
        {"where": {"backend": "seq", "size": "512KiB"}, "value": 1e6, "unit": "s"}
    ]
    cfg["compare"]["on_violation"] = "fail"
    proc = run_snakemake(tmp_path, cfg, timeout=600)
    res = tmp_path / "results" / "pousa_small"
    assert proc.returncode != 0
    assert (
        "seq-ref-ecb-enc-512KiB-r1-t1: t_total" in proc.stderr
        and "is below its reference 1e+06 s" in proc.stderr
    ), proc.stderr[-3000:]
    # the study's tables, both ways, and the comparison: all kept
    time_t = pd.read_csv(res / "tables" / "study_time.csv", index_col=0)
    assert list(time_t.index) == ["Secuencial", "OMP (8 cores)", "MPI (8 cores)"]
    comp_t = pd.read_csv(res / "tables" / "study_speedup_compute.csv", index_col=0)
    assert float(comp_t.loc["MPI (8 cores)", "512KiB"]) > 0
    pub = pd.read_csv(res / "compare" / "published.csv")
    seq = pub[(pub.row == "Secuencial (Intel)") & (pub.column == "512KB")].iloc[0]
    assert seq.measured == pytest.approx(float(time_t.loc["Secuencial", "512KiB"]))
    assert seq.ratio == pytest.approx(seq.measured / 1.133039)
    mpi = pub[(pub.row == "MPI (8 cores)") & (pub.source == "Tabla 5.3")]
    assert set(mpi.measure) == {"speedup", "speedup_compute"}
    # one mark per size measured: the nearer quantity, or why 3 repetitions cannot
    # tell it (a compute time's interval reaching 0 leaves its speedup unbounded)
    marked = mpi[mpi.closest.fillna("") != ""]
    assert sorted(marked.column) == ["1KB", "512KB"], mpi
    for mark, measure in zip(marked.closest, marked.measure, strict=True):
        assert mark.startswith("inconclusive: ") or (
            mark == "closest" and measure == "speedup_compute"
        ), (mark, measure)
    cuda = pub[pub.row == "CUDA"]
    assert cuda.measured.isna().all()
    assert (cuda.note == "not measured by this campaign").all()
    claims = pd.read_csv(res / "compare" / "claims.csv").set_index("id")
    assert claims.loc["cuda-507-total", "verdict"] == "the paper contradicts itself"
    assert claims.loc["speedup-is-ts-over-tp-mpi32", "verdict"] == "consistent"
    # 3 repetitions: the factor's interval may reach both sides of the stated 1 ±15%,
    # or be unbounded (a compute time's interval reaching 0, on a loaded machine)
    similar = claims.loc["omp-mpi8-similar", "verdict"]
    assert similar in (
        "holds",
        "does not hold",
        "inconclusive: its interval reaches both sides of 1 ±15%",
        "not comparable: a deciding number has no finite interval (too few repetitions?)",
    ), similar
    ranks = pd.read_csv(res / "compare" / "ranks.csv")
    assert (ranks.cells >= 2).any()
    # the same comparison as tables (rendered with footnotes) and in the report
    published = pd.read_csv(res / "tables" / "published.csv", index_col=0)
    assert published.loc[
        "Tabla 5.2 | Secuencial (Intel) | 512KB", "paper"
    ] == pytest.approx(1.133039)
    verdicts = pd.read_csv(res / "tables" / "claims.csv", index_col=0)
    assert verdicts.loc["cuda-507-kernel", "verdict"] == "the paper contradicts itself"
    html = (res / "report.html").read_text()
    assert "Comparison with the published study" in html
    assert "the paper contradicts itself" in html
    refs = pd.read_csv(res / "compare" / "references.csv")
    assert list(refs.verdict) == ["below"]
    assert not (res / "compare" / "references.ok").exists()
