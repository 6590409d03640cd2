#!/usr/bin/env python3
"""AEAD throughput side by side (not a test): every Ascon-AEAD128 and AES-128-GCM impl at
5 KiB and 1 MiB, with OpenSSL EVP aes-128-gcm (aes-openssl) beside it.

Usage: python3 kernels/bench/aead.py [--build build/kernels] [--rounds 5] [--quick]

Each impl runs alternately with OpenSSL (A, B, A, B, ...; bench.py's side_by_side),
pinned to one core; throughput = bytes / median t_total (key setup + encryption, the
same span for both sides), and the ratio impl / OpenSSL from the medians and from the
fastest repetitions.  Goal: gcm-aesni >= 0.7x OpenSSL's aes-128-gcm.  Prints one table.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import options, run, side_by_side

IMPLS = [
    ("ascon-aead128", "ascon-ref"),
    ("ascon-aead128", "ascon-opt64"),
    ("ascon-aead128", "ascon-lowsize"),
    ("aes-128-gcm", "gcm-byte"),
    ("aes-128-gcm", "gcm-ref"),
    ("aes-128-gcm", "gcm-aesni"),
    ("aes-128-gcm", "gcm-aesni/no-vaes"),  # CIPHERSWEEP_DISABLE_IMPLS=gcm-vaes
]
SIZES = [("5KiB", 5 * 1024), ("1MiB", 1 << 20)]


def reps_for(size: int, impl: str, quick: bool) -> int:
    """About 20 ms of work per run at the slowest impl's speed (ascon-ref ~10 MB/s)."""
    slow = 10e6 if impl == "ascon-ref" else 200e6
    reps = max(3, min(2000, int(0.02 * slow / size)))
    return max(3, reps // 4) if quick else reps


def available(seq: Path, cipher: str, impl: str) -> bool:
    argv = [str(seq), "--cipher", cipher, "--impl", impl, "--size", "16", "--reps", "1"]
    return subprocess.run(argv, capture_output=True, check=False).returncode == 0


def main() -> int:
    a = options().parse_args()
    seq, ossl = a.build / "aes-seq", a.build / "aes-openssl"
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    rounds = 2 if a.quick else a.rounds
    rows = []
    for cipher, row in IMPLS:
        impl = row.split("/")[0]
        env = (
            {"CIPHERSWEEP_DISABLE_IMPLS": "gcm-vaes"}
            if row.endswith("no-vaes")
            else None
        )
        if not available(seq, cipher, impl):
            rows.append((row, "n/a: not available on this CPU", "", "", ""))
            continue
        cells = []
        for label, size in SIZES:
            reps = ["--reps", str(reps_for(size, impl, a.quick)), "--warmup", "2"]
            common = ["--size", label] + reps
            mine = pin + [str(seq), "--cipher", cipher, "--impl", impl] + common
            ref = pin + [str(ossl), "--cipher", "aes-128-gcm"] + common
            m_a, m_b, _, _, ta, tb = side_by_side(mine, ref, rounds, env_a=env)
            cells.append(
                f"{size / m_a / 1e6:9.1f} MB/s  x{m_b / m_a:5.2f} (best x{min(tb) / min(ta):5.2f})"
            )
            cells.append(f"{size / m_b / 1e6:7.1f}")
        rows.append((row, *cells))
    info = run([str(ossl), "--cipher", "aes-128-gcm", "--size", "16", "--reps", "1"])[0]
    print(
        f"# AEAD throughput, one core ({' '.join(pin) or 'unpinned'}); {info['cpu_model']}, "
        f"{info['openssl_version']}; cflags: {info['cflags']}"
    )
    print(
        "# ratio = impl / OpenSSL EVP aes-128-gcm (medians of t_total; best = fastest reps)"
    )
    head = (
        "impl",
        "5 KiB: impl, ratio",
        "OpenSSL MB/s",
        "1 MiB: impl, ratio",
        "OpenSSL MB/s",
    )
    print(f"{head[0]:<18} {head[1]:<44} {head[2]:>12} {head[3]:<44} {head[4]:>12}")
    for r in rows:
        print(f"{r[0]:<18} {r[1]:<44} {r[2]:>12} {r[3]:<44} {r[4]:>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
