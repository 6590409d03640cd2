#!/usr/bin/env python3
"""What the byte-oriented GCM costs (not a test): gcm-byte against the byte-oriented
`ref` CTR beneath it and against the T-table gcm-ref, on the same core.

Usage: python3 kernels/bench/gcm_byte.py [--build build/kernels] [--rounds 5] [--quick]

gcm-byte runs the byte-oriented AES block of `ref` once per block and adds GHASH
(SP 800-38D Algorithm 1, bit by bit), so its time per byte is at least that of `ref`
CTR; gcm-ref (T-table AES, 4-bit-table GHASH) is faster than either.  Each pair runs
alternately (A, B, A, B, ...; bench.py's side_by_side), pinned to one core; the ratios
are of the medians of t_total (key setup + the whole message) and of the fastest
repetitions.  Prints one table.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import options, side_by_side

GCM_BYTE = ["--cipher", "aes-128-gcm", "--impl", "gcm-byte"]
AGAINST = [
    ("ref CTR", ["--impl", "ref", "--mode", "ctr"]),
    ("gcm-ref", ["--cipher", "aes-128-gcm", "--impl", "gcm-ref"]),
]
SIZES = ["20B", "5KiB", "64KiB"]


def main() -> int:
    a = options().parse_args()
    seq = str(a.build / "aes-seq")
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    rounds = 2 if a.quick else a.rounds
    reps = ["--reps", "20" if a.quick else "200", "--warmup", "5"]
    print(
        f"# gcm-byte against the byte-oriented ref CTR and gcm-ref, one core ({' '.join(pin) or 'unpinned'})"
    )
    print(
        "# ratio = t(gcm-byte) / t(other): medians of t_total, and of the fastest repetitions"
    )
    print(
        f"{'size':<7} {'against':<9} {'gcm-byte us':>12} {'other us':>10} {'ratio':>7} {'best':>7}"
    )
    for size in SIZES:
        for label, other in AGAINST:
            common = ["--size", size, *reps]
            m_a, m_b, _, _, ta, tb = side_by_side(
                [*pin, seq, *GCM_BYTE, *common], [*pin, seq, *other, *common], rounds
            )
            print(
                f"{size:<7} {label:<9} {m_a * 1e6:12.2f} {m_b * 1e6:10.2f} "
                f"{m_a / m_b:7.2f} {min(ta) / min(tb):7.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
