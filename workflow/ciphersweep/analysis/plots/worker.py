"""The plots drawn in a Python process of their own (the ``plots`` rule).

``draw_apart`` hands the drawing's arguments to ``python -m
ciphersweep.analysis.plots.worker`` on its standard input (pickled) and waits. The
child imports matplotlib and draws; it answers on its standard output with the files
written, or the system error that stopped it (raised again here as the same OSError, so
that the console names the file), or it fails with its traceback on standard error.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

import ciphersweep

_PACKAGE_ROOT = str(Path(ciphersweep.__file__).resolve().parent.parent)


def draw_apart(
    cfg: dict[str, Any],
    points: list[Any],
    summary_csv: str,
    outdir: str,
    log: str | None,
) -> list[Path]:
    """:func:`ciphersweep.analysis.plots.draw.write_plots` in a child process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [_PACKAGE_ROOT, *filter(None, [env.get("PYTHONPATH")])]
    )
    proc = subprocess.run(
        [sys.executable, "-m", "ciphersweep.analysis.plots.worker"],
        input=pickle.dumps((cfg, points, summary_csv, outdir, log)),
        capture_output=True,
        env=env,
        check=False,
    )
    answer = _answer(proc.stdout)
    if proc.returncode == 0 and "written" in answer:
        return [Path(p) for p in answer["written"]]
    if "oserror" in answer:
        errno, strerror, filename = answer["oserror"]
        raise OSError(errno, strerror, filename)
    lines = proc.stderr.decode(errors="replace").strip().splitlines()
    raise RuntimeError(
        f"drawing the plots failed (exit {proc.returncode}): "
        + (lines[-1] if lines else "no message")
    )


def _answer(stdout: bytes) -> dict[str, Any]:
    try:
        return json.loads(stdout.decode(errors="replace").strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {}


def main() -> int:
    """The child: the arguments from standard input, the answer on standard output."""
    from ciphersweep.analysis.plots import draw

    args = pickle.loads(sys.stdin.buffer.read())
    try:
        written = draw.write_plots(*args, workers=min(4, os.cpu_count() or 1))
    except OSError as exc:
        oserror = [exc.errno, exc.strerror or str(exc), exc.filename]
        print(json.dumps({"oserror": oserror}))
        return 3
    except Exception:  # noqa: BLE001 - the parent raises it with the last line
        traceback.print_exc()
        return 1
    print(json.dumps({"written": [str(p) for p in written]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
