"""A helper command of a rule (the build script, the input generator, the image build)
run with its output appended to the rule's log; a failure raises with the log's tail,
an interruption (Ctrl-C, a hang-up, SIGTERM) with one line saying so."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from ciphersweep.job.kernel_process import INTERRUPTS, Interrupted


def tail(text: str, n: int = 1) -> str:
    """The last ``n`` non-blank lines of ``text``, ``" | "``-joined (at most 500 chars)."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[-n:])[:500] if lines else ""


def run_logged(argv: list[str], log: str, env: dict[str, str] | None = None) -> None:
    """Run a command with its output in ``log``; raise with the log's tail on failure."""
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as fh:
        print(f"$ {' '.join(argv)}", file=fh, flush=True)
        rc = subprocess.run(
            argv, stdout=fh, stderr=subprocess.STDOUT, env=env, check=False
        ).returncode
    if rc < 0 and -rc in INTERRUPTS:
        name = signal.Signals(-rc).name
        raise Interrupted(
            f"ciphersweep: interrupted: {Path(argv[0]).name} was stopped by {name} "
            f"(its log: {log}); the same command runs it again"
        )
    if rc != 0:
        last = tail(Path(log).read_text(errors="replace"), 5)
        raise RuntimeError(f"{argv[0]} failed (exit {rc}); see {log}: {last}")
