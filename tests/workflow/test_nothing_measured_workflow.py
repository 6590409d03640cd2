"""A campaign whose every point failed, end to end, with a point of every CPU backend
kind (sequential, OpenMP, MPI, OpenSSL, PyCryptodome, a command program): the tables,
plots and report are still written, the console's summary names the failures and the
run ends with "nothing measured: N of N points failed (see .../failures.csv)" and exit
status 1, never "finished" with exit 0 and empty plot axes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from support import KERNELS, base_config, run_snakemake

COPY = ["cp", "{input}", "{output}"]  # writes its input back: never verifies


def test_a_campaign_that_measured_nothing_fails_with_one_line(tmp_path: Path) -> None:
    cfg = base_config(
        campaign="none",
        sizes=["1KiB"],
        reps=2,
        warmup=0,
        backends={
            "seq": {"impls": ["ttable"]},
            "omp": {"impls": ["ttable"], "threads": [2]},
            "mpi": {"impls": ["ttable"], "ranks": [2]},
            "openssl": {"ciphers": ["aes-128-ctr"]},
            "pycryptodome": {"ciphers": ["aes-128-ecb"]},
            "command": {
                "programs": [
                    {
                        "name": "copy",
                        "ciphers": ["aes-128-ecb"],
                        "encrypt": COPY,
                        "decrypt": COPY,
                    }
                ]
            },
        },
        build={"dir": str(KERNELS)},
        platform={"energy": "none"},
        debug={"inject_fault": ["*"]},  # every kernel corrupts its output
    )
    proc = run_snakemake(tmp_path, cfg, timeout=600)
    out = proc.stdout + proc.stderr
    res = tmp_path / "results" / "none"
    summary = pd.read_csv(res / "summary.csv")
    n = len(summary)
    assert n == 6 and set(summary["status"]) == {"failed"}, summary
    assert proc.returncode == 1, out[-4000:]
    last = out.strip().splitlines()[-1]
    assert last == (
        f"ciphersweep: nothing measured: {n} of {n} points failed "
        "(see results/none/failures.csv)"
    ), out[-3000:]
    assert "Traceback" not in out and 'File "' not in out, out[-3000:]
    assert f"  points measured: 0 of {n}, {n} failed" in out
    assert "noisy cells" not in out
    assert len(pd.read_csv(res / "failures.csv")) == n
    for name in ("time_vs_size", "speedup_vs_p", "throughput"):  # (their notes:
        assert (res / "plots" / f"{name}.png").stat().st_size > 0  # unit tests)
    html = (res / "report.html").read_text()
    assert f"nothing measured: {n} of {n} points failed (see failures.csv)" in html
    # the run measured nothing again: the same ending, not a "nothing to be done"
    again = run_snakemake(tmp_path, cfg, timeout=600)
    assert again.returncode == 1, (again.stdout + again.stderr)[-3000:]
