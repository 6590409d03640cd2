"""Are the reported intervals honest? (not a pytest test; run it by hand):

    .venv/bin/python tests/bench_coverage.py [--runs 3] [--config config/config.yaml]

Runs the campaign (default: the default campaign) ``--runs`` times with the local
profile, each in its own scratch directory (its own results/), and prints, side by
side for every cell (point): the first run's median time and 95% interval, the later
runs' medians and whether each falls inside that interval. The closing lines give the
fraction of later medians inside the first run's interval (an honest 95% interval of
the median covers most of them on an idle machine: a later median is itself noisy, so
the expected fraction is somewhat below 95%), the load average before and after, and
the busy-machine warnings the runs recorded.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parent.parent
SNAKEMAKE = str(ROOT / ".venv" / "bin" / "snakemake")


def run_campaign(cfg: dict, workdir: Path) -> pd.DataFrame:
    """One campaign in ``workdir``; its summary.csv (failed points dropped)."""
    path = workdir / "campaign.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = subprocess.run(
        [
            SNAKEMAKE,
            "-s",
            str(ROOT / "Snakefile"),
            "-d",
            str(workdir),
            "--configfile",
            str(path),
            "--profile",
            str(ROOT / "profiles" / "local"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        sys.exit(proc.stderr[-3000:])
    res = workdir / "results" / cfg["campaign"]
    summ = pd.read_csv(res / "summary.csv")
    busy = 0
    for f in (res / "raw").glob("*.jsonl"):
        busy += '"busy_warning": "' in f.read_text()
    summ.attrs["busy_points"] = busy
    return summ[summ["status"] == "ok"].set_index("point")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    a = ap.parse_args()
    cfg = yaml.safe_load(Path(a.config).read_text())
    cfg.setdefault("build", {})["dir"] = str(ROOT / "build" / "kernels")
    load0 = os.getloadavg()
    runs: list[pd.DataFrame] = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as d:
        for i in range(a.runs):
            wd = Path(d) / f"run{i + 1}"
            wd.mkdir()
            runs.append(run_campaign(cfg, wd))
    wall = time.monotonic() - t0
    first = runs[0]
    later = runs[1:]
    heads = ["point", "n", "median", "95% CI", "±%"] + [
        f"run {i + 2} median" for i in range(len(later))
    ]
    print(" | ".join(heads))
    inside = total = 0
    for pid, row in first.iterrows():
        lo, hi = row["t_total_ci_low"], row["t_total_ci_high"]
        cells = [
            str(pid),
            str(int(row["n"])),
            f"{row['t_total_median']:.6g}",
            f"{lo:.6g}..{hi:.6g}",
            f"{100 * row['t_total_rel_hw']:.1f}",
        ]
        for r in later:
            if pid not in r.index:
                cells.append("failed")
                continue
            m = r.loc[pid, "t_total_median"]
            ok = lo <= m <= hi
            inside += ok
            total += 1
            cells.append(f"{m:.6g} {'in' if ok else 'OUT'}")
        print(" | ".join(cells))
    load1 = os.getloadavg()
    busy = ", ".join(str(r.attrs.get("busy_points", 0)) for r in runs)
    print(
        f"later medians inside the first run's 95% interval: {inside}/{total} "
        f"= {inside / max(total, 1):.2f} ({len(runs)} runs, {wall:.0f} s)"
    )
    print(
        f"load average (1, 5, 15 min): before {load0[0]:.2f} {load0[1]:.2f} "
        f"{load0[2]:.2f}, after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}; "
        f"points with a busy-machine warning per run: {busy}"
    )


if __name__ == "__main__":
    main()
