"""Workflow scaling and overhead numbers (not a pytest test; run it by hand):

    .venv/bin/python tests/bench_dryrun.py [--points 5000] [--local]
    .venv/bin/python tests/bench_dryrun.py --curve [--upto 100000]

1. Dry-run wall time of a generated ~5,000-point sweep (target <= 15 s), and the part
   of it spent after Snakemake has started (parse + DAG).
2. With --local: runs the default campaign with the local profile in a scratch
   directory and prints the overhead per point = (campaign wall time - sum of the
   kernels' t_total) / points (target <= 0.3 s).
3. With --curve: the planning curve. Dry runs of 1,000, 10,000 and 100,000 points in
   two shapes, the synthetic sweep (sizes x 2 modes x 2 ops x 22 shapes) and a wide
   one (sizes x 2 impls x 2 modes x 2 ops: 12,500 sizes at 100,000 points), each with
   the wall time and peak memory of the Snakemake process, the lines the plain dry run
   prints, and the ratio of 100,000 points to 10,000 (targets: <= 60 s, <= 1.5 GB and
   <= 12x at 100,000 points).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SNAKEMAKE = str(ROOT / ".venv" / "bin" / "snakemake")


def synthetic(points: int) -> dict:
    # sizes x 2 modes x 2 ops x (seq 2 + omp 8 + mpi 10 + cuda 2); 57 sizes -> 5,016 points
    per = 22  # points per size, mode and op
    nsizes = max(1, -(-points // (per * 4)))
    return {
        "campaign": "synthetic",
        "sizes": [f"{k}KiB" for k in range(1, nsizes + 1)],
        "modes": ["ecb", "ctr"],
        "ops": ["encrypt", "decrypt"],
        "reps": 3,
        "warmup": 1,
        "backends": {
            "seq": {"impls": ["ref", "ttable"]},
            "omp": {"impls": ["ref", "ttable"], "threads": [2, 4, 8, 16]},
            "mpi": {"impls": ["ref", "ttable"], "ranks": [2, 4, 8, 16, 32]},
            "cuda": {"impls": ["gpu-ttable"], "block_threads": [128, 256], "gpus": [1]},
        },
        "cluster": {"cores_per_node": 32, "max_ranks": 32},
    }


def wide(points: int) -> dict:
    """Many sizes, few shapes: 8 points a size (seq ref/ttable x ecb/ctr x enc/dec),
    every size its own generated input."""
    nsizes = max(1, points // 8)
    return {
        "campaign": "wide",
        "sizes": [f"{k}B" for k in range(1024, 1024 + nsizes)],
        "modes": ["ecb", "ctr"],
        "ops": ["encrypt", "decrypt"],
        "reps": 3,
        "warmup": 1,
        "backends": {"seq": {"impls": ["ref", "ttable"]}},
    }


SHAPES = {"synthetic": synthetic, "wide": wide}


def timed_dry_run(cfg: dict, quiet: bool) -> tuple[float, float, int, str]:
    """(wall s, peak MiB of the Snakemake process, lines printed, its output) of one
    dry run of ``cfg`` in a scratch directory."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "campaign.yaml"
        path.write_text(yaml.safe_dump(cfg))
        cmd = [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "-d", d]
        cmd += ["--configfile", str(path), "-n"] + (
            ["--quiet", "rules"] if quiet else []
        )
        out = Path(d) / "out.txt"
        with open(out, "w") as fh:
            t0 = time.monotonic()
            proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.monotonic() - t0
        text = out.read_text()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(text[-2000:])
        return wall, usage.ru_maxrss / 1024, len(text.splitlines()), text


