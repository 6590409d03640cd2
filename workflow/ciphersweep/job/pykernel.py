"""What the Python-side kernels (the Python runners, ``aes-command``, ``aes-user``)
share with the C kernels: the same flags, the same repetition loop (untimed warm-ups, then timed
repetitions), one record per timed repetition in the record schema, and a failure
that never reports a time (one ``aes-<name>: ...`` line on stderr, exit 1).

A kernel supplies :class:`Kernel.rep`: one repetition on the prepared data, returning
its timings and output; the loop verifies every output against OpenSSL's outside the
timed region.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import socket
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ciphersweep.backends import codepath
from ciphersweep.core import ciphers as cs_ciphers
from ciphersweep.core import stats as cs_stats
from ciphersweep.core.record_fields import GPU, TIMINGS
from ciphersweep.job import energy as cs_energy
from ciphersweep.job import hostfacts
from ciphersweep.job import provenance as cs_prov
from ciphersweep.plan import fingerprint as cs_fp

EXIT_FAIL = 1
EXIT_USAGE = 2


class KernelError(RuntimeError):
    """A failure of the point (the message is the reason, one line)."""


@dataclass
class Rep:
    """One timed repetition: its timings (s), output and optional extra fields."""

    t_total: float
    t_compute: float
    output: bytes
    t_keyexp: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Job:
    """The prepared work of one point: the cipher, the timed input and the expected
    output (OpenSSL's), computed before any timing."""

    cipher: cs_ciphers.Cipher
    encrypt: bool
    plaintext: bytes
    data: bytes  # what the timed operation reads (ciphertext when decrypting)
    expected: bytes  # what it must write
    input_path: str


def parse_args(
    prog: str, argv: Sequence[str] | None, extra: Callable[..., None] | None = None
) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog=prog, allow_abbrev=False)
    ap.add_argument("--cipher", required=True, help="EVP cipher name, e.g. aes-128-cbc")
    ap.add_argument(
        "--key-bits",
        type=int,
        default=None,
        help="key length where the cipher allows several",
    )
    ap.add_argument("--op", choices=("encrypt", "decrypt"), default="encrypt")
    ap.add_argument("--input", required=True, help="input file")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument(
        "--target-ci",
        type=float,
        default=None,
        help="repeat until the 95%% CI of the median t_total is within +-X (relative)",
    )
    ap.add_argument("--max-reps", type=int, default=1000)
    ap.add_argument("--max-seconds", type=float, default=10.0)
    ap.add_argument(
        "--energy", choices=("auto", "none", "rapl", "likwid"), default="auto"
    )
    ap.add_argument("--json", default=None, help="records go here (default: stdout)")
    ap.add_argument("--inject-fault", choices=("corrupt",), default=None)
    if extra is not None:
        extra(ap)
    ns = ap.parse_args(argv)
    if ns.reps < 1 or ns.warmup < 0:
        ap.error("--reps must be >= 1 and --warmup >= 0")
    if ns.target_ci is not None and not 0 < ns.target_ci <= 1:
        ap.error(f"--target-ci: {ns.target_ci} is not in (0, 1] (e.g. 0.02)")
    if ns.target_ci is not None and ns.max_reps < ns.reps:
        ap.error(f"--max-reps {ns.max_reps} is less than --reps {ns.reps}")
    return ns


def prepare(ns: argparse.Namespace) -> Job:
    """Read the input and compute OpenSSL's output for it (untimed)."""
    try:
        c = cs_ciphers.cipher(ns.cipher, ns.key_bits)
    except ValueError as exc:
        raise KernelError(f"--cipher: {exc}") from None
    try:
        with open(ns.input, "rb") as fh:
            plain = fh.read()
    except OSError as exc:
        raise KernelError(
            f"--input: cannot read {ns.input}: {exc.strerror or exc}"
        ) from None
    if not plain:
        raise KernelError(f"--input: {ns.input} is empty")
    try:
        ct = cs_ciphers.openssl_crypt(c, True, plain)
    except cs_ciphers.OpenSSLError as exc:
        raise KernelError(f"reference: {exc}") from None
    enc = ns.op == "encrypt"
    return Job(c, enc, plain, plain if enc else ct, ct if enc else plain, ns.input)


class Energy:
    """Package energy of one repetition from the powercap (RAPL) counters, or None
    with the reason."""

    def __init__(self, mode: str) -> None:
        self.zones: list[Any] = []
        self.note: str | None = None
        if mode in ("none", "likwid"):
            self.note = "energy: not read by the kernel" if mode == "none" else None
            return
        chk = cs_energy.check_rapl()
        if not chk.ok:
            self.note = f"rapl: {chk.reason}"
            return
        self.zones = [z for z in cs_energy.read_powercap() if z.readable]

    def read(self) -> list[int | None]:
        return [self._read_one(z.path) for z in self.zones]

    @staticmethod
    def _read_one(path: Any) -> int | None:
        try:
            return int((path / "energy_uj").read_text())
        except (OSError, ValueError):
            return None

    def fields(
        self, before: list[int | None], after: list[int | None]
    ) -> dict[str, Any]:
        if not self.zones:
            return {"joules": None, "energy_source": None, "energy_note": self.note}
        total = 0
        for z, a, b in zip(self.zones, before, after, strict=True):
            d = (
                None
                if a is None or b is None
                else cs_energy.energy_delta_uj(a, b, z.max_energy_range_uj)
            )
            if d is None:
                return {
                    "joules": None,
                    "energy_source": None,
                    "energy_note": "rapl: counter unreadable",
                }
            total += d
        return {
            "joules": total / 1e6,
            "joules_pkg": total / 1e6,
            "energy_source": "rapl",
            "energy_scope": "package",
            "energy_nodes": 1,
            "energy_note": None,
        }


