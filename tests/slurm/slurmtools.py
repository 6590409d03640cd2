"""Helpers of the Slurm tests: the private test cluster (tests/cluster/up.sh and
down.sh), Slurm clients pointed at its private configuration, and Snakemake runs with
profiles/slurm against it."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import default_signals, read_env_file

ROOT = Path(__file__).resolve().parents[2]
CLUSTER_DIR = ROOT / "tests" / "cluster"
VENV_BIN = ROOT / ".venv" / "bin"
SNAKEMAKE = (
    str(VENV_BIN / "snakemake") if (VENV_BIN / "snakemake").exists() else "snakemake"
)
KERNELS = ROOT / "build" / "kernels"
# The container tests' image helpers (tests/containers/imagetools.py): the Charliecloud
# campaigns under Slurm run in the same cached CPU image
sys.path.insert(0, str(ROOT / "tests" / "containers"))
from imagetools import cached_cpu_image, stage_image

# platform: of a campaign whose points run in that image with ch-run
CHARLIECLOUD = {
    "container": {"runtime": "charliecloud", "recipe": "cpu"},
    "energy": "none",
}


def staged_cpu_image(results: Path) -> str:
    """The cached CPU image (built on first use) handed to a campaign's results
    directory, so that its build_image rule does not run; returns the image digest."""
    return stage_image(cached_cpu_image(), results)


DAEMONS = (
    "munged",
    "mariadbd",
    "mysqld",
    "slurmdbd",
    "slurmctld",
    "slurmd",
    "slurmstepd",
)
NEEDED = (
    "munged",
    "mungekey",
    "mariadb-install-db",
    "mariadbd",
    "slurmdbd",
    "slurmctld",
    "slurmd",
    "sbatch",
    "srun",
    "sacct",
    "squeue",
    "scancel",
    "mpicc",
)


def _missing_prerequisite() -> str | None:
    if os.geteuid() != 0:
        return "the private Slurm test cluster needs root (it starts munge, MariaDB, Slurm)"
    missing = [x for x in NEEDED if shutil.which(x) is None]
    if missing:
        return (
            f"not installed: {', '.join(missing)} "
            "(scripts/setup.sh test installs scripts/apt-test.txt)"
        )
    return None


def daemon_pids(state: Path | None = None) -> dict[int, str]:
    """Running processes named like a cluster daemon; with ``state``: only those holding
    a file in that state dir (the test cluster's)."""
    out: dict[int, str] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            comm = (d / "comm").read_text().strip()
        except OSError:
            continue
        if comm not in DAEMONS:
            continue
        if state is not None:
            try:
                cmd = (d / "cmdline").read_bytes().decode(errors="replace")
                links = [os.readlink(f) for f in (d / "fd").iterdir()]
            except OSError:
                continue
            if str(state) not in cmd and not any(str(state) in x for x in links):
                continue
        out[int(d.name)] = comm
    return out


@dataclass
class Cluster:
    state: Path
    env: dict[str, str]
    bringup_s: float
    down_done: bool = False
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def node(self) -> str:
        return self.env["CS_NODE"]

    @property
    def partition(self) -> str:
        return self.env["CS_PARTITION"]

    @property
    def nodes(self) -> list[str]:
        return self.env["CS_NODES"].split()

    def run(self, *cmd: str, timeout: float = 180, check: bool = True) -> str:
        """A Slurm client command against the cluster. The timeout only guards against
        a hang: on a loaded machine a client may wait a while for its daemon. A client
        killed by SIGPIPE (its daemon closed the connection as it wrote: seen once from
        sacct and slurmdbd under the suite's load) is asked again, twice at most."""
        for attempt in range(3):
            p = subprocess.run(
                list(cmd),
                capture_output=True,
                text=True,
                timeout=timeout,
                env=slurm_env(),
                check=False,
            )
            if p.returncode != -signal.SIGPIPE:
                break
            time.sleep(1.0 + attempt)
        if check and p.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr}")
        return p.stdout

    def sacct(self, *args: str) -> list[dict[str, str]]:
        """sacct rows (all jobs of the cluster unless args select others)."""
        fields = [
            "JobID",
            "JobName",
            "State",
            "NodeList",
            "NTasks",
            "ReqTRES",
            "AllocTRES",
            "Comment",
            "Start",
            "End",
        ]
        out = self.run(
            "sacct",
            "-a",
            "--parsable2",
            "--noheader",
            "-S",
            "2020-01-01",
            "--format=" + ",".join(fields),
            *args,
        )
        return [dict(zip(fields, line.split("|"))) for line in out.splitlines() if line]

    def wait_accounted(self, job_ids: set[str], timeout: float = 30) -> None:
        """sacct lags behind slurmctld a little: wait until these jobs have ended there."""
        deadline = time.monotonic() + timeout
        while True:
            rows = {r["JobID"]: r for r in self.sacct("-X")}
            pending = [
                j
                for j in job_ids
                if j not in rows or rows[j]["State"] in ("PENDING", "RUNNING")
            ]
            if not pending or time.monotonic() > deadline:
                return
            time.sleep(0.5)

    def down(self) -> None:
        if self.down_done:
            return
        self.down_done = True
        t0 = time.monotonic()
        p = subprocess.run(
            [str(CLUSTER_DIR / "down.sh"), str(self.state)],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        self.info["teardown_s"] = time.monotonic() - t0
        self.info["teardown_rc"] = p.returncode
        self.info["teardown_out"] = p.stdout + p.stderr


# SLURM_CONF of the private cluster the tests talk to (set by start_cluster)
CURRENT: dict[str, str] = {}


def slurm_env() -> dict[str, str]:
    """The environment of Slurm clients (and of Snakemake) talking to the test cluster:
    its private configuration, never the machine's /etc/slurm."""
    env = dict(os.environ)
    if CURRENT.get("SLURM_CONF"):
        env["SLURM_CONF"] = CURRENT["SLURM_CONF"]
    env.setdefault("USER", "root")
    for k in list(env):  # a test run inside a Slurm job must not leak its allocation
        if k.startswith(("SLURM_JOB", "SLURM_STEP", "SBATCH_", "SRUN_")):
            env.pop(k)
    return env


def missing_prerequisite_or_skip() -> None:
    reason = _missing_prerequisite()
    if reason:
        pytest.skip(reason)


def start_cluster(
    state: Path, *up_args: str, env: dict[str, str] | None = None
) -> Cluster:
    """tests/cluster/up.sh [up_args] STATE: a private cluster; fails the test with the
    daemons' last log lines when it does not come up."""
    missing_prerequisite_or_skip()
    before = daemon_pids()
    t0 = time.monotonic()
    p = subprocess.run(
        [str(CLUSTER_DIR / "up.sh"), *up_args, str(state)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    took = time.monotonic() - t0
    if p.returncode != 0:
        logs = (
            "\n".join(
                f"== {f.name}\n"
                + "\n".join(f.read_text(errors="replace").splitlines()[-15:])
                for f in sorted((state / "log").glob("*"))
                if f.is_file()
            )
            if (state / "log").is_dir()
            else ""
        )
        pytest.fail(f"cluster bring-up failed:\n{p.stdout}\n{p.stderr}\n{logs}")
    cenv = read_env_file(state / "env")
    CURRENT["SLURM_CONF"] = cenv["SLURM_CONF"]
    print(f"\n[slurm] {p.stdout.strip()} (measured {took:.1f} s)", file=sys.stderr)
    c = Cluster(state=state, env=cenv, bringup_s=took)
    c.info["before"] = before
    c.info["etc_slurm"] = etc_slurm_snapshot()
    return c


def netns_left(c: Cluster) -> list[str]:
    """The cluster's network namespaces that still exist (none after down.sh). Other
    Slurm daemons on the machine (another test cluster) are not this test's business:
    the clusters are private and may run side by side."""
    out = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=False
    ).stdout
    prefix = c.env.get("CS_NETNS_PREFIX", "")
    return [x.split()[0] for x in out.splitlines() if prefix and x.startswith(prefix)]


def etc_slurm_snapshot() -> dict[str, bytes]:
    """The machine's /etc/slurm (which the test cluster must never write)."""
    etc = Path("/etc/slurm")
    if not etc.is_dir():
        return {}
    return {str(f): f.read_bytes() for f in sorted(etc.rglob("*")) if f.is_file()}


def cluster_fixture(
    tmp_path_factory: pytest.TempPathFactory,
    *up_args: str,
    env: dict[str, str] | None = None,
) -> Iterator[Cluster]:
    """Body of a module-scoped cluster fixture: up (with ``env``: up.sh's knobs), yield,
    down (fails on a bad tear-down)."""
    c = start_cluster(tmp_path_factory.mktemp("slurm-cluster"), *up_args, env=env)
    yield c
    c.down()
    if c.info.get("teardown_rc"):
        pytest.fail(f"cluster tear-down failed: {c.info.get('teardown_out')}")


# ------------------------------------------------------------------ workflow helpers


# The kernel time limit of every point of the test campaigns. The estimate's (96 s for a
# 32-rank point of 1 KiB, ciphersweep.plan.resources) holds on a cluster; here 32 ranks
# share two cores with the other test clusters' MPI points and the C tests' 32-rank
# checks, and one such point once took longer to start. The tests check what was
# measured, never how fast.
SLOW_START_S = 300


def default_config(**over: Any) -> dict[str, Any]:
    """The shipped default campaign (config/config.yaml) with the given keys replaced."""
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["processes"] = 1  # one kernel process per point: the tests count its records
    cfg["timeout_s"] = SLOW_START_S
    cfg.update(over)
    if cfg.get("baseline", {}).get("backend") not in cfg["backends"]:
        cfg.pop("baseline", None)  # no sequential points: no speedups to ask for
    cfg.setdefault("build", {})["dir"] = str(KERNELS)
    return cfg


def kernels_or_skip(*backends: str) -> None:
    missing = [b for b in backends if not (KERNELS / f"aes-{b}").exists()]
    if missing:
        pytest.skip(
            f"kernels not built (scripts/build-kernels.sh build/kernels): {missing}"
        )


# Test-only settings on top of profiles/slurm: quicker first status check.
FAST = ("--slurm-init-seconds-before-status-checks", "3")


def snakemake_cmd(
    workdir: Path, config: dict[str, Any] | None, *args: str
) -> list[str]:
    workdir.mkdir(parents=True, exist_ok=True)
    cmd = [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "--directory", str(workdir)]
    if config is not None:
        cfgfile = workdir / "campaign.yaml"
        cfgfile.write_text(yaml.safe_dump(config))
        cmd += ["--configfile", str(cfgfile)]
    return cmd + ["--profile", str(ROOT / "profiles" / "slurm"), *FAST, *args]


def run_slurm(
    workdir: Path, config: dict[str, Any] | None, *args: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``snakemake --profile profiles/slurm`` in ``workdir``; its output also lands in
    workdir/snakemake.out."""
    cmd = snakemake_cmd(workdir, config, *args)
    with open(workdir / "snakemake.out", "a") as log:
        with default_signals():  # SIGINT below works however the suite started
            p = subprocess.Popen(
                cmd,
                cwd=workdir,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                env=slurm_env(),
                start_new_session=True,
            )
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGINT)  # snakemake cancels its Slurm jobs
            try:
                out, _ = p.communicate(timeout=90)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, _ = p.communicate(timeout=30)
            log.write(out)
            raise AssertionError(
                f"snakemake did not finish within {timeout} s:\n{out[-4000:]}"
            ) from None
        log.write(out)
    return subprocess.CompletedProcess(cmd, p.returncode, out, "")


def records(raw_dir: Path) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for f in sorted(raw_dir.glob("*.jsonl")):
        out[f.stem] = [json.loads(x) for x in f.read_text().splitlines() if x.strip()]
    return out


def submitted_jobs(text: str) -> list[str]:
    """Slurm job ids the plugin reported as submitted in Snakemake's output."""
    return re.findall(r"submitted with SLURM jobid (\d+)", text)
