#!/usr/bin/env python3
"""--help of one kernel binary names exactly its own impls and options.

Usage: help_cli.py --build BUILD_DIR KERNEL   (aes-seq, aes-omp, aes-mpi, aes-openssl,
aes-cuda).  The help is read as whole words; every impl and option the kernel takes
must be there, and none that belongs only to another kernel.  The options a kernel
refuses are also checked to be refused (exit 2, one line naming the option).
Exit 0 passed, 1 failed, 77 the kernel was not built.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

AES = {"ref", "ttable", "aesni", "vaes256", "vaes"}
AEAD = {"ascon-ref", "ascon-opt64", "ascon-lowsize", "gcm-byte", "gcm-ref", "gcm-aesni"}
GPU = {"gpu-lanes", "gpu-ttable", "gpu-ref"}
EVP = {"evp"}
THREADS = {"--threads"}
GPU_FLAGS = {"--block-threads", "--device", "--streams", "--chunk"}
OPENSSL_FLAGS = {"--key-bits"}
AEAD_FLAGS = {"--ad", "ascon-aead128", "aes-128-gcm"}
MPI_WORDS = {"mpirun", "srun"}
COMMON = {
    "--mode",
    "--op",
    "--cipher",
    "--size",
    "--input",
    "--seed",
    "--key",
    "--iv",
    "--reps",
    "--warmup",
    "--batch",
    "--target-ci",
    "--json",
    "--energy",
    "auto",
}

# what each kernel must name; everything in OTHERS but not here must be absent
OWN: dict[str, set[str]] = {
    "aes-seq": AES | AEAD | AEAD_FLAGS,
    "aes-omp": AES | THREADS,
    "aes-mpi": AES | MPI_WORDS,
    "aes-openssl": EVP | OPENSSL_FLAGS,
    "aes-cuda": GPU | GPU_FLAGS,
}
OTHERS = (
    AES
    | AEAD
    | GPU
    | EVP
    | THREADS
    | GPU_FLAGS
    | OPENSSL_FLAGS
    | AEAD_FLAGS
    | MPI_WORDS
)
# an option of another kernel, with a value, that this kernel must refuse
REFUSED = {
    "aes-seq": [["--threads", "2"], ["--streams", "2"], ["--key-bits", "128"]],
    "aes-omp": [["--streams", "2"], ["--key-bits", "128"], ["--block-threads", "64"]],
    "aes-openssl": [["--threads", "2"], ["--chunk", "1MiB"]],
    "aes-cuda": [["--threads", "2"], ["--key-bits", "128"]],
    "aes-mpi": [],
}


def words(text: str) -> set[str]:
    """The help's words: options (--x-y) and names (gpu-ref, aes-128-gcm, vaes256)."""
    return set(re.findall(r"--?[a-z][a-z0-9-]*|[A-Za-z0-9][A-Za-z0-9-]*", text))


def check(binary: Path, kernel: str, env: dict[str, str]) -> list[str]:
    out = subprocess.run(
        [str(binary), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    problems = [] if out.returncode == 0 else [f"--help exit {out.returncode}"]
    have = words(out.stdout)
    if not out.stdout.startswith(f"usage: {kernel} "):
        problems.append("the first line does not name the kernel")
    for w in sorted((OWN[kernel] | COMMON) - have):
        problems.append(f"--help does not name its own '{w}'")
    for w in sorted((OTHERS - OWN[kernel]) & have):
        problems.append(f"--help names '{w}', which {kernel} does not take")
    for args in REFUSED[kernel]:
        r = subprocess.run(
            [str(binary), *args, "--size", "16"],
            capture_output=True,
            check=False,
            text=True,
            timeout=60,
            env=env,
        )
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1 or args[0] not in lines[0]:
            problems.append(
                f"{args[0]} is not refused with one line naming it: "
                f"exit {r.returncode}, {r.stderr.strip()!r}"
            )
    return problems


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", type=Path, required=True)
    ap.add_argument("kernel", choices=sorted(OWN))
    a = ap.parse_args()
    binary = a.build / a.kernel
    if not binary.exists():
        print(f"skip: {a.kernel} was not built")
        return 77
    with tempfile.TemporaryDirectory(prefix="cs-help-") as tmp:
        # aes-mpi starts as an MPI singleton: its Open MPI session directory goes under
        # this run's own scratch directory, not the per-user one in /tmp that another
        # test's mpirun may remove while it is being made (open-mpi/ompi#8510)
        env = {**os.environ, "OMPI_MCA_orte_tmpdir_base": tmp}
        problems = check(binary, a.kernel, env)
    for p in problems:
        print(f"FAIL {a.kernel}: {p}")
    if not problems:
        print(f"ok   {a.kernel} --help names its own impls and options only")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
