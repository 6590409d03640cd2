"""ciphersweep against ReFrame, side by side in one run (not a pytest test; by hand):

    .venv/bin/python tests/bench_reframe.py [--quick] [--repeats 3] [--points 5000]
                                            [--shipped-reps] [--out FILE.md|FILE.json]
                                            [--conditions quiet,loaded] [--busy 2]
                                            [--warmup 1]

Installs ReFrame (reframe-hpc==4.10.4, from PyPI with pip) into build/reframe-venv the
first time, generates a ReFrame test file with one case per campaign point (the same
kernel binaries from build/kernels and the same launch lines: tests/reframe_cases.py;
local scheduler, max_jobs 1), and measures, each side in a fresh scratch directory:

1. listing the ~5,000 cases of tests/bench_dryrun.py's sweep: `reframe -l` against
   ciphersweep's dry run (`snakemake -n`);
2. the default campaign's 20 points end to end: `snakemake --profile profiles/local`
   (build check, inputs, points, tables, plots, report) against `reframe -r`;
3. the overhead per extra point: (wall - sum of the kernels' t_total) of the 20-point
   campaign and of the same campaign over 16 sizes (80 points), slope per side;
4. for reading 2 and 3: the same launch lines run back to back by this script, no
   orchestrator (each in a session of its own, as ReFrame's local scheduler and srun
   start them). Their wall time less their t_total is the part of every point that
   neither tool can take away (process start, the warm-up repetition, MPI start-up,
   the generated input); each side's own cost is its wall less theirs, end to end and
   per extra point (rows without a target: the targets are on 2 and 3);
5. for reading 2: ciphersweep's 20-point run without what ReFrame does not make, the
   plots and the report (``--omit-from plots history``), against ReFrame's whole run
   (a row without a target).

Each is measured in two conditions, one table each: quiet, and loaded (--busy N CPU-bound
processes, default 2, each in a session of its own, competing with both sides for the whole measurement, as on a shared
login or CI node); --conditions picks one.

The two sides alternate (ReFrame, ciphersweep, then the launch lines alone, ...) and
every measurement is repeated; the table shows median [min–max] per side and of the
per-repetition ratio ciphersweep / ReFrame, against the targets (dry run <= 0.15x,
end to end <= 1.0x, per extra point <= 0.5x): PASS when every repetition meets the
target, MISS when none does, MIXED otherwise. By default the campaign runs the points
as the earlier measurements did (one kernel process, 5 repetitions + 1 warm-up, no
precision loop); --shipped-reps keeps config/config.yaml's repetitions as they are.
Before the first condition, --warmup rounds (default 1) of both sides' 20-point run go
uncounted: what only a first run pays (a build tree older than its sources, which
ciphersweep's build check rebuilds; files not yet in the page cache) is in no figure.
Exit status 0 whatever the verdicts; non-zero only when a side failed to run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import bench_table as bt
import reframe_cases as rc
import yaml
from bench_dryrun import SNAKEMAKE, synthetic

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "build" / "kernels"
VENV = ROOT / "build" / "reframe-venv"
REFRAME = "reframe-hpc==4.10.4"
SIZES_20 = ["1KiB", "64KiB", "1MiB", "16MiB"]  # config/config.yaml's
SIZES_80 = [f"{1 << k}KiB" for k in range(10)] + [f"{1 << k}MiB" for k in range(6)]


@dataclass
class Run:
    """One side's campaign run: wall time, the kernels' sum of t_total, points run,
    and the CPU time of every process it started (kernels included)."""

    wall: float
    kernel: float
    points: int
    cpu: float


class Took(NamedTuple):
    """A command's wall time, output, and the CPU time (user + system) of its whole
    process tree: every process it started that was waited for, as all of either
    tool's are (the drawing children by the drawing process, the kernels by the
    Snakemake process or by ReFrame's job script)."""

    wall: float
    out: str
    cpu: float


