"""The ReFrame side of tests/bench_reframe.py: a campaign config turned into the same
kernel launch lines as ReFrame cases, and the ReFrame files that run or list them.

Pure: nothing here runs ReFrame or a kernel. One case per campaign point: the same
kernel binary, flags, repetitions, warm-ups, precision limits and kernel processes,
the same MPI launcher prefix and environment and OpenMP pinning as the workflow's local
runs. The one difference is the data: the workflow reads generated input files, a
ReFrame case lets the kernel generate its bytes (``--size``), outside the timed region
in both.
"""

from __future__ import annotations

import json
import os
import pprint
import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# the workflow's OpenMP pinning for local runs (README: "OpenMP threads are pinned")
OMP_ENV = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}
# what the workflow adds to one node's mpirun of its own kernels
# (ciphersweep.job.launch_env.mpi_local_env and mpi_topology_env)
MPI_ENV = {
    "PMIX_MCA_gds": "hash",
    "HWLOC_COMPONENTS": "-linuxio,-pci",
    "HWLOC_PLUGINS_BLACKLIST": "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_xml_libxml",
}
ENV = {"omp": OMP_ENV, "mpi": MPI_ENV}
# backends this benchmark can mirror
BACKENDS = ("seq", "omp", "mpi", "openssl", "cuda")
MODE_OP = {"encrypt": "enc", "decrypt": "dec"}


@dataclass
class Case:
    """One ReFrame case: the shell line that runs a point's kernel processes."""

    name: str
    command: str
    env: dict[str, str] = field(default_factory=dict)
    records: int = 0  # the fewest JSON records a passing case prints


def _repetition_args(cfg: dict[str, Any]) -> list[str]:
    args = ["--reps", str(cfg.get("reps", 3)), "--warmup", str(cfg.get("warmup", 1))]
    prec = cfg.get("precision")
    if prec:
        args += [
            "--target-ci",
            f"{prec['target']:g}",
            "--max-reps",
            str(prec.get("max_reps", 1000)),
            "--max-seconds",
            f"{prec.get('max_seconds', 2):g}",
        ]
    return args + ["--energy", "auto"]


def _mpi_prefix(ranks: int, cores: int, is_root: bool) -> list[str]:
    argv = ["mpirun", "-np", str(ranks)]
    if ranks > cores:
        argv.append("--oversubscribe")
    if is_root:
        argv.append("--allow-run-as-root")
    return argv + ["--mca", "pml", "ob1"]


def _shapes(backend: str, spec: dict[str, Any]) -> list[tuple[str, list[str], int]]:
    """(name part, kernel flags, MPI ranks) for each impl and degree of a backend."""
    if backend not in BACKENDS:
        raise ValueError(
            f"backends.{backend}: not mirrored in ReFrame (allowed: {', '.join(BACKENDS)})"
        )
    if backend == "openssl":
        return [(c, ["--cipher", c], 1) for c in spec.get("ciphers", ["aes-128-ctr"])]
    out: list[tuple[str, list[str], int]] = []
    for impl in spec.get("impls", ["ref"]):
        if backend == "omp":
            out += [
                (f"{impl}-t{t}", ["--impl", impl, "--threads", str(t)], 1)
                for t in spec.get("threads", [2])
            ]
        elif backend == "mpi":
            out += [
                (f"{impl}-r{r}", ["--impl", impl], r) for r in spec.get("ranks", [2])
            ]
        elif backend == "cuda":
            out += [
                (f"{impl}-b{b}", ["--impl", impl, "--block-threads", str(b)], 1)
                for b in spec.get("block_threads", [256])
                for _ in spec.get("gpus", [1])
            ]
        else:
            out.append((impl, ["--impl", impl], 1))
    return out


def cases(
    cfg: dict[str, Any], kernels: Path, cores: int = 2, is_root: bool = False
) -> list[Case]:
    """The campaign's points as ReFrame cases, in the workflow's sweep order of keys."""
    rep = _repetition_args(cfg)
    procs = int(cfg.get("processes", 1))
    reps = int(cfg.get("reps", 3))
    out: list[Case] = []
    for backend, spec in cfg["backends"].items():
        for part, flags, ranks in _shapes(backend, spec or {}):
            exe = [str(kernels / f"aes-{backend}")]
            if backend == "mpi":
                exe = _mpi_prefix(ranks, cores, is_root) + exe
            for mode in cfg.get("modes", ["ctr"]) if backend != "openssl" else ["-"]:
                mode_flags = ["--mode", mode] if mode != "-" else []
                for op in cfg.get("ops", ["encrypt"]):
                    for size in cfg["sizes"]:
                        argv = exe + flags + mode_flags + ["--op", op, "--size", size]
                        line = shlex.join(argv + rep)
                        if procs > 1:
                            line = f"for p in $(seq {procs}); do {line}; done"
                        name = "-".join(
                            x
                            for x in (backend, part, mode, MODE_OP[op], size)
                            if x != "-"
                        )
                        env = ENV.get(backend, {})
                        out.append(Case(name, line, dict(env), procs * reps))
    return out


TEST_FILE = '''"""Generated: one RunOnlyRegressionTest per campaign point (cases.json beside it)."""

import json
import os
import pprint

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import parameter, performance_function, run_after, sanity_function

with open(os.path.join(os.path.dirname(__file__), "cases.json")) as fh:
    CASES = json.load(fh)


@rfm.simple_test
class KernelPoint(rfm.RunOnlyRegressionTest):
    case = parameter(CASES, fmt=lambda c: c["name"])
    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    num_tasks = 1

    @run_after("init")
    def set_command(self):
        self.executable = self.case["command"]
        self.env_vars = dict(self.case["env"])

    @sanity_function
    def verified(self):
        good = sn.count(sn.extractall(r'"verified":\\s*true', self.stdout))
        return sn.all([sn.assert_ge(good, self.case["records"]),
                       sn.assert_not_found(r'"verified":\\s*false', self.stdout)])

    @performance_function("s")
    def t_total(self):
        return sn.avg(sn.extractall(r'"t_total":\\s*([0-9.eE+-]+)', self.stdout, 1, float))
'''


def settings(dest: Path) -> str:
    """ReFrame's site configuration: this machine, local scheduler, one job at a time."""
    site = {
        "systems": [
            {
                "name": "local",
                "descr": "this machine",
                "hostnames": [".*"],
                "partitions": [
                    {
                        "name": "cpu",
                        "scheduler": "local",
                        "launcher": "local",
                        "environs": ["builtin"],
                        "max_jobs": 1,
                    }
                ],
            }
        ],
        "environments": [{"name": "builtin", "cc": "cc"}],
        "general": [{"report_file": str(dest / "report.json")}],
        "logging": [
            {
                "handlers": [
                    {
                        "type": "file",
                        "name": str(dest / "reframe.log"),
                        "level": "debug",
                        "format": "[%(asctime)s] %(levelname)s: %(message)s",
                        "append": False,
                    }
                ],
            }
        ],
    }
    return f"site_configuration = {pprint.pformat(site)}\n"


def write_suite(dest: Path, all_cases: list[Case]) -> Path:
    """Writes the test file, its cases and the settings into ``dest``; the test file's path."""
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "cases.json").write_text(json.dumps([asdict(c) for c in all_cases]))
    (dest / "settings.py").write_text(settings(dest))
    test = dest / "kernel_points.py"
    test.write_text(TEST_FILE)
    return test


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def cores() -> int:
    """Cores this process may run on (as the workflow counts them for --oversubscribe)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1