def curve(upto: int) -> None:
    """The planning curve of both shapes (see the module's docstring)."""
    sizes = [n for n in (1_000, 10_000, 100_000) if n <= upto]
    print(f"{'shape':<10} {'points':>8} {'wall s':>8} {'peak MiB':>9} {'lines':>6}")
    for shape, make in SHAPES.items():
        walls: dict[int, float] = {}
        peaks: dict[int, float] = {}
        for n in sizes:
            cfg = make(n)
            wall, peak, _, text = timed_dry_run(cfg, quiet=True)
            m = re.search(r"^ciphersweep: (\d+) benchmark point", text, re.MULTILINE)
            points = int(m.group(1)) if m else n
            _, _, lines, _ = (
                timed_dry_run(cfg, quiet=False) if n == sizes[-1] else (0, 0, 0, "")
            )
            walls[n], peaks[n] = wall, peak
            shown = str(lines) if lines else ""
            print(f"{shape:<10} {points:>8,} {wall:>8.1f} {peak:>9.0f} {shown:>6}")
        if 10_000 in walls and 100_000 in walls:
            ratio = walls[100_000] / walls[10_000]
            ok = walls[100_000] <= 60 and peaks[100_000] <= 1536 and ratio <= 12
            verdict = "PASS" if ok else "MISS"
            print(f"{shape:<10} 100,000 / 10,000 points: {ratio:.1f}x ({verdict})")


def dry_run(points: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        cfg = Path(d) / "synthetic.yaml"
        cfg.write_text(yaml.safe_dump(synthetic(points)))
        t0 = time.monotonic()
        proc = subprocess.run(
            [
                SNAKEMAKE,
                "-s",
                str(ROOT / "Snakefile"),
                "-d",
                d,
                "--configfile",
                str(cfg),
                "-n",
                "--quiet",
                "rules",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            sys.exit(proc.stderr[-2000:])
        text = proc.stdout + proc.stderr
        m = re.search(r"^ciphersweep: (\d+) benchmark point", text, re.MULTILINE)
        n = int(m.group(1)) if m else -1
        jobs = re.search(r"^bench\s+(\d+)", text, re.MULTILINE)
        t1 = time.monotonic()
        subprocess.run([SNAKEMAKE, "--version"], capture_output=True, check=False)
        start = time.monotonic() - t1
        print(
            f"dry run: {n} points in {jobs.group(1) if jobs else '?'} bench jobs planned "
            f"in {wall:.2f} s (snakemake start-up alone {start:.2f} s)"
        )


def local_overhead() -> None:
    with tempfile.TemporaryDirectory() as d:
        cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
        cfg.setdefault("build", {})["dir"] = str(ROOT / "build" / "kernels")
        path = Path(d) / "campaign.yaml"
        path.write_text(yaml.safe_dump(cfg))
        t0 = time.monotonic()
        proc = subprocess.run(
            [
                SNAKEMAKE,
                "-s",
                str(ROOT / "Snakefile"),
                "-d",
                d,
                "--configfile",
                str(path),
                "--profile",
                str(ROOT / "profiles/local"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            sys.exit(proc.stderr[-2000:])
        raw = sorted((Path(d) / "results" / cfg["campaign"] / "raw").glob("*.jsonl"))
        kernel = 0.0
        for f in raw:
            for line in f.read_text().splitlines():
                kernel += json.loads(line).get("t_total") or 0.0
        el = re.search(r"Elapsed time: (\d+):(\d+):([\d.]+)", proc.stdout + proc.stderr)
        snake = (
            int(el.group(1)) * 3600 + int(el.group(2)) * 60 + float(el.group(3))
            if el
            else wall
        )
        print(
            f"default campaign: {len(raw)} points, wall {wall:.1f} s (Snakemake's elapsed {snake:.1f} s), "
            f"sum of kernel t_total {kernel:.2f} s"
        )
        print(
            f"overhead per point: {(wall - kernel) / len(raw):.3f} s (elapsed-based {(snake - kernel) / len(raw):.3f} s)"
        )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--points", type=int, default=5000)
    ap.add_argument(
        "--local", action="store_true", help="also run the default campaign locally"
    )
    ap.add_argument("--curve", action="store_true", help="the planning curve instead")
    ap.add_argument("--upto", type=int, default=100_000, help="--curve's last size")
    a = ap.parse_args()
    if a.curve:
        curve(a.upto)
        return
    dry_run(a.points)
    if a.local:
        local_overhead()


if __name__ == "__main__":
    main()
