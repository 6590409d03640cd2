"""Mistakes caught before any job: repeated list entries, a baseline outside the sweep,
unreadable inputs, YAML syntax errors, result paths that cannot be written, sizes that
do not fit in memory and cipher names the installed OpenSSL does not have. One line
each, naming the key (or file and line) and what is allowed."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from ciphersweep.campaign import preflight
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import sweep
from support import ROOT, base_config, run_snakemake


def _error(cfg: dict, workdir: Path = ROOT) -> str:
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_config.validate(cfg, root=ROOT, workdir=workdir)
    return cs_config.format_error(exc.value)


@pytest.mark.parametrize(
    "over, where, value",
    [
        (
            {"backends": {"seq": {"impls": ["ttable", "ttable"]}}},
            "backends.seq.impls[1]",
            "'ttable'",
        ),
        ({"backends": {"omp": {"threads": [2, 4, 2]}}}, "backends.omp.threads[2]", "2"),
        ({"backends": {"mpi": {"ranks": [1, 1]}}}, "backends.mpi.ranks[1]", "1"),
        (
            {"backends": {"openssl": {"ciphers": ["aes-128-ctr", "AES-128-CTR"]}}},
            "backends.openssl.ciphers[1]",
            "'AES-128-CTR'",
        ),
        ({"modes": ["ctr", "ecb", "ctr"]}, "modes[2]", "'ctr'"),
        ({"ops": ["encrypt", "encrypt"]}, "ops[1]", "'encrypt'"),
        (
            {"backends": {"cuda": {"block_threads": [256, 256]}}},
            "backends.cuda.block_threads[1]",
            "256",
        ),
    ],
)
def test_repeated_list_entry_names_the_key(over, where, value) -> None:
    msg = _error(base_config(**over))
    assert msg == (
        f"ciphersweep: invalid config: {where}: {value} is listed twice "
        "(allowed: each value once)"
    )


def test_baseline_outside_the_sweep() -> None:
    cfg = base_config(backends={"omp": {"threads": [2]}}, baseline={"backend": "seq"})
    assert _error(cfg).startswith(
        "ciphersweep: invalid config: baseline.backend: 'seq' is not in this "
        "campaign's backends"
    )


def test_unreadable_input_file() -> None:
    # a directory every user may enter (pytest's own are private to their owner)
    with tempfile.TemporaryDirectory(prefix="cs-unreadable-") as d:
        Path(d).chmod(0o755)
        data = Path(d) / "data.bin"
        data.write_bytes(b"x" * 64)
        data.chmod(0o000)
        cfg = base_config(inputs=[{"name": "mine", "path": str(data)}])
        if os.geteuid() != 0:
            msg = _error(cfg)
        else:  # root reads anything: ask as an unprivileged user
            code = (
                "import sys, yaml; sys.path.insert(0, sys.argv[1]);"
                "from ciphersweep.plan import config as c\n"
                "try: c.validate(yaml.safe_load(sys.argv[2]), root=sys.argv[3])\n"
                "except c.ConfigError as e: print(c.format_error(e))"
            )
            proc = subprocess.run(
                ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
                + [sys.executable, "-c", code, str(ROOT / "workflow")]
                + [yaml.safe_dump(cfg), str(ROOT)],
                capture_output=True,
                text=True,
                check=False,
            )
            msg = proc.stdout.strip() or proc.stderr[-2000:]
    assert msg == (
        f"ciphersweep: invalid config: inputs[0].path: '{data}' cannot be read "
        "(Permission denied; allowed: an existing, readable file)"
    )


def test_yaml_error_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "campaign.yaml"
    bad.write_text("campaign: x\nsizes: [1KiB\nbackends:\n  seq: {}\n")
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_config.load_file(bad)
    assert str(exc.value).startswith(f"{bad}:3: YAML syntax error:")


def test_result_paths_that_cannot_be_written(tmp_path: Path) -> None:
    res = tmp_path / "results"
    (res / "tables").mkdir(parents=True)
    (res / "tables" / "time.csv").mkdir()
    (res / "plots").write_text("not a directory")
    assert preflight.output_problem([res / "raw" / "a.jsonl"]) is None
    assert preflight.output_problem([res / "tables" / "time.csv"]) == (
        f"{res / 'tables' / 'time.csv'} is a directory (allowed: a file, or nothing there)"
    )
    assert preflight.output_problem([res / "plots" / "time.png"]) == (
        f"{res / 'plots'} is a file (allowed: a directory, or nothing there)"
    )


def test_result_paths_of_one_folder_are_looked_up_with_one_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A campaign's raw files share a folder: it is listed once, and the one name
    taken by a folder among thousands is found; a folder that cannot be listed (only
    written) has its names looked up one by one."""
    raw = tmp_path / "results" / "raw"
    raw.mkdir(parents=True)
    (raw / "p4321.jsonl").mkdir()
    paths = [raw / f"p{i}.jsonl" for i in range(5000)]
    listed: list[str] = []
    scandir = os.scandir

    def counted(path: Any) -> Any:
        listed.append(os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    want = f"{raw / 'p4321.jsonl'} is a directory (allowed: a file, or nothing there)"
    assert preflight.output_problem(paths) == want
    assert listed == [str(raw)]

    def unlistable(path: Any) -> Any:
        raise PermissionError(13, "Permission denied", os.fspath(path))

    monkeypatch.setattr(os, "scandir", unlistable)
    assert preflight.output_problem(paths) == want
    assert preflight.output_problem(paths[:4000]) is None


def _as_unprivileged(*paths: Path) -> str:
    """preflight.output_problem(paths) asked as the user ``nobody`` (this process
    itself when it is not root: root writes anywhere)."""
    if os.geteuid() != 0:
        return str(preflight.output_problem(list(paths)))
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from ciphersweep.campaign import preflight as p;"
        "print(p.output_problem(sys.argv[2:]))"
    )
    proc = subprocess.run(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        + [sys.executable, "-c", code, str(ROOT / "workflow"), *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip() or proc.stderr[-2000:]


def test_read_only_tables_directory() -> None:
    with tempfile.TemporaryDirectory(prefix="cs-readonly-") as d:
        Path(d).chmod(0o755)
        tables = Path(d) / "results" / "tables"
        tables.mkdir(parents=True)
        tables.chmod(0o555)
        msg = _as_unprivileged(tables / "time.csv")
    assert msg == f"{tables} is not writable (allowed: a directory you can write)"


def test_an_absolute_store_needs_only_its_nearest_folder_writable() -> None:
    """A history store shared by a team (``/project/team/history.sqlite``): the
    folder it goes in, or the nearest one there above it, must be writable, not ``/``
    and every folder on the way (a user's run was refused: "/ is not writable")."""
    with tempfile.TemporaryDirectory(prefix="cs-shared-") as d:
        team = Path(d) / "team"
        team.mkdir()
        team.chmod(0o777)  # the team's folder; its parents are root's
        Path(d).chmod(0o755)
        assert _as_unprivileged(team / "history.sqlite") == "None"
        assert _as_unprivileged(team / "new" / "deeper" / "history.sqlite") == "None"
        locked = Path(d) / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        assert _as_unprivileged(locked / "new" / "history.sqlite") == (
            f"{locked} is not writable (allowed: a directory you can write)"
        )


def test_sizes_that_do_not_fit_in_memory() -> None:
    cfg = cs_config.validate(
        base_config(sizes=["1KiB", "4GiB"]), root=ROOT, workdir=ROOT
    )
    points = sweep.expand(cfg)
    avail = preflight.available_bytes()
    assert avail is not None and avail > 2**20
    preflight.check_memory(cfg, points, 64 * 2**30)
    with pytest.raises(cs_config.ConfigError) as exc:
        preflight.check_memory(cfg, points, 8 * 2**30)
    assert str(exc.value) == (
        "invalid config: sizes[1]: 4GiB needs about 20.0 GiB for the input, output and "
        "reference buffers of mpi-ttable-ctr-enc-4GiB-r2-t1; 8.0 GiB of memory is "
        "available here (allowed: sizes whose buffers fit in available memory)"
    )


def test_cipher_names_of_the_installed_openssl() -> None:
    provided, _ = preflight.openssl_ciphers()
    assert "aes-128-ctr" in provided and "aes-256-cbc" in provided
    ok = cs_config.validate(
        base_config(backends={"openssl": {"ciphers": ["aes-128-ctr", "ChaCha20"]}}),
        root=ROOT,
        workdir=ROOT,
    )
    preflight.check_ciphers(ok)
    bad = cs_config.validate(
        base_config(backends={"openssl": {"ciphers": ["aes-128-ctr", "aes-128-xyz"]}}),
        root=ROOT,
        workdir=ROOT,
    )
    with pytest.raises(cs_config.ConfigError) as exc:
        preflight.check_ciphers(bad)
    assert str(exc.value).startswith(
        "invalid config: backends.openssl.ciphers[1]: 'aes-128-xyz' is not a cipher "
        "of the installed OpenSSL"
    )
    # Blowfish lives in the legacy provider: fine where it is installed, else named
    legacy = cs_config.validate(
        base_config(backends={"openssl": {"ciphers": ["bf-cbc"]}}),
        root=ROOT,
        workdir=ROOT,
    )
    if "bf-cbc" in provided:
        preflight.check_ciphers(legacy)
    else:
        with pytest.raises(cs_config.ConfigError, match="needs an OpenSSL provider"):
            preflight.check_ciphers(legacy)


def _one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("ciphersweep:")]
    assert len(lines) == 1, proc.stderr[-2000:]
    return lines[0]


def test_workflow_refuses_before_any_job(tmp_path: Path) -> None:
    """Through Snakemake (dry run, local profile): nothing is written."""
    line = _one_line_error(
        run_snakemake(tmp_path, base_config(sizes=["1KiB", "64GiB"]), "-n")
    )
    assert line.startswith("ciphersweep: invalid config: sizes[1]: 64GiB needs about")
    (tmp_path / "results" / "t" / "tables").mkdir(parents=True)
    (tmp_path / "results" / "t" / "tables" / "time.md").mkdir()
    line = _one_line_error(run_snakemake(tmp_path, base_config(), "-n"))
    assert line == (
        "ciphersweep: cannot write the results: results/t/tables/time.md is a "
        "directory (allowed: a file, or nothing there)"
    )
    assert sorted(p.name for p in (tmp_path / "results" / "t").rglob("*")) == [
        "tables",
        "time.md",
    ]


def test_default_config_and_overrides_without_snakemake_notice(tmp_path: Path) -> None:
    """config/config.yaml is the campaign unless --configfile replaces it; --config
    overrides keys of either; no "is extended by additional config" notice."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(
        yaml.safe_dump(base_config(campaign="dflt", reps=0))
    )
    line = _one_line_error(run_snakemake(tmp_path, None, "-n"))
    assert line == "ciphersweep: invalid config: reps: 0 is too small (allowed: >= 1)"
    fixed = run_snakemake(tmp_path, None, "-n", "--config", "reps=2")
    assert fixed.returncode == 0, fixed.stderr[-2000:]
    other = run_snakemake(tmp_path, base_config(campaign="other"), "-n", "--verbose")
    out = other.stdout + other.stderr
    assert other.returncode == 0 and "results/other/" in out and "dflt" not in out
    assert "extended by additional config" not in out
    (tmp_path / "config" / "config.yaml").write_text("campaign: [x\n")
    line = _one_line_error(run_snakemake(tmp_path, None, "-n"))
    assert line.startswith("ciphersweep: config/config.yaml:2: YAML syntax error")
