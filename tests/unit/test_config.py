"""Config validation: every mistake gives ONE clear message naming the key."""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path

import pytest
import yaml
from ciphersweep.core.units import parse_size, size_label
from ciphersweep.plan import config as cs_config
from support import ROOT, SNAKEMAKE, base_config


def test_valid_config_gets_defaults(tmp_path: Path) -> None:
    cfg = cs_config.validate(base_config(), root=ROOT, workdir=tmp_path)
    assert cfg["seed"] == 1
    assert cfg["platform"]["container"]["runtime"] == "none"
    assert cfg["cluster"]["mpi_launcher"] == "srun"
    assert cfg["debug"]["inject_fault"] == []


@pytest.mark.parametrize(
    "path",
    # config/campaigns/published/ holds the studies' published numbers, not campaigns
    sorted(p for p in (ROOT / "config").rglob("*.yaml") if "published" not in p.parts),
)
def test_shipped_configs_are_valid(path: Path) -> None:
    cs_config.validate(yaml.safe_load(path.read_text()), root=ROOT, workdir=ROOT)


def _bad(mutate, tmp_path: Path) -> str:
    cfg = copy.deepcopy(base_config())
    mutate(cfg)
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_config.validate(cfg, root=ROOT, workdir=tmp_path)
    msg = str(exc.value)
    assert "\n" not in msg
    return msg


BAD = {
    "unknown backend": (
        lambda c: c["backends"].update(fpga={}),
        [
            "backends",
            "fpga",
            "command, cuda, mpi, omp, openssl, purepy, pycryptodome, seq",
        ],
    ),
    "ranks 0": (
        lambda c: c["backends"]["mpi"].update(ranks=[0]),
        ["backends.mpi.ranks[0]", "1..32"],
    ),
    "ranks 33": (
        lambda c: c["backends"]["mpi"].update(ranks=[1, 33]),
        ["backends.mpi.ranks[1]", "33", "1..32", "max_ranks"],
    ),
    "size 12XB": (
        lambda c: c.update(sizes=["1KiB", "12XB"]),
        ["sizes[1]", "12XB", "KiB"],
    ),
    "reps 0": (lambda c: c.update(reps=0), ["reps", ">= 1"]),
    "threads 0": (
        lambda c: c["backends"]["omp"].update(threads=[0]),
        ["backends.omp.threads[0]"],
    ),
    "missing input file": (
        lambda c: c.update(inputs=[{"name": "mine", "path": "no/such/file.bin"}]),
        ["inputs[0].path", "no such file"],
    ),
    "semicolon": (lambda c: c.update(campaign="x; rm -rf /"), ["campaign"]),
    "command substitution": (
        lambda c: c["backends"]["openssl"].update(ciphers=["aes-128-ctr$(reboot)"]),
        ["backends.openssl.ciphers[0]", "shell metacharacters"],
    ),
    "backtick in bind": (
        lambda c: c.update(platform={"container": {"bind": ["/a:`id`"]}}),
        ["platform.container.bind[0]", "shell metacharacters"],
    ),
    "pipe in cmake args": (
        lambda c: c.update(build={"cmake_args": ["-DX=1|sh"]}),
        ["build.cmake_args[0]", "shell"],
    ),
    "unknown impl": (
        lambda c: c["backends"]["seq"].update(impls=["fast"]),
        ["backends.seq.impls[0]", "ttable"],
    ),
    "unknown mode": (lambda c: c.update(modes=["cbc"]), ["modes[0]", "ecb, ctr"]),
    "unknown op": (lambda c: c.update(ops=["sign"]), ["ops[0]", "encrypt, decrypt"]),
    "unknown runtime": (
        lambda c: c.update(platform={"container": {"runtime": "docker"}}),
        ["platform.container.runtime", "none, apptainer, charliecloud"],
    ),
    "unknown top-level key": (
        lambda c: c.update(repetitions=3),
        ["unknown key 'repetitions'"],
    ),
    "no sizes": (lambda c: c.update(sizes=[]), ["sizes", "at least one"]),
    "duplicate size": (
        lambda c: c.update(sizes=["1KiB", "1024B"]),
        ["sizes[1]", "repeats"],
    ),
    "cuda gpus": (
        lambda c: c["backends"].update(cuda={"gpus": [2]}),
        ["backends.cuda.gpus[0]", "gpus_per_node"],
    ),
    "cuda impl": (
        lambda c: c["backends"].update(cuda={"impls": ["ttable"]}),
        ["backends.cuda.impls[0]", "auto, gpu-lanes, gpu-ttable, gpu-ref"],
    ),
    "cuda streams": (
        lambda c: c["backends"].update(cuda={"streams": [1, 0]}),
        ["backends.cuda.streams[1]", "1..64"],
    ),
    "block threads": (
        lambda c: c["backends"].update(cuda={"block_threads": [100]}),
        ["block_threads[0]", "multiples of 32"],
    ),
    "bad cipher": (
        lambda c: c["backends"]["openssl"].update(ciphers=["aes 128"]),
        ["ciphers[0]"],
    ),
    "launcher": (
        lambda c: c["cluster"].update(mpi_launcher="aprun"),
        ["cluster.mpi_launcher", "srun, mpirun"],
    ),
    "no backends": (
        lambda c: c.update(backends={"seq": None}),
        ["backends", "no backend"],
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_config_message(case: str, tmp_path: Path) -> None:
    mutate, expected = BAD[case]
    msg = _bad(mutate, tmp_path)
    assert msg.startswith("invalid config: ")
    for part in expected:
        assert part in msg, f"{part!r} not in {msg!r}"


def test_user_input_file_ok(tmp_path: Path) -> None:
    f = tmp_path / "data.bin"
    f.write_bytes(b"x" * 100)
    cfg = base_config(inputs=[{"name": "mydata", "path": str(f)}])
    out = cs_config.validate(cfg, root=ROOT, workdir=tmp_path)
    assert out["inputs"][0]["name"] == "mydata"


def test_sizes() -> None:
    assert parse_size("1KiB") == 1024
    assert parse_size("15MB") == 15_000_000
    assert parse_size("255MB") == 255_000_000
    assert parse_size("16MiB") == 16 * 2**20
    assert parse_size(4096) == 4096
    assert parse_size("100B") == 100
    assert size_label("1kib") == "1KiB"
    for bad in ("12XB", "0", "", "1.5MB", "-1KB"):
        with pytest.raises(ValueError):
            parse_size(bad)


@pytest.mark.parametrize("case", ["ranks 33", "size 12XB", "command substitution"])
def test_snakemake_stops_with_one_line_and_no_traceback(
    case: str, tmp_path: Path
) -> None:
    """The user sees one line naming the key; no traceback, no job started."""
    cfg = copy.deepcopy(base_config())
    BAD[case][0](cfg)
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(cfg))
    proc = subprocess.run(
        [
            SNAKEMAKE,
            "-s",
            str(ROOT / "Snakefile"),
            "-d",
            str(tmp_path),
            "--configfile",
            str(tmp_path / "bad.yaml"),
            "-n",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    assert 'File "' not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("ciphersweep:")]
    assert len(lines) == 1, proc.stderr
    for part in BAD[case][1]:
        assert part in lines[0]
    assert "Building DAG" not in proc.stderr + proc.stdout
    assert not (tmp_path / "results").exists()