def fail(msg: str) -> None:
    sys.exit(f"bench_reframe: {msg}")


def environment() -> dict[str, str]:
    """The caller's environment; where Slurm's clients are installed but no Slurm is
    configured, an empty SLURM_CONF spares each Snakemake start the Slurm plugin's
    10 s wait for `scontrol` (as the test suite does)."""
    env = dict(os.environ)
    if "SLURM_CONF" not in env and not Path("/etc/slurm/slurm.conf").exists():
        env["SLURM_CONF"] = "/dev/null"
    return env


def timed(
    argv: Sequence[str],
    cwd: Path,
    what: str,
    env: dict[str, str] | None = None,
    new_session: bool = False,
) -> Took:
    """Wall time, output (stdout, then stderr) and CPU time of ``argv``, run in
    ``cwd`` with :func:`environment` and ``env`` over it (in a session of its own with
    ``new_session``); a failure ends the bench naming ``what``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run(
        list(argv),
        check=False,
        cwd=cwd,
        env={**environment(), **(env or {})},
        capture_output=True,
        text=True,
        start_new_session=new_session,
    )
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        tail = " | ".join(out.strip().splitlines()[-5:])
        fail(f"{what} failed (exit {proc.returncode}): {tail}")
    return Took(wall, out, cpu)


def install_reframe() -> Path:
    """build/reframe-venv/bin/reframe, installed with pip the first time."""
    exe = VENV / "bin" / "reframe"
    want = REFRAME.split("==")[1]
    if exe.exists():
        got = subprocess.run(
            [str(exe), "--version"], check=False, capture_output=True, text=True
        )
        if got.stdout.strip() == want:
            return exe
    print(f"installing {REFRAME} into {VENV.relative_to(ROOT)} ...", flush=True)
    timed([sys.executable, "-m", "venv", "--clear", str(VENV)], ROOT, "python3 -m venv")
    pip = [str(VENV / "bin" / "pip"), "install", "--quiet", REFRAME]
    timed(pip, ROOT, f"pip install {REFRAME}")
    return exe


def campaign(sizes: list[str], shipped_reps: bool) -> dict[str, Any]:
    """config/config.yaml over ``sizes``, with the build tree of this checkout."""
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["sizes"] = list(sizes)
    cfg.setdefault("build", {})["dir"] = str(KERNELS)
    if not shipped_reps:
        cfg.update(processes=1, reps=5, warmup=1, precision=None)
    return cfg


def kernel_seconds(lines: list[str]) -> float:
    """Sum of t_total over the kernel records among ``lines`` (JSON Lines)."""
    total = 0.0
    for line in lines:
        if line.startswith("{") and '"t_total"' in line:
            total += json.loads(line).get("t_total") or 0.0
    return total


def cs_dry_run(points: int, scratch: Path) -> float:
    cfg = scratch / "synthetic.yaml"
    cfg.write_text(yaml.safe_dump(synthetic(points)))
    argv = [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "-d", str(scratch)]
    argv += ["--configfile", str(cfg), "-n", "--quiet", "rules"]
    wall, out, _ = timed(argv, scratch, "ciphersweep's dry run")
    m = re.search(
        r"^ciphersweep: (\d+) benchmark points? to measure", out, re.MULTILINE
    )
    want = len(rc.cases(synthetic(points), KERNELS))
    if not m or int(m.group(1)) != want:
        fail(
            f"ciphersweep's dry run planned {m.group(1) if m else 'no'} points, not {want}"
        )
    return wall


def rf_argv(reframe: Path, test: Path, action: str) -> list[str]:
    """``reframe`` on the generated test file, its settings and a prefix beside it."""
    suite = test.parent
    return [
        str(reframe),
        "-C",
        str(suite / "settings.py"),
        "-c",
        str(test),
        "--prefix",
        str(suite.parent / "rfm"),
        action,
    ]


def rf_list(reframe: Path, cfg: dict[str, Any], scratch: Path) -> float:
    cases = rc.cases(cfg, KERNELS, rc.cores(), rc.is_root())
    test = rc.write_suite(scratch / "suite", cases)
    wall, out, _ = timed(rf_argv(reframe, test, "-l"), scratch, "reframe -l")
    m = re.search(r"Found (\d+) check", out)
    if not m or int(m.group(1)) != len(cases):
        fail(f"reframe -l found {m.group(1) if m else 'no'} checks, not {len(cases)}")
    return wall


def rf_run(reframe: Path, cfg: dict[str, Any], scratch: Path) -> Run:
    cases = rc.cases(cfg, KERNELS, rc.cores(), rc.is_root())
    test = rc.write_suite(scratch / "suite", cases)
    took = timed(rf_argv(reframe, test, "-r"), scratch, "reframe -r")
    n = len(cases)
    if f"Ran {n}/{n} test case(s)" not in took.out or "(0 failure(s)" not in took.out:
        last = took.out.strip().splitlines()[-1]
        fail(f"reframe -r did not pass all {n} cases: {last}")
    outputs = sorted((scratch / "rfm" / "output").rglob("rfm_job.out"))
    if len(outputs) != n:
        fail(f"reframe -r left {len(outputs)} job outputs, not {n}")
    lines = [x for f in outputs for x in f.read_text().splitlines()]
    return Run(took.wall, kernel_seconds(lines), n, took.cpu)


# what ReFrame does not make: the plots (the campaign's and the history's trend) and
# the report that shows them, left out of the run "without drawing" (Snakemake's
# --omit-from leaves out these rules and those after them)
DRAWING_RULES = ("plots", "history")


def cs_run(cfg: dict[str, Any], scratch: Path, drawing: bool = True) -> Run:
    """``snakemake --profile profiles/local`` on ``cfg``; without ``drawing``, the same
    run up to the tables (:data:`DRAWING_RULES` omitted)."""
    path = scratch / "campaign.yaml"
    path.write_text(yaml.safe_dump(cfg))
    argv = [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "-d", str(scratch)]
    argv += ["--configfile", str(path), "--profile", str(ROOT / "profiles" / "local")]
    if not drawing:
        argv += ["--omit-from", *DRAWING_RULES]
    took = timed(argv, scratch, "snakemake --profile profiles/local")
    res = scratch / "results" / cfg["campaign"]
    raw = sorted((res / "raw").glob("*.jsonl"))
    n = len(rc.cases(cfg, KERNELS))
    made = (res / "report.html").exists() if drawing else (res / "tables").is_dir()
    if len(raw) != n or not made:
        what = "no report" if drawing else "no tables"
        fail(f"ciphersweep's run left {len(raw)} of {n} points' records or {what}")
    lines = [x for f in raw for x in f.read_text().splitlines()]
    return Run(took.wall, kernel_seconds(lines), n, took.cpu)


def bare_run(cfg: dict[str, Any], scratch: Path) -> Run:
    """The campaign's launch lines (the ReFrame cases' commands) run back to back here,
    with no orchestrator: what the kernels take alone."""
    cases = rc.cases(cfg, KERNELS, rc.cores(), rc.is_root())
    wall, cpu, lines = 0.0, 0.0, []
    for case in cases:
        argv = ["/bin/sh", "-c", case.command]
        took = timed(argv, scratch, f"{case.name} alone", case.env, True)
        wall += took.wall
        cpu += took.cpu
        lines += took.out.splitlines()
    return Run(wall, kernel_seconds(lines), len(cases), cpu)


def scratch_dir() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="cs-vs-reframe-")


@dataclass
class Series:
    """Every repetition's figures, per side ("rf", "cs"): the listing's wall time, and
    the runs of the smaller (0) and the larger (1) campaign (also "bare": the launch
    lines alone)."""

    listing: dict[str, list[float]]
    runs: dict[tuple[str, int], list[Run]]


def run_sizes(quick: bool) -> list[list[str]]:
    """Sizes of the smaller and the larger campaign (20 and 80 points; 20 and 40 quick)."""
    return [SIZES_20, SIZES_80[:8] if quick else SIZES_80]


def run_side(reframe: Path, side: str, cfg: dict[str, Any], scratch: Path) -> Run:
    """One side's run of ``cfg`` in ``scratch``: ReFrame ("rf"), ciphersweep ("cs"),
    ciphersweep without drawing ("cs-nodraw") or the launch lines alone ("bare")."""
    if side == "rf":
        return rf_run(reframe, cfg, scratch)
    if side == "bare":
        return bare_run(cfg, scratch)
    return cs_run(cfg, scratch, drawing=side == "cs")


def warm_up(reframe: Path, args: argparse.Namespace) -> None:
    """``args.warmup`` untimed rounds of both sides' smaller campaign before any
    measurement: what only a first run pays (a build tree older than its sources,
    which ciphersweep's build check brings up to date; files not yet in the page cache)
    is then in neither side's figures."""
    cfg = campaign(run_sizes(args.quick)[0], args.shipped_reps)
    for i in range(args.warmup):
        for side in ("rf", "cs"):
            with scratch_dir() as d:
                run = run_side(reframe, side, cfg, Path(d))
            print(
                f"warm-up {i + 1} of {args.warmup}: {side} {run.points} points, "
                f"wall {run.wall:.1f} s (not counted)",
                flush=True,
            )


# in the order they run; ciphersweep without drawing only in the smaller campaign (for
# a row to read beside end to end)
SIDES = ("rf", "cs", "cs-nodraw", "bare")


def measure(reframe: Path, args: argparse.Namespace) -> Series:
    """The repetitions, each side right after the other (ReFrame first, then ciphersweep)."""
    series = Series({"rf": [], "cs": []}, {})
    listing = synthetic(args.points)
    for i in range(args.repeats):
        print(f"repetition {i + 1} of {args.repeats}", flush=True)
        for side in ("rf", "cs"):
            with scratch_dir() as d:
                if side == "rf":
                    wall = rf_list(reframe, listing, Path(d))
                else:
                    wall = cs_dry_run(args.points, Path(d))
            series.listing[side].append(wall)
            print(f"  {side} list/dry run: {wall:.1f} s", flush=True)
        for which, sizes in enumerate(run_sizes(args.quick)):
            cfg = campaign(sizes, args.shipped_reps)
            for side in SIDES:
                if side == "cs-nodraw" and which != 0:
                    continue
                with scratch_dir() as d:
                    run = run_side(reframe, side, cfg, Path(d))
                series.runs.setdefault((side, which), []).append(run)
                print(
                    f"  {side} {run.points} points: wall {run.wall:.1f} s, "
                    f"kernels {run.kernel:.2f} s, CPU {run.cpu:.1f} s",
                    flush=True,
                )
    return series


def pair(series: Series, side: str) -> tuple[list[Run], list[Run]]:
    """A side's runs of the smaller and of the larger campaign, repetition by
    repetition."""
    return series.runs[(side, 0)], series.runs[(side, 1)]


def side_figures(small: list[Run], big: list[Run]) -> dict[str, list[float]]:
    """One side's derived figures per repetition, from its smaller and larger runs."""
    slopes = [
        bt.slope(
            [x.points, y.points],
            [bt.overhead(x.wall, x.kernel), bt.overhead(y.wall, y.kernel)],
        )
        for x, y in zip(small, big)
    ]
    return {
        "wall": [x.wall for x in small],
        "kernel": [x.kernel for x in small],
        "per point": [bt.overhead(x.wall, x.kernel) / x.points for x in small],
        "slope": slopes,
        "fixed": [
            bt.fixed_cost(x.wall, x.kernel, x.points, s) for x, s in zip(small, slopes)
        ],
    }


def own_figures(
    side: tuple[list[Run], list[Run]], bare: tuple[list[Run], list[Run]]
) -> dict[str, list[float]]:
    """A side's own cost per repetition: its wall less the launch lines' alone, for
    the smaller campaign ("own") and per extra point ("own slope"); its CPU time less
    theirs, for the smaller campaign ("own cpu")."""
    return {
        "own": [x.wall - b.wall for x, b in zip(side[0], bare[0])],
        "own cpu": [x.cpu - b.cpu for x, b in zip(side[0], bare[0])],
        "own slope": [
            bt.slope([x.points, y.points], [x.wall - bx.wall, y.wall - by.wall])
            for x, y, bx, by in zip(side[0], side[1], bare[0], bare[1])
        ],
    }


def bare_words(series: Series) -> str:
    """What the launch lines took alone: the 20 points' wall and t_total, and the part
    of an extra point that is not t_total."""
    small, big = pair(series, "bare")
    alone = side_figures(small, big)
    return (
        f"the launch lines alone, back to back: {small[0].points} points "
        f"{bt.spread(alone['wall']).text(' s')} "
        f"(Σ t_total {bt.spread(alone['kernel']).text(' s')}); "
        f"the part of an extra point that is not t_total "
        f"{bt.spread(alone['slope']).text(' s', 3)}, in both tools' figures"
    )


def rows(series: Series, listed: int) -> list[bt.Row]:
    """The table: measured rows with targets, derived rows without."""
    bare = pair(series, "bare")
    rf, cs = (
        side_figures(*pair(series, s)) | own_figures(pair(series, s), bare)
        for s in ("rf", "cs")
    )
    n, m = (runs[0].points for runs in pair(series, "cs"))
    work = {
        "wall": (f"the default {n} points end to end", bt.TARGETS["end to end"]),
        "kernel": (f"kernels' Σ t_total in those {n} points", None),
        "per point": (f"overhead per point (wall − Σ t_total) / {n}", None),
        "slope": (
            f"overhead per extra point ({n} → {m} points)",
            bt.TARGETS["per extra point"],
        ),
        "fixed": (f"fixed cost of a run (wall − kernels − {n} × slope)", None),
        "own": (f"own cost of the {n} points (wall − the launch lines alone)", None),
        "own slope": (
            f"own cost per extra point ({n} → {m}; wall − the launch lines alone)",
            None,
        ),
        "own cpu": (
            f"own CPU time of the {n} points (CPU − the launch lines' alone)",
            None,
        ),
    }
    listing = bt.row(
        f"list / dry-run the same {listed:,} cases",
        series.listing["rf"],
        series.listing["cs"],
        bt.TARGETS["dry run"],
    )
    table = [listing] + [bt.row(w, rf[k], cs[k], t) for k, (w, t) in work.items()]
    nodraw = series.runs.get(("cs-nodraw", 0))
    if nodraw:
        table.insert(
            2,
            bt.row(
                f"the same {n} points without the plots and the report "
                f"(--omit-from {' '.join(DRAWING_RULES)})",
                rf["wall"],
                [x.wall for x in nodraw],
                None,
            ),
        )
    return table


BUSY_LOOP = "while True: pass"


@contextlib.contextmanager
def busy(n: int):
    """``n`` CPU-bound processes competing with both sides while the block runs, each
    in a session of its own, as another user's processes on a shared node are. Where
    the kernel groups tasks by session for scheduling (``sched_autogroup_enabled``),
    load started in this script's own session would share a group with everything
    either tool leaves in it, and compete with those processes task by task; ReFrame
    starts each test in a new session (its local scheduler), ciphersweep keeps its
    kernels in the run's own: such load would weigh on one tool's kernels and not on
    the other's."""
    procs = [
        subprocess.Popen([sys.executable, "-c", BUSY_LOOP], start_new_session=True)
        for _ in range(n)
    ]
    try:
        yield procs
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="a smoke check: 1 repetition, 500 listed cases, 20 and 40 points",
    )
    ap.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="repetitions of every measurement (default 3; 1 with --quick)",
    )
    ap.add_argument(
        "--points",
        type=int,
        default=None,
        help="cases to list / dry-run (default 5000 -> 5,016; 500 with --quick)",
    )
    ap.add_argument(
        "--shipped-reps",
        action="store_true",
        help="keep config/config.yaml's processes, reps and precision",
    )
    ap.add_argument(
        "--out", type=Path, help="also write the table: FILE.md or FILE.json"
    )
    ap.add_argument(
        "--conditions",
        default="quiet,loaded",
        help="quiet, loaded or both (default quiet,loaded)",
    )
    ap.add_argument(
        "--warmup",
        type=int,
        default=1,
        help="untimed rounds of both sides' 20-point run before the first condition "
        "(default 1)",
    )
    ap.add_argument(
        "--busy",
        type=int,
        default=2,
        help="CPU-bound processes competing in the loaded condition (default 2)",
    )
    a = ap.parse_args(argv)
    a.conditions = [c.strip() for c in a.conditions.split(",") if c.strip()]
    if not a.conditions or set(a.conditions) - {"quiet", "loaded"}:
        ap.error("--conditions: quiet, loaded or quiet,loaded")
    if a.busy < 1:
        ap.error("--busy: at least 1")
    if a.warmup < 0:
        ap.error("--warmup: 0 or more")
    a.repeats = a.repeats if a.repeats is not None else (1 if a.quick else 3)
    a.points = a.points if a.points is not None else (500 if a.quick else 5000)
    if a.repeats < 1 or a.points < 1:
        ap.error("--repeats and --points: at least 1")
    if a.out is not None and a.out.suffix not in (".md", ".json"):
        ap.error(f"--out {a.out}: the name must end in .md or .json")
    return a


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if not (KERNELS / "aes-seq").exists():
        fail(
            f"no kernels in {KERNELS.relative_to(ROOT)}: run scripts/build-kernels.sh build/kernels"
        )
    reframe = install_reframe()
    listed = len(rc.cases(synthetic(args.points), KERNELS))
    texts, tables, alone = [], {}, {}
    warm_up(reframe, args)
    for condition in args.conditions:
        print(f"condition: {condition}", flush=True)
        with busy(args.busy) if condition == "loaded" else contextlib.nullcontext():
            series = measure(reframe, args)
            load = os.getloadavg()
        table = rows(series, listed)
        tables[condition], alone[condition] = table, bare_words(series)
        what = (
            f"loaded: {args.busy} CPU-bound processes competing"
            if condition == "loaded"
            else "quiet"
        )
        text = bt.markdown(table)
        texts.append(
            f"\n### {what}\n\n{campaign_words(args)}; {args.repeats} repetition(s); "
            f"median [min–max]; load average at the end: {load[0]:.2f} on "
            f"{rc.cores()} cores; {alone[condition]}\n\n{text}"
        )
        print(texts[-1], flush=True)
    if args.out is not None:
        meta = {
            "reframe": REFRAME,
            "repeats": args.repeats,
            "cores": rc.cores(),
            "busy": args.busy,
            "campaign": campaign_words(args),
        }
        args.out.write_text(
            json.dumps(
                {
                    c: {
                        **json.loads(bt.as_json(t, meta)),
                        "launch_lines_alone": alone[c],
                    }
                    for c, t in tables.items()
                },
                indent=1,
            )
            if args.out.suffix == ".json"
            else "\n".join(texts) + "\n"
        )


def campaign_words(args: argparse.Namespace) -> str:
    return "config/config.yaml" + (
        ""
        if args.shipped_reps
        else ", 1 process, 5 reps + 1 warm-up, no precision loop"
    )


if __name__ == "__main__":
    main()
