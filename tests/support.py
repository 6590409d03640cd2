"""Shared test helpers: the project root, the ciphersweep package on sys.path, and
helpers to write campaign configs, build benchmark points (make_point) and run Snakemake
in a private working directory."""

from __future__ import annotations

import io
import logging
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "workflow"))
# the console plugin of this source tree, also where an older copy is installed
PLUGIN_DIR = ROOT / "plugins" / "snakemake-logger-plugin-ciphersweep"
sys.path.insert(0, str(PLUGIN_DIR))

import pandas as pd
from ciphersweep.analysis.tables.model import Context
from ciphersweep.core.units import parse_size
from ciphersweep.job.spec import RunSpec  # after the path above
from ciphersweep.plan.sweep import Point, point_id


def with_plugin(env: dict[str, str]) -> dict[str, str]:
    """``env`` with this source tree's console plugin first on PYTHONPATH."""
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {**env, "PYTHONPATH": os.pathsep.join([str(PLUGIN_DIR), *rest])}


VENV_BIN = ROOT / ".venv" / "bin"
SNAKEMAKE = (
    str(VENV_BIN / "snakemake") if (VENV_BIN / "snakemake").exists() else "snakemake"
)
KERNELS = ROOT / "build" / "kernels"


def base_config(**over: Any) -> dict[str, Any]:
    """A small valid campaign config (override keys with keyword arguments)."""
    cfg: dict[str, Any] = {
        "campaign": "t",
        "sizes": ["1KiB", "64KiB"],
        "modes": ["ctr"],
        "ops": ["encrypt"],
        "reps": 3,
        "warmup": 1,
        "backends": {
            "seq": {"impls": ["ttable"]},
            "omp": {"impls": ["ttable"], "threads": [2]},
            "mpi": {"impls": ["ttable"], "ranks": [1, 2]},
            "openssl": {"ciphers": ["aes-128-ctr"]},
        },
        "cluster": {"cores_per_node": 32, "max_ranks": 32},
    }
    cfg.update(over)
    return cfg


def make_point(size: str = "1KiB", **over: Any) -> Point:
    """A benchmark point for tests: the sequential T-table AES-128-CTR encryption of a
    generated ``size`` input unless keyword arguments say otherwise. ``size`` sets the
    label, the input name and (unless ``size_bytes`` is given) the byte count; ``mode``
    defaults to the cipher's last part (``aes-256-cbc`` -> ``cbc``); ``id`` defaults to
    the id the sweep itself gives such a point."""
    cipher = str(over.get("cipher", "aes-128-ctr"))
    fields: dict[str, Any] = {
        "backend": "seq",
        "impl": "ttable",
        "mode": cipher.lower().split("-")[-1],
        "op": "encrypt",
        "cipher": cipher,
        "size_label": size,
        "input_name": size,
        "input_path": None,
    }
    fields.update(over)
    if "size_bytes" not in fields:
        fields["size_bytes"] = parse_size(size)
    point = Point(**fields)
    if point.id:
        return point
    return replace(point, id=point_id(
        point.backend, point.impl, point.mode, point.op, point.cipher,
        point.input_name, point.ranks, point.threads, point.gpus, point.block_threads,
        point.key_bits, point.variant, point.streams,
    ))  # fmt: skip


def summary_context(rows: list[tuple[Point, dict[str, Any]]], **cfg: Any) -> Context:
    """The tables' and comparisons' context of measured points: each point with its
    summary row as gather writes it, every interval with the level it was computed
    at (95% unless the row gives one); ``cfg`` over a baseline of seq ref."""
    summary = []
    for p, v in rows:
        row = {"point": p.id, "status": "ok", **v}
        for k in v:
            if k.endswith("_ci_low"):
                row.setdefault(k[: -len("_low")] + "_level", 0.95)
        summary.append(row)
    return Context(
        {"baseline": {"backend": "seq", "impl": "ref"}, **cfg},
        [p for p, _ in rows],
        pd.DataFrame(summary),
    )


