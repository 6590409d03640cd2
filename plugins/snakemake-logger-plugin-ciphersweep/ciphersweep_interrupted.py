"""A Ctrl-C while Snakemake starts, as one line.

Until the workflow is read (about 1.5 s after the start on a 2-core machine:
Snakemake's imports, its command line, its plugins), a Ctrl-C is Python's own
KeyboardInterrupt, raised wherever Snakemake's start is, and its traceback: 30 to 50
lines of Snakemake's imports. The workflow installs its own one-line ending as it is
read (``ciphersweep.campaign.hangup.one_line_interrupts``). Before that, the hook
:func:`install` sets, started with the interpreter of the ``snakemake`` command (by
the ``.pth`` file that ``scripts/setup.sh`` writes into the environment), says it in
one line. A module of its own beside the console plugin's package, importing nothing
but ``os`` and ``sys`` until it speaks: the hook is in place a few milliseconds after
the interpreter starts. The line is in the workflow's own words
(``hangup.interrupted_line``, found beside the Snakefile this run reads; the same
words where there is none). Nothing had run, so
there is nothing to keep. Other exceptions are reported as before, and the process
ends by SIGINT, as Python ends one whose KeyboardInterrupt nobody caught (its exit
status says so). Other commands of the environment are left as they are.
"""

import os
import sys
from collections.abc import Sequence

COMMAND = "snakemake"
WHERE = "as Snakemake started, before the workflow was read"
HANGUP = "ciphersweep.campaign.hangup"


def install(argv: Sequence[str] | None = None) -> bool:
    """Report a KeyboardInterrupt nobody caught as one line, in a ``snakemake``
    process (``argv``: its command line, default this process's); whether the hook
    is now in place. Once per process."""
    args = sys.argv if argv is None else argv
    if not args or os.path.basename(args[0]) != COMMAND:
        return False
    if getattr(sys.excepthook, "ciphersweep_start", False):
        return True
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: object) -> None:
        if issubclass(kind, KeyboardInterrupt):
            print(line(args[1:]), file=sys.stderr, flush=True)
            end_by_sigint()
        previous(kind, value, tb)

    hook.ciphersweep_start = True  # type: ignore[attr-defined]
    sys.excepthook = hook
    return True


def end_by_sigint() -> None:
    """End the process by SIGINT now, as Python ends one whose KeyboardInterrupt
    nobody caught (its exit status says so: 130 in a shell). Python would only where
    nothing was imported since the interrupt, and :func:`line` imports. Nothing of the
    run is left to finish: it had not started."""
    import signal

    sys.stdout.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)


def line(argv: Sequence[str]) -> str:
    """The one line: the workflow's wording of an interruption, ``WHERE``."""
    from snakemake_logger_plugin_ciphersweep import before_run

    hangup = before_run.workflow_module(list(argv), HANGUP)
    try:
        return str(hangup.interrupted_line("SIGINT", WHERE))
    except Exception:  # noqa: BLE001 - no workflow beside: the same words here
        return (
            f"ciphersweep: interrupted by SIGINT {WHERE}: nothing ran; the same "
            "command starts it"
        )
