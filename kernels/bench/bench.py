#!/usr/bin/env python3
"""Side-by-side kernel benchmark (not a test): ratios of the AES kernels against OpenSSL.

Usage: python3 kernels/bench/bench.py [--build build/kernels] [--rounds 5] [--quick]

Per AES impl the CPU has, the impl against OpenSSL EVP aes-128-ctr at 1 MiB on one core,
and its bytes per cycle against the limit of the CPU's AES instructions (measured by
aes-cpu-limits on the same core: clock, AESENC/VAESENC per cycle; AES-128 needs 10 AES
instructions per 16-byte block, so the limit is IPC x register width / 10).

Every comparison runs its two sides alternately (A, B, A, B, ...) in the same process
tree, pinned with taskset, and compares medians of t_total over all repetitions, so
that noise from other work on the machine hits both sides alike.  Prints one table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

MASK_AESNI = "~0x200000200000000"  # OpenSSL without AES-NI (and PCLMUL): vpaes (SSSE3)
MASK_AESNI_SSSE3 = "~0x200020200000000"  # ... and without SSSE3: OpenSSL's T-table code


def run(argv: list[str], env: dict[str, str] | None = None) -> list[dict]:
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(argv, check=False, capture_output=True, text=True, env=e)
    if r.returncode != 0:
        sys.exit(f"bench: {' '.join(argv)} failed ({r.returncode}): {r.stderr.strip()}")
    return [json.loads(x) for x in r.stdout.splitlines() if x.strip()]


def options() -> argparse.ArgumentParser:
    """The options every bench script takes: --build, --rounds, --quick."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/kernels", type=Path)
    ap.add_argument("--rounds", type=int, default=5, help="alternations per comparison")
    ap.add_argument(
        "--quick", action="store_true", help="fewer repetitions (smoke run)"
    )
    return ap


def side_by_side(a: list[str], b: list[str], rounds: int, env_a=None, env_b=None):
    ta: list[float] = []
    tb: list[float] = []
    rec_a = rec_b = None
    for _ in range(rounds):
        ra = run(a, env_a)
        rb = run(b, env_b)
        ta += [x["t_total"] for x in ra]
        tb += [x["t_total"] for x in rb]
        rec_a, rec_b = ra[0], rb[0]
    return statistics.median(ta), statistics.median(tb), rec_a, rec_b, ta, tb


