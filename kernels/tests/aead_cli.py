#!/usr/bin/env python3
"""Command-line checks of the AEADs (ascon-aead128, aes-128-gcm) through aes-seq.

Usage: aead_cli.py --build BUILD_DIR
Every Ascon impl reproduces vectors of the Ascon team's KAT file byte for byte (output
= ciphertext || tag), the empty-message ones included; every GCM impl the GCM
specification's test cases 4 (with AD) and 1 (empty) and a NIST CAVS AD-only vector;
an empty message (--size 0, an empty --input) gives the tag alone, the block modes
refuse it with one line;
decryption of --ciphertext-input gives the plaintext back, a wrong tag is exit 1 with
"tag mismatch", no output file and no record; every impl round-trips generated data;
the backends without AEADs and bad flags are refused with one line (exit 2).
Reuses crosscheck.py's Checker (same directory). Exit 0 passed, 1 failed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from crosscheck import HERE, Checker

KAT = HERE / "data" / "LWC_AEAD_KAT_128_128.txt"
ASCON = ["ascon-ref", "ascon-opt64", "ascon-lowsize"]
GCM = ["gcm-byte", "gcm-ref", "gcm-aesni"]
# GCM specification (McGrew & Viega), test case 4 (AES-128, 96-bit IV, 20 bytes of AD)
TC4 = {
    "key": "feffe9928665731c6d6a8f9467308308",
    "iv": "cafebabefacedbaddecaf888",
    "ad": "feedfacedeadbeeffeedfacedeadbeefabaddad2",
    "pt": "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
    "ct": "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
    "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
    "5bc94fbc3221a5db94fae95ae7121a47",
}
# The empty message (SP 800-38D: the tag alone): the GCM specification's test case 1
# (zero key and IV, no AD) and NIST CAVS gcmEncryptExtIV128 (PTlen 0, AADlen 128, Count 0)
GCM_EMPTY = [
    {
        "key": "00" * 16,
        "iv": "00" * 12,
        "ad": "",
        "pt": "",
        "ct": "58e2fccefa7e3061367f1d57a4e7455a",
    },
    {
        "key": "77be63708971c4e240d1cb79e8d77feb",
        "iv": "e0e00f19fed7ba0136a797f3",
        "ad": "7a43ec1d9c0a5a78a0b16533a6213cab",
        "pt": "",
        "ct": "209fcc8d3675ed938e9c7166709dd946",
    },
]
# KAT counts with an empty PT: no AD, 1 byte and 32 bytes of AD (the file starts with them)
ASCON_EMPTY = (1, 2, 33)


def kat_vector(count: int) -> dict[str, str]:
    """One vector of the KAT file (keys Key, Nonce, PT, AD, CT; lower-case hex)."""
    vec: dict[str, str] = {}
    for block in KAT.read_text().split("\n\n"):
        fields = dict(
            line.split(" = ", 1) if " = " in line else (line.rstrip(" ="), "")
            for line in block.strip().splitlines()
        )
        if fields.get("Count") == str(count):
            vec = {k.lower(): v.strip().lower() for k, v in fields.items()}
    return vec


class AeadChecker(Checker):
    def available(self, impl: str) -> bool:
        r = self.run(
            [str(self.binary("aes-seq")), "--cipher", cipher_of(impl), "--impl", impl]
            + ["--size", "16", "--reps", "1", "--warmup", "0"]
        )
        return r.returncode == 0

    def known_answer(self, impl: str, vec: dict[str, str]) -> None:
        """Encrypt the vector's PT: the output must be its CT; decrypt CT: PT back."""
        src = self.path("pt.bin")
        src.write_bytes(bytes.fromhex(vec["pt"]))
        flags = ["--cipher", cipher_of(impl), "--impl", impl, "--key", vec["key"]]
        flags += ["--iv", vec["iv"]] + (["--ad", vec["ad"]] if vec["ad"] else [])
        rc, out, err, so = self.kernel([], "aes-seq", flags + ["--input", str(src)])
        self.expect(rc == 0 and out.hex() == vec["ct"], f"{impl}: known answer", err)
        rec = json.loads(so.decode().splitlines()[0]) if rc == 0 else {}
        self.expect(
            rec.get("verified_by") in {"openssl", "ascon-ref", "ascon-opt64"}
            and rec.get("verified_by") != impl
            and rec.get("ad_bytes") == len(vec["ad"]) // 2,
            f"{impl}: record names its independent reference",
            str(rec.get("verified_by")),
        )
        if rec:
            self.schema_check(rec)
        ct = self.path("ct.bin")
        ct.write_bytes(bytes.fromhex(vec["ct"]))
        args = flags + ["--op", "decrypt", "--ciphertext-input", "--input", str(ct)]
        rc, out, err, so = self.kernel([], "aes-seq", args)
        self.expect(rc == 0 and out.hex() == vec["pt"], f"{impl}: decrypt CT", err)
        rec = json.loads(so.decode().splitlines()[0]) if rc == 0 else {}
        self.expect(
            rec.get("bytes") == len(vec["pt"]) // 2,
            f"{impl}: decrypt record counts the plaintext bytes",
            str(rec.get("bytes")),
        )
        bad = bytearray(bytes.fromhex(vec["ct"]))
        bad[-1] ^= 0x01
        ct.write_bytes(bytes(bad))
        rc, out, err, so = self.kernel([], "aes-seq", args)
        self.expect(
            rc == 1
            and "tag mismatch" in err
            and err.count("\n") == 1
            and out == b""
            and so == b"",
            f"{impl}: wrong tag: exit 1, 'tag mismatch', no plaintext, no record",
            f"rc={rc} err={err!r} out={len(out)} bytes",
        )

    def roundtrip(self, impl: str) -> None:
        for size in (1, 17, 4097):
            src = self.data(size)
            flags = ["--cipher", cipher_of(impl), "--impl", impl, "--ad", "00ff" * 9]
            rc, ct, err, _ = self.kernel([], "aes-seq", flags + ["--input", str(src)])
            self.expect(
                rc == 0 and len(ct) == size + 16, f"{impl} {size} B: encrypt", err
            )
            enc = self.path("ct.bin")
            enc.write_bytes(ct)
            dec = ["--op", "decrypt", "--ciphertext-input", "--input", str(enc)]
            rc, pt, err, _ = self.kernel([], "aes-seq", flags + dec)
            self.expect(
                rc == 0 and pt == src.read_bytes(), f"{impl} {size} B: round trip", err
            )
            rc, pt, err, _ = self.kernel(
                [], "aes-seq", flags + ["--op", "decrypt", "--input", str(src)]
            )
            self.expect(
                rc == 0 and pt == src.read_bytes(), f"{impl} {size} B: decrypt", err
            )

    def empty_generated(self, impl: str) -> None:
        """--size 0: the tag alone, checked against the reference; decrypt gives 0 bytes."""
        for op, out_bytes in (("encrypt", 16), ("decrypt", 0)):
            flags = [
                "--cipher",
                cipher_of(impl),
                "--impl",
                impl,
                "--size",
                "0",
                "--op",
                op,
            ]
            rc, out, err, so = self.kernel([], "aes-seq", flags + ["--ad", "0102"])
            rec = json.loads(so.decode().splitlines()[0]) if rc == 0 else {}
            self.expect(
                rc == 0
                and len(out) == out_bytes
                and rec.get("bytes") == 0
                and rec.get("out_bytes") == out_bytes
                and rec.get("ad_bytes") == 2,
                f"{impl}: --size 0 {op}: {out_bytes} bytes out, record bytes 0",
                err,
            )

    def empty_refused(self) -> None:
        """The block modes keep needing 1 byte: one line naming --size or --input."""
        empty = self.path("empty.bin")
        empty.write_bytes(b"")
        cases = [
            (["aes-seq", "--size", "0"], "--size 0"),
            (["aes-seq", "--mode", "ecb", "--input", str(empty)], "--input"),
            (["aes-openssl", "--cipher", "aes-128-gcm", "--size", "0"], "--size 0"),
        ]
        for argv, word in cases:
            r = self.run([str(self.binary(argv[0])), *argv[1:], "--reps", "1"])
            err = r.stderr.decode()
            self.expect(
                r.returncode == 2
                and err.count("\n") == 1
                and word in err
                and "empty" in err,
                f"refused: {' '.join(argv)}",
                err,
            )
        r = self.run([str(self.binary("aes-seq")), "--size", "0B"])
        self.expect(r.returncode == 2, "--size 0B is not a size", r.stderr.decode())

    def refusals(self) -> None:
        seq = str(self.binary("aes-seq"))
        cases = [
            ([seq, "--cipher", "ascon-aead128", "--impl", "gcm-ref"], "not an impl of"),
            ([seq, "--cipher", "ascon-aead128", "--iv", "00" * 12], "16-byte nonce"),
            ([seq, "--cipher", "aes-128-gcm", "--iv", "00" * 16], "12-byte nonce"),
            ([seq, "--cipher", "aes-128-gcm", "--mode", "ctr"], "--mode"),
            ([seq, "--cipher", "aes-128-ctr", "--ad", "00"], "--ad"),
            ([seq, "--cipher", "ascon-aead128", "--ad", "0g"], "--ad"),
        ]
        ossl = str(self.binary("aes-openssl"))
        cases.append(([ossl, "--cipher", "ascon-aead128"], "OpenSSL has no Ascon"))
        for name in ("aes-omp", "aes-mpi"):
            if self.binary(name).exists():
                argv = [str(self.binary(name)), "--cipher", "ascon-aead128"]
                cases.append((argv, "does not run AEADs"))
        for argv, word in cases:
            r = self.run(argv + ["--size", "64", "--reps", "1"])
            err = r.stderr.decode()
            self.expect(
                r.returncode == 2 and err.count("\n") == 1 and word in err,
                f"refused: {' '.join(argv[1:])}",
                err,
            )
        env = dict(self.env, CIPHERSWEEP_DISABLE_IMPLS="gcm-aesni")
        r = self.run_env([seq, "--cipher", "aes-128-gcm", "--impl", "gcm-aesni"], env)
        self.expect(
            r.returncode == 2, "gcm-aesni switched off: exit 2", r.stderr.decode()
        )
        r = self.run([seq, "--cipher", "aes-128-gcm", "--size", "100", "--reps", "1"])
        self.expect(
            r.returncode == 0 and '"impl": "gcm-' in r.stdout.decode(),
            "auto picks a GCM impl",
        )
        r = self.run([seq, "--cipher", "ascon-aead128", "--inject-fault", "corrupt"])
        self.expect(
            r.returncode == 1
            and b"verification FAILED" in r.stderr
            and r.stdout == b"",
            "ascon: --inject-fault corrupt fails verification, no record",
        )

    def run_env(
        self, argv: list[str], env: dict[str, str]
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(argv, check=False, capture_output=True, env=env)


def cipher_of(impl: str) -> str:
    return "ascon-aead128" if impl.startswith("ascon-") else "aes-128-gcm"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, type=Path)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cs-aead-") as tmp:
        c = AeadChecker(a.build.resolve(), Path(tmp))
        vectors = [kat_vector(n) for n in (*ASCON_EMPTY, 34, 530, 1089)]
        c.expect(all(v.get("ct") for v in vectors), "KAT vectors read")
        for impl in ASCON + GCM:
            if not c.available(impl):
                c.expect(impl == "gcm-aesni", f"{impl} runs on this CPU")
                print(f"note: {impl} not available on this CPU")
                continue
            if impl in ASCON:
                for v in vectors:
                    c.known_answer(impl, {**v, "iv": v["nonce"]})
            else:
                for v in (TC4, *GCM_EMPTY):
                    c.known_answer(impl, v)
            c.roundtrip(impl)
            c.empty_generated(impl)
        c.empty_refused()
        c.refusals()
    print(f"aead: {c.checks - c.failures}/{c.checks} checks passed")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
