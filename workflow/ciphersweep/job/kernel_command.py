"""aes-command: any program, given as an argument list, timed as a whole process.

    python -m ciphersweep.job.kernel_command --cipher aes-128-cbc --op encrypt \\
        --input FILE --reps N --warmup W --program NAME [--json FILE] \\
        -- openssl enc -aes-128-cbc -e -K {key} -iv {iv} -in {input} -out {output}

This is how the ``openssl enc`` studies timed (a wall clock read around ``system()``),
without a shell: the program is started with ``posix_spawn`` and waited for, and the
clock (``time.perf_counter``) is read just before the start and just after the wait.
``{input}`` is the point's input (for decryption: OpenSSL's ciphertext of it, made
before any timing), ``{output}`` a fresh file for each run, ``{key}``/``{iv}`` the hex
key and IV, ``{cipher}`` the EVP name. After each run, outside the timed region, the
output file is compared with OpenSSL EVP's output for the same key, IV and input; a
difference fails the point. The child's CPU time comes from ``wait4``.
"""

from __future__ import annotations

import argparse
import collections
import os
import select
import shlex
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import Any

from ciphersweep.job import launch as cs_launch
from ciphersweep.job import pykernel
from ciphersweep.plan import fingerprint as cs_fp

PROG = "aes-command"


def _extra(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--program", default="command", help="name of the program (the impl)"
    )
    ap.add_argument(
        "template",
        nargs=argparse.REMAINDER,
        help="-- PROGRAM ARG ... with placeholders",
    )


# What is kept of a program's stdout and stderr: its first and last KEEP bytes (a
# program that floods its output must not fill the disk).
KEEP = 64 * 1024


class _CappedOutput:
    """Drains a pipe in a thread, keeping the first and last :data:`KEEP` bytes."""

    def __init__(self, fd: int) -> None:
        self.fd, self.total, self.head = fd, 0, bytearray()
        self.tail: collections.deque[bytes] = collections.deque()
        self.tail_bytes = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _take(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = KEEP - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail.append(chunk)
            self.tail_bytes += len(chunk)
            while self.tail_bytes - len(self.tail[0]) >= KEEP:
                self.tail_bytes -= len(self.tail.popleft())

    def _drain(self) -> None:
        # after the program ended, what is still in the pipe is read; a child it left
        # running that holds the pipe open does not keep this thread alive
        while True:
            ready, _, _ = select.select(
                [self.fd], [], [], 0 if self.done.is_set() else 0.2
            )
            if not ready:
                if self.done.is_set():
                    return
                continue
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return
            self._take(chunk)

    def finish(self, log: str) -> None:
        """Stop draining and write what was kept to ``log``."""
        self.done.set()
        self.thread.join()
        os.close(self.fd)
        tail = b"".join(self.tail)
        left_out = self.total - len(self.head) - len(tail)
        if left_out > 0:
            tail = tail[-KEEP:]
            left_out = self.total - len(self.head) - len(tail)
        with open(log, "wb") as fh:
            fh.write(bytes(self.head))
            if left_out > 0:
                fh.write(f"\n[... {left_out} bytes of output left out ...]\n".encode())
            fh.write(tail)


def _spawn(argv: list[str], log: str) -> tuple[int, float, Any]:
    """Run ``argv`` (stdout and stderr, capped, to ``log``); exit status, wall
    seconds, rusage."""
    rfd, wfd = os.pipe()
    capped = _CappedOutput(rfd)
    try:
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, wfd, 1),
            (os.POSIX_SPAWN_DUP2, wfd, 2),
            (os.POSIX_SPAWN_CLOSE, rfd),
        ]
        t0 = time.perf_counter()
        try:
            pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
        except OSError as exc:
            raise pykernel.KernelError(
                f"cannot start {argv[0]!r}: {exc.strerror or exc}"
            ) from None
        finally:
            os.close(wfd)
        _, status, usage = os.wait4(pid, 0)
        t1 = time.perf_counter()
    finally:
        capped.finish(log)
    return os.waitstatus_to_exitcode(status), t1 - t0, usage


def _last_line(path: str) -> str:
    try:
        with open(path, errors="replace") as fh:
            lines = [ln.strip() for ln in fh if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


class CommandRun:
    """The repetitions of one command point inside a scratch directory."""

    def __init__(self, ns: argparse.Namespace, job: pykernel.Job, scratch: str) -> None:
        self.template = list(
            ns.template[1:] if ns.template[:1] == ["--"] else ns.template
        )
        bad = cs_launch.placeholder_errors(self.template)
        if bad:
            raise pykernel.KernelError(f"command: {bad}")
        self.scratch = scratch
        self.input = job.input_path
        if not job.encrypt:  # the program decrypts OpenSSL's ciphertext of the input
            self.input = os.path.join(scratch, "input.enc")
            with open(self.input, "wb") as fh:
                fh.write(job.data)
        self.count = 0
        self.last_line = ""

    def argv(self, job: pykernel.Job, output: str) -> list[str]:
        c = job.cipher
        values = {
            "input": self.input,
            "output": output,
            "key": c.key().hex(),
            "iv": c.iv().hex(),
            "cipher": c.name,
        }
        return cs_launch.command_argv(self.template, values)

    def __call__(self, job: pykernel.Job) -> pykernel.Rep:
        self.count += 1
        out = os.path.join(self.scratch, f"out-{self.count}.bin")
        log = os.path.join(self.scratch, "program.log")
        argv = self.argv(job, out)
        self.last_line = shlex.join(argv)
        rc, wall, ru = _spawn(argv, log)
        if rc != 0:
            msg = _last_line(log) or "no message"
            raise pykernel.KernelError(f"{argv[0]} exited {rc}: {msg}")
        try:
            with open(out, "rb") as fh:
                data = fh.read()
        except OSError:
            raise pykernel.KernelError(
                f"{argv[0]} wrote no output file (is {{output}} in its arguments?)"
            ) from None
        os.remove(out)
        cpu = ru.ru_utime + ru.ru_stime
        extra = {
            "cpu_user_s": ru.ru_utime,
            "cpu_sys_s": ru.ru_stime,
            "cpu_util": cpu / wall if wall > 0 else None,
            "command_line": self.last_line,
        }
        return pykernel.Rep(t_total=wall, t_compute=wall, output=data, extra=extra)


def scratch_dir(json_path: str) -> str:
    """The scratch directory of a point's runs (outputs, the ciphertext to decrypt)."""
    return f"{json_path}.d"


def run(ns: argparse.Namespace) -> list[dict[str, Any]]:
    job = pykernel.prepare(ns)
    program = cs_fp.program_file(
        ns.template[1:] if ns.template[:1] == ["--"] else ns.template
    )
    rec0 = pykernel.base_record(ns, job, "command", ns.program, program)
    rec0["clock"] = "perf_counter around posix_spawn + wait4 (whole process)"
    if ns.json:  # beside the records, where the bench job cleans up after a kill
        scratch = scratch_dir(ns.json)
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
    else:
        scratch = tempfile.mkdtemp(prefix="cs-command-")
    try:
        return pykernel.loop(ns, job, rec0, CommandRun(ns, job, scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    ns = pykernel.parse_args(PROG, argv, _extra)
    if not [a for a in ns.template if a != "--"]:
        print(f"{PROG}: no program given (-- PROGRAM ARG ...)", file=sys.stderr)
        return pykernel.EXIT_USAGE
    return pykernel.main(PROG, run, ns)


if __name__ == "__main__":
    sys.exit(main())