def cpu_limits(build: Path, pin: list[str]) -> dict:
    """Clock and AES instruction limits of this core (aes-cpu-limits, one JSON object)."""
    exe = build / "aes-cpu-limits"
    if not exe.exists():
        return {}
    r = subprocess.run(pin + [str(exe)], check=False, capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 else {}


def per_cycle(gbps: float, impl: str, lim: dict) -> str:
    """'B/cycle of limit (percent)' for an impl, or '' where no limit applies."""
    clock = lim.get("clock_ghz")
    limit = lim.get(f"limit_{impl}_bpc")
    if not clock or not limit:
        return ""
    bpc = gbps / clock
    return f"{bpc:5.2f} of {limit:5.2f} B/cyc ({bpc / limit * 100:3.0f}%)"


def spread(ts: list[float]) -> str:
    m = statistics.median(ts)
    return f"+{(max(ts) / m - 1) * 100:.0f}%/-{(1 - min(ts) / m) * 100:.0f}%"


def available_impls(seq: str) -> list[str]:
    """The AES-instruction impls this CPU has (aes-seq refuses the others)."""
    names = []
    for impl in ("aesni", "vaes256", "vaes"):
        r = subprocess.run(
            [seq, "--impl", impl, "--size", "16", "--reps", "1", "--warmup", "0"],
            check=False,
            capture_output=True,
        )
        if r.returncode == 0:
            names.append(impl)
    return names


def main() -> int:
    a = options().parse_args()
    b = a.build.resolve()
    core0 = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    cores01 = ["taskset", "-c", "0,1"] if shutil.which("taskset") else []
    reps = ["--reps", "3" if a.quick else "10", "--warmup", "2"]
    reps_big = ["--reps", "2" if a.quick else "3", "--warmup", "1"]
    rounds = 2 if a.quick else a.rounds
    seq, ossl = str(b / "aes-seq"), str(b / "aes-openssl")
    rows = []

    lim = cpu_limits(b, core0)

    def ratio_row(label, cmd_a, cmd_b, target, env_a=None, env_b=None):
        ma, mb, ra, _rb, ta, tb = side_by_side(cmd_a, cmd_b, rounds, env_a, env_b)
        n = ra["bytes"]
        rows.append(
            (
                label,
                f"{n / ma / 1e9:8.3f}",
                f"{n / mb / 1e9:8.3f}",
                f"{mb / ma:6.2f}",
                f"{min(tb) / min(ta):6.2f}",
                target,
                per_cycle(n / ma / 1e9, ra["impl"], lim),
                f"A {spread(ta)}, B {spread(tb)}",
            )
        )
        return ra

    for size in ["1MiB", "64MiB"]:
        r = reps if size == "1MiB" else reps_big
        rec = ratio_row(
            f"best impl / OpenSSL EVP aes-128-ctr, {size}",
            core0 + [seq, "--impl", "auto", "--size", size] + r,
            core0 + [ossl, "--cipher", "aes-128-ctr", "--size", size] + r,
            ">= 1.5 (1 MiB)" if size == "1MiB" else "",
        )
        best = rec["impl"]
    targets = {"aesni": ">= 1.0", "vaes256": ">= 1.5", "vaes": ">= 1.5"}
    for impl in available_impls(seq):
        ratio_row(
            f"{impl} / OpenSSL EVP aes-128-ctr, 1MiB",
            core0 + [seq, "--impl", impl, "--size", "1MiB"] + reps,
            core0 + [ossl, "--cipher", "aes-128-ctr", "--size", "1MiB"] + reps,
            targets[impl],
        )
    ratio_row(
        "ttable / OpenSSL without AES-NI (vpaes), 1MiB",
        core0 + [seq, "--impl", "ttable", "--size", "1MiB"] + reps,
        core0 + [ossl, "--size", "1MiB"] + reps,
        ">= 1.0",
        env_b={"OPENSSL_ia32cap": MASK_AESNI},
    )
    ratio_row(
        "ttable / OpenSSL without AES-NI+SSSE3 (T-table), 1MiB",
        core0 + [seq, "--impl", "ttable", "--size", "1MiB"] + reps,
        core0 + [ossl, "--size", "1MiB"] + reps,
        "(info)",
        env_b={"OPENSSL_ia32cap": MASK_AESNI_SSSE3},
    )
    ratio_row(
        "ref / ttable, 1MiB",
        core0
        + [seq, "--impl", "ref", "--size", "1MiB", "--reps", "2", "--warmup", "1"],
        core0
        + [seq, "--impl", "ttable", "--size", "1MiB", "--reps", "2", "--warmup", "1"],
        "(info)",
    )

    # parallel efficiency at 2: E = T_seq / (2 * T_par), ttable, 64 MiB
    eff = []
    t1, t2, _, _, ta, tb = side_by_side(
        core0 + [seq, "--impl", "ttable", "--size", "64MiB"] + reps_big,
        cores01
        + [str(b / "aes-omp"), "--impl", "ttable", "--threads", "2", "--size", "64MiB"]
        + reps_big,
        rounds,
    )
    eff.append(("OpenMP efficiency, 2 threads, ttable 64MiB", t1, t2, ta, tb))
    if shutil.which("mpirun") and (b / "aes-mpi").exists():
        env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
        t1, t2, _, _, ta, tb = side_by_side(
            core0 + [seq, "--impl", "ttable", "--size", "64MiB"] + reps_big,
            [
                "mpirun",
                "-np",
                "2",
                "--bind-to",
                "core",
                str(b / "aes-mpi"),
                "--impl",
                "ttable",
                "--size",
                "64MiB",
            ]
            + reps_big,
            rounds,
            None,
            env,
        )
        eff.append(("MPI efficiency, 2 ranks, ttable 64MiB", t1, t2, ta, tb))

    cpu = run([seq, "--size", "16", "--reps", "1", "--warmup", "0"])[0]
    print(
        f"ciphersweep kernel benchmark: {platform.node()}, {cpu['cpu_model']}, {cpu['cpu_cores']} CPUs, "
        f"{cpu['openssl_version']}, {cpu['compiler']}"
    )
    print(
        f"A/B from medians of t_total (and from the fastest repetitions: (min)), sides run alternately ({rounds} rounds); best impl here: {best}; "
        "one core (taskset -c 0) unless stated\n"
    )
    if lim:
        print(
            f"core clock {lim['clock_ghz']:.2f} GHz; AES instructions per cycle: "
            f"xmm {lim.get('aesenc_xmm_ipc')}, ymm {lim.get('vaesenc_ymm_ipc')}, "
            f"zmm {lim.get('vaesenc_zmm_ipc')} (aes-cpu-limits)\n"
        )
    print(
        f"{'comparison':58} {'A GB/s':>8} {'B GB/s':>8} {'A/B':>6} {'(min)':>6}  {'target':14} "
        f"{'A against the AES-instruction limit':36} spread (max/min vs median)"
    )
    for label, ga, gb, ratio, rmin, target, pc, sp in rows:
        print(f"{label:58} {ga} {gb} {ratio} {rmin}  {target:14} {pc:36} {sp}")
    for label, t1, t2, ta, tb in eff:
        print(
            f"{label:58} {'':8} {'':8} {t1 / (2 * t2):6.2f} {min(ta) / (2 * min(tb)):6.2f}  {'>= 0.95':14} {'':36} "
            f"T1 {t1 * 1e3:.1f} ms, T2 {t2 * 1e3:.1f} ms; seq {spread(ta)}, par {spread(tb)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
