"""A user's own kernel (backends.user, docs/kernel-contract.md) end to end, beside
OpenSSL: the shipped example (examples/mykernel) declared as a CMake project the
workflow builds (1 and 2 ranks) and as a program built here, a kernel writing wrong
bytes and one misreporting what it measured (each refused with its reason, nothing
tabled), an edited source re-measuring exactly its points in the same run, and a
missing program refused in one line before any job."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
from support import KERNELS, ROOT, base_config, run_snakemake

EXAMPLE = ROOT / "examples" / "mykernel"

# A kernel that speaks the contract but whose output is not AES-128-CTR's: it copies
# its input. MISREPORT writes the right bytes (OpenSSL's) but says it ran 2 ranks.
_SCRIPT = """#!{python}
import argparse, json, subprocess
ap = argparse.ArgumentParser()
for flag in ("mode", "op", "key", "iv", "input", "output", "reps", "warmup"):
    ap.add_argument("--" + flag)
a, _ = ap.parse_known_args()
if {right}:
    subprocess.run(["openssl", "enc", "-aes-128-ctr", "-K", a.key, "-iv", a.iv,
                    "-in", a.input, "-out", a.output], check=True)
else:
    open(a.output, "wb").write(open(a.input, "rb").read())
for _ in range(int(a.reps)):
    print(json.dumps({{"t_total": 0.001, "ranks": {ranks}}}))
"""


def _script(path: Path, *, right: bool, ranks: int) -> str:
    path.write_text(_SCRIPT.format(python=sys.executable, right=right, ranks=ranks))
    path.chmod(0o755)
    return str(path)


def _campaign(tmp_path: Path) -> dict:
    src = tmp_path / "mykernel"
    shutil.copytree(EXAMPLE, src)
    prog = tmp_path / "mykernel-prog"
    subprocess.run(
        ["cc", "-O2", "-o", str(prog), str(EXAMPLE / "mykernel.c")], check=True
    )
    return base_config(
        campaign="uk",
        sizes=["1KiB"],
        reps=3,
        warmup=0,
        backends={
            "openssl": {"ciphers": ["aes-128-ctr"]},
            "user": {
                "kernels": [
                    {
                        "name": "mykernel",
                        "source": str(src),
                        "ciphers": ["aes-128-ctr"],
                        "ranks": [1, 2],
                    },
                    {"name": "prog", "program": str(prog), "ciphers": ["aes-128-ctr"]},
                    {
                        "name": "copier",
                        "program": _script(tmp_path / "copier", right=False, ranks=1),
                        "ciphers": ["aes-128-ctr"],
                    },
                    {
                        "name": "braggart",
                        "program": _script(tmp_path / "braggart", right=True, ranks=2),
                        "ciphers": ["aes-128-ctr"],
                    },
                ]
            },
        },
        build={"dir": str(KERNELS)},
        platform={"energy": "none"},
    )


def _raw(res: Path) -> dict[str, list[dict]]:
    return {
        f.stem: [json.loads(x) for x in f.read_text().splitlines()]
        for f in (res / "raw").glob("*.jsonl")
    }


def test_user_kernels_beside_openssl(tmp_path: Path) -> None:
    cfg = _campaign(tmp_path)
    proc = run_snakemake(tmp_path, cfg, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = tmp_path / "results" / "uk"
    recs = _raw(res)
    mine = "user-mykernel-aes-128-ctr-enc-1KiB-r{}-t1"
    for ranks in (1, 2):
        rs = recs[mine.format(ranks)]
        assert [r["status"] for r in rs] == ["ok"] * 3, rs[0].get("reason")
        assert all(r["verified"] and r["ranks"] == ranks for r in rs)
        fp = rs[0]["fingerprint"]
        assert fp["ranks"] == ranks and fp["build_key"].startswith("sha256:")
        assert ("mpirun -np 2" in rs[0]["command_line"]) == (ranks == 2)
    prog = recs["user-prog-aes-128-ctr-enc-1KiB-r1-t1"]
    assert [r["status"] for r in prog] == ["ok"] * 3
    assert prog[0]["fingerprint"]["build_key"] is None
    failures = {
        row["point"]: row["reason"]
        for row in csv.DictReader((res / "failures.csv").open())
    }
    copier = failures["user-copier-aes-128-ctr-enc-1KiB-r1-t1"]
    assert "copier: verification FAILED" in copier
    braggart = failures["user-braggart-aes-128-ctr-enc-1KiB-r1-t1"]
    assert "braggart: record 0 reports ranks 2, the point has 1" in braggart
    table = pd.read_csv(res / "tables" / "time.csv", index_col=0)
    rows = set(table.index)
    assert {"openssl aes-128-ctr", "mykernel aes-128-ctr (2 ranks)"} <= rows
    assert float(table.loc["mykernel aes-128-ctr (2 ranks)", "1KiB"]) > 0
    assert float(table.loc["prog aes-128-ctr (1 rank)", "1KiB"]) > 0
    assert table.loc["copier aes-128-ctr (1 rank)", "1KiB"] == "failed"
    assert table.loc["braggart aes-128-ctr (1 rank)", "1KiB"] == "failed"
    summ = pd.read_csv(res / "summary.csv").set_index("point")
    for name in ("copier", "braggart"):  # nothing they printed is a measurement
        row = summ.loc[f"user-{name}-aes-128-ctr-enc-1KiB-r1-t1"]
        assert row["status"] == "failed" and row["n"] == 0
        assert pd.isna(row["t_total_median"])

    # an edit to the kernel's source: rebuilt, and exactly its points measured again
    before = {pid: rs[0]["timestamp"] for pid, rs in recs.items()}
    with open(tmp_path / "mykernel" / "mykernel.c", "a") as fh:
        fh.write("/* edited */\n")
    proc = run_snakemake(tmp_path, cfg, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    after = _raw(res)
    again = {pid for pid, rs in after.items() if rs[0]["timestamp"] != before[pid]}
    failed = {
        "user-copier-aes-128-ctr-enc-1KiB-r1-t1",
        "user-braggart-aes-128-ctr-enc-1KiB-r1-t1",
    }
    assert again - failed == {mine.format(1), mine.format(2)}
    keys = {after[mine.format(r)][0]["fingerprint"]["build_key"] for r in (1, 2)}
    assert len(keys) == 1 and keys != {
        recs[mine.format(1)][0]["fingerprint"]["build_key"]
    }


def test_missing_program_is_one_line(tmp_path: Path) -> None:
    cfg = base_config(
        campaign="ghost",
        backends={
            "user": {
                "kernels": [
                    {
                        "name": "ghost",
                        "program": "no/such/kernel",
                        "ciphers": ["aes-128-ctr"],
                    }
                ]
            }
        },
    )
    proc = run_snakemake(tmp_path, cfg, timeout=120)
    assert proc.returncode != 0
    line = (
        "invalid config: backends.user.kernels[0].program: kernel 'ghost': "
        "no/such/kernel does not exist"
    )
    assert line in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "results").exists()
