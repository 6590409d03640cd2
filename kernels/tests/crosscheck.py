#!/usr/bin/env python3
"""Command-line checks of the kernel binaries against the real `openssl enc`.

Usage: crosscheck.py --build BUILD_DIR GROUP
Groups: usage fault seq omp mpi mpi_more mpi32 openssl output roundtrip (one ctest test
each).
Exit 0: passed, 1: failed, 77: skipped (a prerequisite is missing; the reason is printed).
Standard library only (jsonschema/yaml are used for the record check when importable).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SKIP = 77
# Open MPI 4.x's mpirun may report a rank that ended normally as "exiting improperly"
# with PID 0: a race in its own bookkeeping of the rank's exit on a loaded machine
# (open-mpi/ompi#7833, left unfixed on 4.x). Such a launch runs once more; a rank that
# really ends without MPI_Finalize is named with its own PID and fails as before.
MPIRUN_EXIT_RACE = " with PID 0 on"
MiB = 1 << 20
SIZES = [1, 15, 16, 17, MiB + 48]
CARRY_IV = "0123456789abcdefffffffffffffffff"  # low 64 bits all ones: carry at once
DEFAULT_KEY = "000102030405060708090a0b0c0d0e0f"
DEFAULT_IV = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
HERE = Path(__file__).resolve().parent
SCHEMA = HERE.parent.parent / "workflow" / "schemas" / "record.schema.yaml"


class Checker:
    def __init__(self, build: Path, tmp: Path) -> None:
        self.build = build
        self.tmp = tmp
        self.failures = 0
        self.checks = 0
        self.rng = random.Random(20240607)
        env = dict(os.environ)
        env.update(
            OMPI_ALLOW_RUN_AS_ROOT="1",
            OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
            OMPI_MCA_rmaps_base_oversubscribe="1",
            # Open MPI 4.1 keeps one session directory per user and host
            # (/tmp/ompi.HOST.UID) and the first mpirun to finish removes it while
            # another creates its own in it ("A call to mkdir was unable to create the
            # desired directory", open-mpi/ompi#8510): ctest -j runs several checkers
            # at once, so each keeps its sessions under its own scratch directory.
            OMPI_MCA_orte_tmpdir_base=str(tmp),
        )
        env.pop("OPENSSL_ia32cap", None)
        self.env = env
        self.n = 0

    # ---- helpers ----
    def binary(self, name: str) -> Path:
        return self.build / name

    def run(
        self, argv: list[str], timeout: int = 120
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            argv, check=False, capture_output=True, timeout=timeout, env=self.env
        )

    def expect(self, ok: bool, what: str, detail: str = "") -> bool:
        self.checks += 1
        if not ok:
            self.failures += 1
            print(f"FAIL {what}" + (f"\n     {detail}" if detail else ""))
        return ok

    def path(self, stem: str) -> Path:
        self.n += 1
        return self.tmp / f"{self.n:04d}-{stem}"

    def data(self, size: int) -> Path:
        p = self.path(f"in{size}.bin")
        p.write_bytes(self.rng.randbytes(size))
        return p

    def openssl_enc(
        self,
        cipher: str,
        key: str,
        iv: str | None,
        src: Path,
        decrypt: bool = False,
        nopad: bool = False,
    ) -> bytes:
        out = self.path("openssl.out")
        argv = [
            "openssl",
            "enc",
            f"-{cipher}",
            "-K",
            key,
            "-in",
            str(src),
            "-out",
            str(out),
        ]
        if cipher.startswith("bf-"):
            argv += ["-provider", "legacy", "-provider", "default"]
        if iv is not None:
            argv += ["-iv", iv]
        if decrypt:
            argv.append("-d")
        if nopad:
            argv.append("-nopad")
        r = self.run(argv)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: {r.stderr.decode()}")
        return out.read_bytes()

    def kernel(
        self, launcher: list[str], prog: str, args: list[str]
    ) -> tuple[int, bytes, str, bytes]:
        """Run a kernel with --output; returns rc, output bytes, stderr, stdout."""
        out = self.path("kernel.out")
        argv = (
            launcher
            + [str(self.binary(prog))]
            + args
            + ["--reps", "1", "--warmup", "0", "--output", str(out)]
        )
        r = self.run(argv)
        if (
            r.returncode != 0
            and launcher[:1] == ["mpirun"]
            and MPIRUN_EXIT_RACE in r.stderr.decode(errors="replace")
        ):
            print(f"note: mpirun's exit race (PID 0), run once more: {' '.join(argv)}")
            r = self.run(argv)
        data = out.read_bytes() if out.exists() else b""
        return r.returncode, data, r.stderr.decode(errors="replace"), r.stdout

    def records_ok(self, stdout: bytes, what: str) -> None:
        lines = [json.loads(x) for x in stdout.decode().splitlines() if x.strip()]
        self.expect(
            len(lines) == 1
            and lines[0].get("verified") is True
            and lines[0].get("status") == "ok",
            f"{what}: one verified record",
            stdout.decode()[:300],
        )

    def aes_cross(
        self,
        launcher: list[str],
        prog: str,
        extra: list[str],
        label: str,
        sizes: list[int] = SIZES,
        modes: tuple[str, ...] = ("ecb", "ctr"),
        decrypt: bool = True,
        random_ctr_iv: bool = True,
    ) -> None:
        """Encrypt (and decrypt the ciphertext) with the kernel; compare with openssl enc.
        CTR from a random IV and from CARRY_IV (``random_ctr_iv`` false: CARRY_IV only,
        whose counter carries out of its low 64 bits at the first block)."""
        for mode in modes:
            for size in sizes:
                key = self.rng.randbytes(16).hex()
                if mode == "ecb":
                    ivs = [self.rng.randbytes(16).hex()]
                elif random_ctr_iv:
                    ivs = [self.rng.randbytes(16).hex(), CARRY_IV]
                else:
                    ivs = [CARRY_IV]
                for iv in ivs:
                    src = self.data(size)
                    cipher = f"aes-128-{mode}"
                    want = self.openssl_enc(
                        cipher, key, iv if mode == "ctr" else None, src
                    )
                    what = f"{label} {mode} encrypt {size} B iv={iv[-8:]}"
                    rc, got, err, so = self.kernel(
                        launcher,
                        prog,
                        extra
                        + [
                            "--mode",
                            mode,
                            "--key",
                            key,
                            "--iv",
                            iv,
                            "--input",
                            str(src),
                        ],
                    )
                    if self.expect(rc == 0, what + ": exit 0", err.strip()):
                        self.expect(got == want, what + ": output == openssl enc")
                        self.records_ok(so, what)
                    if not decrypt:
                        continue
                    ct = self.path("ct.bin")
                    ct.write_bytes(want)
                    what = f"{label} {mode} decrypt {size} B"
                    rc, got, err, _ = self.kernel(
                        launcher,
                        prog,
                        extra
                        + [
                            "--mode",
                            mode,
                            "--op",
                            "decrypt",
                            "--ciphertext-input",
                            "--key",
                            key,
                            "--iv",
                            iv,
                            "--input",
                            str(ct),
                        ],
                    )
                    if self.expect(rc == 0, what + ": exit 0", err.strip()):
                        self.expect(
                            got == src.read_bytes(), what + ": decrypt(encrypt(x)) == x"
                        )
            if mode == "ecb":  # --nopad like openssl enc -nopad
                key = self.rng.randbytes(16).hex()
                src = self.data(4096)
                want = self.openssl_enc("aes-128-ecb", key, None, src, nopad=True)
                rc, got, err, _ = self.kernel(
                    launcher,
                    prog,
                    extra
                    + ["--mode", "ecb", "--nopad", "--key", key, "--input", str(src)],
                )
                self.expect(
                    rc == 0 and got == want,
                    f"{label} ecb --nopad == openssl enc -nopad",
                    err,
                )

    def impls(self) -> list[str]:
        names = []
        for impl in ["ref", "ttable", "aesni", "vaes256", "vaes"]:
            r = self.run(
                [
                    str(self.binary("aes-seq")),
                    "--impl",
                    impl,
                    "--size",
                    "16",
                    "--reps",
                    "1",
                    "--warmup",
                    "0",
                ]
            )
            if r.returncode == 0:
                names.append(impl)
            else:
                print(
                    f"note: impl {impl} not available here: {r.stderr.decode().strip()}"
                )
        return names

    def mpirun(self, n: int) -> list[str]:
        # one machine: ob1's shared memory, without UCX's search for network devices
        # at each rank's start (as the workflow launches MPI points locally)
        return [
            "mpirun",
            "--oversubscribe",
            "--allow-run-as-root",
            *("--mca", "pml", "ob1"),
            "-np",
            str(n),
        ]

    # ---- groups ----
    def g_usage(self) -> None:
        seq = str(self.binary("aes-seq"))
        cases: list[tuple[str, list[str]]] = [
            ("aes-seq", ["--size", "0"]),
            ("aes-seq", ["--size", "12XB"]),
            ("aes-seq", ["--size", "-5"]),
            ("aes-seq", ["--size", "1.5MiB"]),
            ("aes-seq", ["--impl", "nosuchimpl"]),
            ("aes-seq", ["--mode", "cbc"]),
            ("aes-seq", ["--op", "sign"]),
            ("aes-seq", ["--frobnicate"]),
            ("aes-seq", ["--reps"]),
            ("aes-seq", ["--reps", "0"]),
            ("aes-seq", ["--target-ci", "0"]),
            ("aes-seq", ["--target-ci", "2%"]),
            ("aes-seq", ["--max-reps", "10"]),
            ("aes-seq", ["--target-ci", "0.02", "--reps", "9", "--max-reps", "8"]),
            ("aes-seq", ["--target-ci", "0.02", "--max-seconds", "0"]),
            ("aes-seq", ["--threads", "0"]),
            ("aes-seq", ["--threads", "2"]),
            ("aes-seq", ["--block-threads", "128"]),
            ("aes-seq", ["--streams", "2"]),
            ("aes-seq", ["--chunk", "1MiB"]),
            ("aes-seq", ["--key", "00112233"]),
            ("aes-seq", ["--key", "zz"]),
            ("aes-seq", ["--iv", "0011"]),
            ("aes-seq", ["--cipher", "aes-128-cbc"]),
            ("aes-seq", ["--cipher", "aes-128-ecb", "--mode", "ctr"]),
            ("aes-seq", ["--energy", "wallplug"]),
            ("aes-seq", ["--inject-fault", "explode"]),
            ("aes-seq", ["--size", "1KiB", "--input", "/dev/null"]),
            ("aes-seq", ["--input", "/nonexistent/file"]),
            ("aes-seq", ["--mode", "ecb", "--nopad", "--size", "17"]),
            ("aes-seq", ["--ciphertext-input"]),
            ("aes-seq", ["extra-argument"]),
            ("aes-omp", ["--threads", "0"]),
            ("aes-omp", ["--threads", "x"]),
            ("aes-openssl", ["--cipher", "no-such-cipher"]),
            ("aes-openssl", ["--impl", "ttable"]),
            ("aes-openssl", ["--cipher", "aes-256-ctr", "--key", DEFAULT_KEY]),
            ("aes-mpi", ["--size", "12XB"]),
            ("aes-mpi", ["--mode", "xts"]),
        ]
        for prog, args in cases:
            if not self.binary(prog).exists():
                continue
            r = self.run([str(self.binary(prog))] + args)
            err = r.stderr.decode()
            what = f"{prog} {' '.join(args)}"
            self.expect(
                r.returncode == 2, f"{what}: exit 2", f"rc={r.returncode} {err.strip()}"
            )
            self.expect(
                err.count("\n") == 1 and err.startswith(prog + ": "),
                f"{what}: one line on stderr",
                repr(err),
            )
            self.expect(r.stdout == b"", f"{what}: nothing on stdout")
        # an impl the CPU lacks (emulated with CIPHERSWEEP_DISABLE_IMPLS) is a usage error,
        # and auto falls back to the next best
        env = dict(self.env, CIPHERSWEEP_DISABLE_IMPLS="vaes,vaes256,aesni")
        r = subprocess.run(
            [seq, "--impl", "vaes"], check=False, capture_output=True, env=env
        )
        self.expect(
            r.returncode == 2 and r.stderr.decode().count("\n") == 1,
            "--impl vaes when unavailable: exit 2, one line",
            r.stderr.decode(),
        )
        r = subprocess.run(
            [seq, "--size", "1KiB", "--reps", "1"],
            check=False,
            capture_output=True,
            env=env,
        )
        self.expect(
            r.returncode == 0 and json.loads(r.stdout.decode())["impl"] == "ttable",
            "auto without vaes/vaes256/aesni picks ttable",
            r.stderr.decode(),
        )
        r = self.run([seq, "--size", "12XB"])
        self.expect(
            r.stderr.decode().strip()
            == "aes-seq: --size: '12XB' is not a size (allowed: 0, N, "
            "NKB, NMB, NGB, NKiB, NMiB, NGiB; 0 for the AEADs only)",
            "exact --size message",
            r.stderr.decode(),
        )
        # messages that say what is wrong and what is allowed
        here = str(Path(__file__).resolve().parent)
        for prog, args, want in [
            (
                "aes-seq",
                ["--input", here],
                f"--input: cannot read '{here}': Is a directory",
            ),
            (
                "aes-omp",
                ["--threads", "100000"],
                "--threads: '100000' is not an integer in 1..4096",
            ),
            (
                "aes-seq",
                ["--key", "00zz"],
                "--key: '00zz': 'z' at position 3 is not a hex digit (allowed: 0-9, a-f, A-F)",
            ),
            (
                "aes-seq",
                ["--iv", "abc"],
                "--iv: 'abc': 3 hex digits, an odd number (allowed: two digits per byte)",
            ),
        ]:
            if not self.binary(prog).exists():
                continue
            r = self.run([str(self.binary(prog))] + args)
            self.expect(
                r.returncode == 2 and r.stderr.decode().strip() == f"{prog}: {want}",
                f"{prog} {' '.join(args)}: exact message",
                r.stderr.decode(),
            )
        for flag in ["--help", "--version"]:
            r = self.run([seq, flag])
            self.expect(
                r.returncode == 0 and r.stdout, f"aes-seq {flag}: exit 0 with text"
            )
        # sizes with every suffix are accepted (and mean what they say)
        for spec, n in [
            ("100", 100),
            ("100B", 100),
            ("2KB", 2000),
            ("2KiB", 2048),
            ("1MB", 10**6),
            ("1MiB", MiB),
        ]:
            r = self.run(
                [
                    seq,
                    "--size",
                    spec,
                    "--reps",
                    "1",
                    "--warmup",
                    "0",
                    "--impl",
                    "ttable",
                ]
            )
            ok = (
                r.returncode == 0
                and json.loads(r.stdout.decode().splitlines()[0])["bytes"] == n
            )
            self.expect(ok, f"--size {spec} == {n} bytes", r.stderr.decode())

    def g_fault(self) -> None:
        runs = [
            ([], "aes-seq", []),
            ([], "aes-omp", ["--threads", "2"]),
            ([], "aes-openssl", []),
            ([], "aes-openssl", ["--cipher", "chacha20"]),
            ([], "aes-seq", ["--mode", "ecb"]),
        ]
        if shutil.which("mpirun") and self.binary("aes-mpi").exists():
            runs.append((self.mpirun(2), "aes-mpi", []))
        for launcher, prog, extra in runs:
            if not self.binary(prog).exists():
                continue
            r = self.run(
                launcher
                + [
                    str(self.binary(prog)),
                    "--size",
                    "100KiB",
                    "--reps",
                    "2",
                    "--inject-fault",
                    "corrupt",
                ]
                + extra
            )
            err = r.stderr.decode()
            what = f"{prog} {' '.join(extra)} --inject-fault corrupt"
            self.expect(
                r.returncode == 1 or (launcher and r.returncode != 0),
                f"{what}: exit 1",
                f"rc={r.returncode}",
            )
            self.expect(
                r.stdout == b"", f"{what}: no record on stdout", r.stdout.decode()[:200]
            )
            self.expect(
                "verification FAILED: first differing block" in err,
                f"{what}: names the block",
                err.strip(),
            )
        # a bad padding in ciphertext input is a runtime failure too
        bad = self.data(32)
        r = self.run(
            [
                str(self.binary("aes-seq")),
                "--mode",
                "ecb",
                "--op",
                "decrypt",
                "--ciphertext-input",
                "--input",
                str(bad),
            ]
        )
        self.expect(
            r.returncode == 1 and r.stdout == b"",
            "bad padding -> exit 1, no record",
            r.stderr.decode(),
        )

    def g_seq(self) -> None:
        for impl in self.impls():
            sizes = SIZES if impl != "ref" else [1, 15, 16, 17, 64 * 1024 + 48]
            self.aes_cross([], "aes-seq", ["--impl", impl], f"seq/{impl}", sizes=sizes)

    def g_omp(self) -> int:
        if not self.binary("aes-omp").exists():
            print("skip: aes-omp was not built (no OpenMP)")
            return SKIP
        for t in range(1, 5):
            self.aes_cross(
                [],
                "aes-omp",
                ["--threads", str(t)],
                f"omp/{t}",
                sizes=[1, 17, 3 * 16 + 5, MiB + 48],
                decrypt=(t in (1, 3)),
            )
        self.aes_cross(
            [],
            "aes-omp",
            ["--threads", "3", "--impl", "ttable"],
            "omp/3/ttable",
            sizes=[16, MiB + 48],
        )
        return 0

    def mpi_cross(self, ranks: list[int]) -> int:
        """aes-mpi against openssl enc at these rank counts (SKIP without MPI)."""
        if not self.binary("aes-mpi").exists():
            print("skip: aes-mpi was not built (no MPI)")
            return SKIP
        if not shutil.which("mpirun"):
            print("skip: mpirun not found")
            return SKIP
        for n in ranks:
            self.aes_cross(
                self.mpirun(n),
                "aes-mpi",
                [],
                f"mpi/{n}",
                sizes=[17, MiB + 48],
                decrypt=(n in (3, 7)),
            )
        return 0

    # mpi and mpi_more: two ctest tests that `ctest -j` runs side by side (each is
    # dozens of mpirun launches, mostly waiting for Open MPI to start)
    def g_mpi(self) -> int:
        if self.mpi_cross([1, 2, 3]) == SKIP:
            return SKIP
        self.mpi_nodelay()
        return 0

    def mpi_nodelay(self) -> None:
        """Each rank of aes-mpi reaches MPI_Finalize with TCP_NODELAY on every TCP
        connection it holds (src/sockets_nodelay.c: its last message to mpirun's PMIx
        server then leaves without waiting 40 ms for a delayed acknowledgement), as
        tests/nodelay_probe.c, preloaded into the ranks only, sees it there."""
        probe = self.build / "tests" / "libnodelay_probe.so"
        log = self.path("nodelay.log")
        argv = [*self.mpirun(2), "env", f"LD_PRELOAD={probe}", f"CS_NODELAY_LOG={log}"]
        rc, _got, err, _so = self.kernel(argv, "aes-mpi", ["--size", "1KiB"])
        ranks = (
            [ln.split() for ln in log.read_text().splitlines()] if log.exists() else []
        )
        self.expect(
            rc == 0
            and len(ranks) == 2
            and all(int(c) >= 1 and w == "0" for _pid, c, w in ranks),
            "mpi/2: each rank's TCP connections have TCP_NODELAY at MPI_Finalize "
            "(pid, connections, without it): " + "; ".join(map(" ".join, ranks)),
            err,
        )

    def g_mpi_more(self) -> int:
        if self.mpi_cross([4, 7]) == SKIP:
            return SKIP
        # fewer blocks than ranks; one record from rank 0 only, ranks field
        rc, _got, err, so = self.kernel(
            self.mpirun(7), "aes-mpi", ["--mode", "ecb", "--size", "33"]
        )
        recs = [json.loads(x) for x in so.decode().splitlines() if x.strip()]
        self.expect(
            rc == 0
            and len(recs) == 1
            and recs[0]["ranks"] == 7
            and recs[0]["out_bytes"] == 48,
            "mpi/7 with 3 blocks: one record, ranks 7, padded output",
            err,
        )
        if recs:
            r = recs[0]
            self.expect(
                all(
                    isinstance(r[k], float)
                    for k in ["t_bcast", "t_scatter", "t_gather"]
                ),
                "mpi record has t_bcast/t_scatter/t_gather",
            )
            self.expect(
                r["clock"] == "MPI_Wtime" and r["mpi_version"],
                "mpi clock and mpi_version",
            )
        return 0

    def g_mpi32(self) -> int:
        """32 ranks on odd shapes: 1 byte (31 ranks with none), 16 x 32 - 1 and
        1 KiB + 5 bytes, ECB and CTR both ways, against openssl enc. CTR from CARRY_IV
        only: the counter of every block after the first carries out of its low 64
        bits, so each rank's counter offset is checked as a random IV checks it, and
        its carry too (the mpi group runs both IVs at 1-7 ranks); a 32-rank launch
        costs seconds of CPU on 2 cores."""
        if not self.binary("aes-mpi").exists() or not shutil.which("mpirun"):
            print("skip: aes-mpi or mpirun missing")
            return SKIP
        self.aes_cross(
            self.mpirun(32),
            "aes-mpi",
            [],
            "mpi/32",
            sizes=[1, 511, 1029],
            random_ctr_iv=False,
        )
        return 0

    def g_openssl(self) -> None:
        prog = "aes-openssl"
        self.aes_cross([], prog, [], "openssl", sizes=[1, 17, MiB + 48])
        # other ciphers: the kernel's own verification runs; compare with openssl enc where
        # it can (not AEAD)
        cases = [
            ("aes-256-ctr", True),
            ("aes-192-ecb", True),
            ("aes-128-cbc", True),
            ("aes-256-ofb", True),
            ("chacha20", True),
            ("des-ede3-cbc", True),
            ("aes-256-gcm", False),
            ("chacha20-poly1305", False),
        ]
        legacy = (
            self.run(
                ["openssl", "list", "-providers", "-provider", "legacy"]
            ).returncode
            == 0
        )
        if legacy:
            cases.append(("bf-cbc", True))
            self.blowfish_64()
        else:
            print("note: OpenSSL legacy provider missing: bf-cbc not checked")
        for cipher, with_enc in cases:
            for size in [17, 4096]:
                for op in ["encrypt", "decrypt"]:
                    rc, got, err, so = self.kernel(
                        [], prog, ["--cipher", cipher, "--size", str(size), "--op", op]
                    )
                    what = f"openssl {cipher} {op} {size} B"
                    if not self.expect(rc == 0, what + ": exit 0", err.strip()):
                        continue
                    self.records_ok(so, what)
                    rec = json.loads(so.decode().splitlines()[0])
                    self.expect(
                        rec["impl"] == "evp" and rec["cipher"] == cipher,
                        what + ": impl/cipher",
                    )
                    if with_enc and op == "encrypt":
                        keylen, ivlen = self.lengths(cipher)
                        src = self.path("gen.bin")
                        self.run(
                            [
                                str(self.binary("aes-seq")),
                                "--gen-input",
                                str(src),
                                "--size",
                                str(size),
                            ]
                        )
                        key = "".join(f"{i:02x}" for i in range(keylen))
                        iv = (
                            "".join(f"{0xF0 + i:02x}" for i in range(ivlen))
                            if ivlen
                            else None
                        )
                        want = self.openssl_enc(cipher, key, iv, src)
                        self.expect(got == want, what + ": output == openssl enc")

    def blowfish_64(self) -> None:
        """--key-bits 64: a true 64-bit Blowfish key (Eric Young's ECB vector: key and
        plaintext 00..00 give 4ef997456198dd78), not the zero-padded 128-bit key that
        `openssl enc -K` makes of 8 bytes; a fixed-length cipher refuses another."""
        src = self.path("zero8.bin")
        src.write_bytes(bytes(8))
        args = ["--cipher", "bf-ecb", "--key-bits", "64", "--key", "00" * 8]
        rc, got, err, so = self.kernel(
            [], "aes-openssl", args + ["--nopad", "--input", str(src)]
        )
        what = "openssl bf-ecb --key-bits 64"
        if self.expect(rc == 0, what + ": exit 0", err.strip()):
            self.records_ok(so, what)
            self.expect(
                json.loads(so.decode().splitlines()[0])["key_bits"] == 64,
                what + ": key_bits 64",
            )
            self.expect(
                got.hex() == "4ef997456198dd78",
                what + ": Eric Young's vector",
                got.hex(),
            )
        rc, _, err, _ = self.kernel(
            [],
            "aes-openssl",
            ["--cipher", "aes-128-cbc", "--key-bits", "64", "--size", "16"],
        )
        self.expect(
            rc == 2
            and "--key-bits: OpenSSL refuses a 64-bit key for aes-128-cbc" in err,
            "aes-128-cbc --key-bits 64: usage error",
            err.strip(),
        )

    @staticmethod
    def lengths(cipher: str) -> tuple[int, int]:
        """Key and IV lengths (bytes) of the ciphers checked against openssl enc."""
        return {
            "aes-256-ctr": (32, 16),
            "aes-192-ecb": (24, 0),
            "aes-128-cbc": (16, 16),
            "aes-256-ofb": (32, 16),
            "chacha20": (32, 16),
            "des-ede3-cbc": (24, 8),
            "bf-cbc": (16, 8),
        }[cipher]

    def g_output(self) -> None:
        """--output with the default key/IV vs openssl enc; --gen-input; the record."""
        seq = str(self.binary("aes-seq"))
        gen = self.path("gen.bin")
        r = self.run([seq, "--gen-input", str(gen), "--size", "1MiB", "--seed", "7"])
        self.expect(
            r.returncode == 0 and gen.stat().st_size == MiB and r.stdout == b"",
            "--gen-input writes the data set and nothing else",
        )
        gen2 = self.path("gen2.bin")
        self.run([seq, "--gen-input", str(gen2), "--size", "1MiB", "--seed", "7"])
        gen3 = self.path("gen3.bin")
        self.run([seq, "--gen-input", str(gen3), "--size", "1MiB", "--seed", "8"])
        self.expect(gen.read_bytes() == gen2.read_bytes(), "generator is deterministic")
        self.expect(gen.read_bytes() != gen3.read_bytes(), "seed changes the data")
        for mode in ["ecb", "ctr"]:
            want = self.openssl_enc(
                f"aes-128-{mode}",
                DEFAULT_KEY,
                DEFAULT_IV if mode == "ctr" else None,
                gen,
            )
            for args in (["--size", "1MiB", "--seed", "7"], ["--input", str(gen)]):
                rc, got, err, _so = self.kernel([], "aes-seq", ["--mode", mode] + args)
                self.expect(
                    rc == 0 and got == want,
                    f"aes-seq --mode {mode} {args[0]}: --output == "
                    f"openssl enc -aes-128-{mode} (default key/IV)",
                    err,
                )
        # the records: 3 reps by default, schema, provenance
        r = self.run([seq, "--size", "64KiB"])
        recs = [json.loads(x) for x in r.stdout.decode().splitlines()]
        self.expect(
            len(recs) == 3 and [x["rep"] for x in recs] == [0, 1, 2],
            "3 records, rep 0..2",
        )
        ossl = self.run(["openssl", "version"]).stdout.decode().strip()
        for rec in recs[:1]:
            self.schema_check(rec)
            self.expect(
                ossl.startswith(rec["openssl_version"]),
                "openssl_version matches `openssl version`",
                f"{rec['openssl_version']!r} vs {ossl!r}",
            )
            self.expect(
                rec["compiler"].startswith(("GCC", "Clang")) and rec["cflags"],
                "compiler and cflags recorded",
            )
            self.expect(
                rec["timestamp"].endswith("Z") and "T" in rec["timestamp"],
                "ISO 8601 UTC timestamp",
            )
            self.expect(
                rec["impl"] in ("vaes", "vaes256", "aesni", "ttable"),
                "auto picks the best impl",
            )
            self.expect(
                rec["joules"] is None or rec["joules"] > 0, "joules null or positive"
            )
            self.expect(
                rec["joules"] is not None or bool(rec["energy_note"]),
                "energy note says why",
            )
        # strings in records are JSON-escaped (the input path here)
        odd = self.tmp / 'in "quoted"\\ tab\t.bin'
        odd.write_bytes(b"x" * 100)
        r = self.run([seq, "--input", str(odd), "--reps", "1"])
        try:
            rec = json.loads(r.stdout.decode())
            self.expect(
                rec["input"] == str(odd) and rec["seed"] is None,
                "input path escaped in the record",
            )
        except ValueError as e:
            self.expect(False, "record with an odd input path is valid JSON", str(e))
        js = self.path("rec.jsonl")
        env_job = dict(self.env, SLURM_JOB_ID="4242", SLURM_JOB_NODELIST="node[1-2]")
        r = subprocess.run(
            [seq, "--size", "1KiB", "--reps", "2", "--json", str(js)],
            check=False,
            capture_output=True,
            env=env_job,
        )
        recs = [json.loads(x) for x in js.read_text().splitlines()]
        self.expect(
            r.stdout == b""
            and len(recs) == 2
            and recs[0]["slurm_job_id"] == "4242"
            and recs[0]["slurm_nodelist"] == "node[1-2]",
            "--json FILE and Slurm job fields",
        )

    def schema_check(self, rec: dict) -> None:
        try:
            import jsonschema  # type: ignore
            import yaml  # type: ignore
        except ImportError:
            schema = None
        else:
            schema = yaml.safe_load(SCHEMA.read_text()) if SCHEMA.exists() else None
        if schema is not None:
            errors = [
                e.message
                for e in jsonschema.Draft202012Validator(schema).iter_errors(rec)
            ]
            self.expect(
                not errors,
                "record validates against record.schema.yaml",
                "; ".join(errors),
            )
        else:
            print("note: jsonschema/yaml not importable: checking required fields only")
        for k in [
            "schema",
            "backend",
            "impl",
            "cipher",
            "mode",
            "op",
            "bytes",
            "ranks",
            "threads",
            "gpu",
            "rep",
            "t_total",
            "t_compute",
            "verified",
            "joules",
            "energy_source",
            "timestamp",
            "host",
            "cpu_util",
            "cpu_model",
            "openssl_version",
            "status",
        ]:
            self.expect(k in rec, f"record has {k}")

    def g_roundtrip(self) -> None:
        """decrypt(encrypt(x)) == x through every backend, default decrypt path included."""
        runs: list[tuple[list[str], str, list[str]]] = [
            ([], "aes-seq", []),
            ([], "aes-openssl", []),
        ]
        if self.binary("aes-omp").exists():
            runs.append(([], "aes-omp", ["--threads", "2"]))
        if self.binary("aes-mpi").exists() and shutil.which("mpirun"):
            runs.append((self.mpirun(3), "aes-mpi", []))
        for launcher, prog, extra in runs:
            for mode in ["ecb", "ctr"]:
                src = self.data(100_003 if mode == "ctr" else 100_000)
                rc, ct, err, _ = self.kernel(
                    launcher, prog, extra + ["--mode", mode, "--input", str(src)]
                )
                if not self.expect(rc == 0, f"{prog} {mode} encrypt", err):
                    continue
                ctf = self.path("ct.bin")
                ctf.write_bytes(ct)
                rc, pt, err, _ = self.kernel(
                    launcher,
                    prog,
                    extra
                    + [
                        "--mode",
                        mode,
                        "--op",
                        "decrypt",
                        "--ciphertext-input",
                        "--input",
                        str(ctf),
                    ],
                )
                self.expect(
                    rc == 0 and pt == src.read_bytes(),
                    f"{prog} {mode}: decrypt(encrypt(x)) == x",
                    err,
                )
                # default decrypt: plaintext input, encrypted by OpenSSL untimed, must come back
                rc, pt, err, _so = self.kernel(
                    launcher,
                    prog,
                    extra + ["--mode", mode, "--op", "decrypt", "--input", str(src)],
                )
                self.expect(
                    rc == 0 and pt == src.read_bytes(),
                    f"{prog} {mode}: default decrypt path",
                    err,
                )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, type=Path)
    ap.add_argument("group")
    a = ap.parse_args()
    if shutil.which("openssl") is None:
        print("skip: the openssl command is not installed")
        return SKIP
    if not (a.build / "aes-seq").exists():
        print(f"FAIL: {a.build}/aes-seq not built")
        return 1
    with tempfile.TemporaryDirectory(prefix="cs-check-") as tmp:
        c = Checker(a.build.resolve(), Path(tmp))
        fn = getattr(c, "g_" + a.group, None)
        if fn is None:
            print(f"unknown group {a.group}")
            return 2
        rc = fn()
        if rc == SKIP:
            return SKIP
    print(f"{a.group}: {c.checks - c.failures}/{c.checks} checks passed")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