def fingerprint(
    ns: argparse.Namespace,
    job: Job,
    backend: str,
    impl: str,
    binary: str | None = None,
) -> dict[str, Any]:
    """The record's ``fingerprint`` (:func:`ciphersweep.plan.fingerprint.observed`): the
    kernel module that runs (``binary``: the program it runs instead), the input bytes
    read, the shape (one process, one thread, no GPU) and the versions of the libraries
    doing the work, as this process imported them."""
    c = job.cipher
    shape = {"ranks": 1, "threads": 1, "gpus": 0, "cipher": c.name, "impl": impl}
    shape.update(mode=c.mode, op=ns.op)
    main = binary or os.path.abspath(sys.argv[0])
    libs = codepath.library_versions(backend, impl)
    return cs_fp.observed(main, job.plaintext, shape, libraries=libs)


def base_record(
    ns: argparse.Namespace,
    job: Job,
    backend: str,
    impl: str,
    binary: str | None = None,
) -> dict[str, Any]:
    c = job.cipher
    return {
        "fingerprint": fingerprint(ns, job, backend, impl, binary),
        "schema": 1,
        "backend": backend,
        "impl": impl,
        "cipher": c.name,
        "mode": c.mode,
        "op": ns.op,
        "key_bits": c.key_bits,
        "security_bits": c.security_bits,
        "padding": c.padded,
        "bytes": len(job.plaintext),
        "ranks": 1,
        "threads": 1,
        GPU: 0,
        "block_threads": None,
        "warmup": ns.warmup,
        "seed": None,
        "input": job.input_path,
        **dict.fromkeys(TIMINGS),  # null: does not apply (each repetition sets its own)
        "cores_used": 1,
        "host": socket.gethostname(),
        "cpu_model": hostfacts.cpu_model(),
        "cpu_cores": os.cpu_count(),
        "gpu_model": None,
        "gpu_driver": None,
        "compiler": f"Python {platform.python_version()}",
        "cflags": None,
        "mpi_version": None,
        "openssl_version": cs_ciphers.openssl_version(),
    }


def check(job: Job, out: bytes, rep: str) -> None:
    """Verification against OpenSSL's output (outside the timed region)."""
    off = cs_ciphers.first_difference(out, job.expected)
    if off is not None:
        what = "encryption" if job.encrypt else "decryption"
        raise KernelError(
            f"verification FAILED: {what} output differs from OpenSSL's at byte {off} "
            f"({rep}; {len(out)} bytes written, {len(job.expected)} expected)"
        )


def loop(
    ns: argparse.Namespace,
    job: Job,
    rec0: dict[str, Any],
    one: Callable[[Job], Rep],
) -> list[dict[str, Any]]:
    """Warm-ups, then the timed repetitions, each verified; the records."""
    energy = Energy(ns.energy)
    for w in range(ns.warmup):
        check(job, one(job).output, f"warm-up {w + 1}")
    records = []
    calib = cs_stats.Calibration(ns.target_ci, ns.reps, ns.max_reps, ns.max_seconds)
    t0 = time.monotonic()
    for i in itertools.count():
        e0 = energy.read()
        r = one(job)
        e1 = energy.read()
        out = r.output
        if ns.inject_fault == "corrupt" and out:
            out = bytes([out[0] ^ 0xFF]) + out[1:]
        check(job, out, f"repetition {i}")
        rec = dict(rec0)
        rec.update(
            rep=i,
            t_total=r.t_total,
            t_compute=r.t_compute,
            t_keyexp=r.t_keyexp,
            out_bytes=len(out),
            verified=True,
            timestamp=cs_prov.utc_now(),
        )
        rec.update(energy.fields(e0, e1))
        rec.update(r.extra)
        records.append(rec)
        if calib.add(r.t_total, time.monotonic() - t0):
            break
    fields = calib.fields()
    for rec in records:
        rec.update(fields)
    return records


def write(ns: argparse.Namespace, records: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    if ns.json:
        with open(ns.json, "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def main(
    prog: str,
    run: Callable[[argparse.Namespace], list[dict[str, Any]]],
    ns: argparse.Namespace,
) -> int:
    """Run a kernel; a failure is one ``prog: reason`` line and a non-zero exit."""
    try:
        records = run(ns)
    except KernelError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_FAIL
    write(ns, records)
    return 0