# the programs of pousa2011 as point fields (each with impl ref unless it says)
POUSA_SHAPES: dict[str, dict[str, Any]] = {
    "seq": {"backend": "seq"},
    "omp": {"backend": "omp", "threads": 8},
    "mpi8": {"backend": "mpi", "ranks": 8},
    "mpi16": {"backend": "mpi", "ranks": 16},
    "mpi32": {"backend": "mpi", "ranks": 32},
    "cuda": {"backend": "cuda", "impl": "gpu-ref", "gpus": 1, "block_threads": 256},
}


def run_spec(tmp_path: Path, point: Point, input_path: Path, **over: Any) -> RunSpec:
    """A bench job's spec for ``point`` outside the workflow: its raw file and log under
    ``tmp_path``, the kernels of the test build, no energy probe (``over`` changes
    any field)."""
    fields: dict[str, Any] = {
        "campaign": "t",
        "input_path": str(input_path),
        "out_path": str(tmp_path / "raw" / f"{point.id}.jsonl"),
        "log_path": str(tmp_path / "logs" / f"{point.id}.log"),
        "kernel_dir": str(KERNELS),
        "energy": "none",
        "attempt": "first",
    }
    return RunSpec(**{**fields, **over})


def planned_points(output: str) -> list[str]:
    """The points a run (or a dry run) says it measures, from its output: the
    workflow's ``ciphersweep: to measure: <point> (<why>)`` lines, sorted."""
    prefix = "ciphersweep: to measure: "
    return sorted(
        line.split(prefix, 1)[1].split(" (", 1)[0]
        for line in output.splitlines()
        if prefix in line
    )


def run_snakemake(
    workdir: Path,
    config: dict[str, Any] | None,
    *args: str,
    profile: str | None = "local",
    timeout: int = 300,
) -> subprocess.CompletedProcess[str]:
    """Run the project's Snakefile in ``workdir`` with ``config`` as the campaign file."""
    workdir.mkdir(parents=True, exist_ok=True)
    cmd = [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "--directory", str(workdir)]
    if config is not None:
        cfgfile = workdir / "campaign.yaml"
        cfgfile.write_text(yaml.safe_dump(config))
        cmd += ["--configfile", str(cfgfile)]
    if profile:
        cmd += ["--profile", str(ROOT / "profiles" / profile)]
    cmd += list(args)
    env = with_plugin(dict(os.environ))
    env.setdefault("USER", "root")
    return subprocess.run(
        cmd,
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a shell file (values shell-quoted, as tests/cluster writes
    them), read as bash's `source` reads them."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            out[k] = "".join(shlex.split(v))
    return out


@contextmanager
def default_signals() -> Iterator[None]:
    """Children started inside this block get the default dispositions of SIGINT,
    SIGTERM and SIGHUP, however the suite was started: a process started under nohup,
    as a background job or by a CI runner may inherit them ignored, and an ignored
    signal stays ignored across exec (a handled one is reset to the default)."""
    saved = {
        s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    }
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for s in (signal.SIGTERM, signal.SIGHUP):
        if saved[s] is signal.SIG_IGN:
            signal.signal(s, signal.SIG_DFL)
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def console(progress: bool = True, **settings: bool) -> tuple[Any, io.StringIO]:
    """The console plugin's handler writing to a string, as profiles/local sets it up
    (``progress``) or as every other run gets it (profiles/default); ``settings``:
    Snakemake's output settings (dryrun, verbose, ...)."""
    from snakemake_interface_logger_plugins.tests import MockOutputSettings
    from snakemake_logger_plugin_ciphersweep import LogHandler, LogHandlerSettings

    common = MockOutputSettings()
    common.printshellcmds = False
    for k, v in settings.items():
        setattr(common, k, v)
    h = LogHandler(common_settings=common, settings=LogHandlerSettings(progress))
    out = io.StringIO()
    h.stream = out
    return h, out


def log_record(
    event: Any, level: int = logging.INFO, msg: str = "", **kw: Any
) -> logging.LogRecord:
    """A Snakemake log record of ``event`` (None: a plain message) with ``kw`` set."""
    r = logging.LogRecord("snakemake", level, "x", 1, msg, None, None)
    if event is not None:
        r.event = event
    for k, v in kw.items():
        setattr(r, k, v)
    return r
