#!/usr/bin/env python3
"""GPU benchmark (not a test): aes-cuda against the limits of the machine it runs on.

Usage: python3 kernels/bench/gpu_bench.py [--build build/kernels] [--size 1GiB] [--quick]

Prints in one run, on the GPU it finds:
  - kernel-only throughput (t_compute) of every GPU impl, AES-128-CTR, and of the default
    impl for ECB encrypt/decrypt and AES-256-CTR, with the ratio to the 3.5 Tbps goal
    (the goal was set for an H100; elsewhere the ratio is for information);
  - end to end (t_total: H2D + kernel + D2H), serial and overlapped (--streams 4), with
    the ratio to the copy limit measured here by aes-cuda-copylimit: in the chunks and on
    the streams the pipeline uses (and as one whole copy), 8 x min(best H2D, best D2H),
    each direction's best alone or beside the other: a bound no schedule beats, so end to
    end <= 1.00 of it (src/copy_bound.h; the mix of the measured modes is printed too);
  - the host's OpenSSL on every core (`openssl speed -multi N -evp aes-128-ctr`), and the
    GPU's end-to-end throughput against it.
Medians over the repetitions; Gbps = 10^9 bit/s.  Without a CUDA device it says so in one
line and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

KERNEL_GOAL_GBPS = 3500.0  # issue goal: AES-128-CTR kernel-only on an H100, >= 256 MiB
E2E_GOAL = 0.95  # of the copy limit (a bound: at most 1.0)


def run_json(argv: list[str]) -> list[dict]:
    r = subprocess.run(argv, check=False, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(
            f"gpu_bench: {' '.join(argv)} failed ({r.returncode}): {r.stderr.strip()}"
        )
    return [json.loads(x) for x in r.stdout.splitlines() if x.strip()]


def no_device_reason(cuda: Path) -> str | None:
    """Why there is no GPU to measure, or None when there is one."""
    for binary in (cuda, cuda.with_name("aes-cuda-copylimit")):
        if not binary.exists():
            return f"{binary} is not built (no CUDA compiler at build time?)"
    r = subprocess.run(
        [str(cuda), "--size", "16", "--reps", "1", "--warmup", "0", "--energy", "none"],
        check=False,
        capture_output=True,
        text=True,
    )
    if r.returncode == 3:
        return r.stderr.strip().removeprefix("aes-cuda: ")
    if r.returncode != 0:
        sys.exit(
            f"gpu_bench: aes-cuda probe failed ({r.returncode}): {r.stderr.strip()}"
        )
    return None


def gbps(recs: list[dict], key: str) -> float:
    return recs[0]["bytes"] * 8 / statistics.median(r[key] for r in recs) / 1e9


def host_openssl_gbps(nproc: int, seconds: int) -> float | None:
    """`openssl speed -multi N -evp aes-128-ctr` on 1 MiB buffers, all processes summed."""
    r = subprocess.run(
        ["openssl", "speed", "-mr", "-multi", str(nproc), "-seconds", str(seconds)]
        + ["-bytes", str(1 << 20), "-evp", "aes-128-ctr"],
        check=False,
        capture_output=True,
        text=True,
    )
    for line in r.stdout.splitlines():
        if line.startswith("+F:") and ":AES-128-CTR:" in line.upper():
            return float(line.split(":")[-1]) * 8 / 1e9
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/kernels", type=Path)
    ap.add_argument("--size", default="1GiB", help="data per repetition (default 1GiB)")
    ap.add_argument("--quick", action="store_true", help="256MiB, 3 repetitions")
    a = ap.parse_args()
    b = a.build.resolve()
    cuda = b / "aes-cuda"
    reason = no_device_reason(cuda)
    if reason:
        print(
            f"ciphersweep GPU benchmark: no CUDA device here ({reason}); nothing measured"
        )
        return 0
    size = "256MiB" if a.quick else a.size
    reps = ["--reps", "3" if a.quick else "5", "--warmup", "1", "--energy", "none"]
    base = [str(cuda), "--size", size] + reps
    limit = run_json([str(b / "aes-cuda-copylimit"), str(1 << 30), "4"])[0]
    rows: list[tuple[str, float, str, str]] = []

    def kernel_row(label: str, args: list[str]) -> dict:
        recs = run_json(base + args)
        g = gbps(recs, "t_compute")
        rows.append(
            (label, g, f"{g / KERNEL_GOAL_GBPS:.2f} of 3.5 Tbps goal", ">= 1.0 (H100)")
        )
        return recs[0]

    first = kernel_row("kernel gpu-lanes aes-128-ctr", ["--impl", "gpu-lanes"])
    kernel_row("kernel gpu-ttable aes-128-ctr", ["--impl", "gpu-ttable"])
    kernel_row("kernel gpu-ref aes-128-ctr (the study's design)", ["--impl", "gpu-ref"])
    kernel_row("kernel gpu-lanes aes-128-ecb encrypt", ["--mode", "ecb"])
    kernel_row(
        "kernel gpu-lanes aes-128-ecb decrypt", ["--mode", "ecb", "--op", "decrypt"]
    )
    kernel_row("kernel gpu-lanes aes-256-ctr", ["--cipher", "aes-256-ctr"])
    e2e = {}
    for label, args in (
        ("serial", ["--streams", "1"]),
        ("4 streams", ["--streams", "4"]),
    ):
        g = gbps(run_json(base + args), "t_total")
        e2e[label] = g
        rows.append(
            (
                f"end to end gpu-lanes aes-128-ctr, {label}",
                g,
                f"{g / limit['limit_gbps']:.2f} of copy limit",
                f">= {E2E_GOAL}" if label != "serial" else "",
            )
        )
    nproc = os.cpu_count() or 1
    host = host_openssl_gbps(nproc, 1 if a.quick else 3)

    print(
        f"ciphersweep GPU benchmark: {first['gpu_model']}, driver {first['gpu_driver']}, "
        f"{size} per repetition, medians"
    )
    print(
        f"copy limit (aes-cuda-copylimit, 1 GiB): H2D {limit['h2d_alone_gbs']} GB/s, "
        f"D2H {limit['d2h_alone_gbs']} GB/s alone; {limit['h2d_gbs']} / {limit['d2h_gbs']} GB/s "
        f"at once -> limit {limit['limit_gbps']} Gbps of data through (the best mix of "
        f"these modes: {limit['mix_gbps']} Gbps); {limit['how']}\n"
    )
    print(f"{'figure':52} {'Gbps':>9}  {'ratio':28} target")
    for label, g, ratio, target in rows:
        print(f"{label:52} {g:9.1f}  {ratio:28} {target}")
    if host is None:
        print(
            f"{'host OpenSSL, ' + str(nproc) + ' processes':52} {'n/a':>9}  (openssl speed gave no figure)"
        )
    else:
        print(
            f"{'host OpenSSL speed -multi ' + str(nproc) + ' -evp aes-128-ctr':52} {host:9.1f}  "
            f"GPU end to end (4 streams) / host = {e2e['4 streams'] / host:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
