"""The command line Snakemake reads before the workflow runs: campaign files it cannot
read (a recursive YAML alias, an alias bomb, a tab, bytes that are not UTF-8),
``--config`` values it misreads (nested numbers as strings, ``{a:1}``), options it
silently drops (``--configfile`` or ``--config`` given twice) and a home directory it
cannot write its cache in. Each is one line naming the file and line, the entry or the
directory, and what is allowed; what works is read as Snakemake documents it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml
from ciphersweep.core import yamlfile
from ciphersweep.plan import campaign_source as src
from ciphersweep.plan.config import ConfigError
from snakemake_logger_plugin_ciphersweep import before_run, condensed
from support import ROOT, SNAKEMAKE, base_config, with_plugin

RECURSIVE = "campaign: r\nbackends: &b\n  seq: {impls: [ttable]}\n  again: *b\n"
BOMB = "campaign: b\nl0: &l0 [a, a, a, a, a, a, a, a, a, a]\n" + "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 9)
)

# ------------------------------------------------------------------ YAML files


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        (RECURSIVE, 4, "alias *b is used inside its own anchor &b"),
        ("a: &x [1, [2, *x]]\n", 1, "alias *x is used inside its own anchor &x"),
        (BOMB, 6, "aliases expand to more than 100,000 values"),
        ("sizes:\n\t- 1KiB\n", 2, "(a tab: YAML indents with spaces)"),
        ("reps: 3\nreps: 4\n", 2, "key 'reps' given twice"),
    ],
)
def test_a_file_that_cannot_be_used_is_one_line_with_its_line(
    text: str, line: int, what: str, tmp_path: Path
) -> None:
    f = tmp_path / "c.yaml"
    f.write_text(text)
    with pytest.raises(yamlfile.YamlFileError) as exc:
        yamlfile.load(f)
    msg = str(exc.value)
    assert msg.startswith(f"{f}:{line}: ") and what in msg and "\n" not in msg, msg


def test_bytes_that_are_not_utf8_are_named_with_their_line(tmp_path: Path) -> None:
    f = tmp_path / "latin1.yaml"
    f.write_bytes("campaign: t\nnote: caf\u00e9\n".encode("latin-1"))
    with pytest.raises(yamlfile.YamlFileError, match=r":2: not UTF-8 text \(byte 21 "):
        yamlfile.load(f)


def test_aliases_that_stay_small_are_read(tmp_path: Path) -> None:
    """An anchor used after its node ends, several times, and YAML merge keys: the
    usual ways campaigns share settings."""
    text = (
        "base: &base {impls: [ttable], threads: [2]}\n"
        "omp: {<<: *base, threads: [4]}\n"
        "also: [*base, *base]\n"
        "many: &m [1, 2, 3]\nmore: [*m, *m, *m]\n"
    )
    got = yamlfile.loads(text)
    assert got["omp"] == {"impls": ["ttable"], "threads": [4]}
    assert got["also"][1] == {"impls": ["ttable"], "threads": [2]}
    assert got["more"] == [[1, 2, 3]] * 3


def test_a_file_just_under_the_alias_limit_is_read() -> None:
    """Four levels of ten (11,111 values): far from a bomb, read; five levels are not."""
    four = "\n".join(BOMB.splitlines()[:5]) + "\n"
    assert len(yamlfile.loads(four)["l3"]) == 10
    with pytest.raises(yamlfile.YamlFileError, match="alias bomb"):
        yamlfile.loads("\n".join(BOMB.splitlines()[:6]) + "\n")


# ------------------------------------------------------------------ --config values


@pytest.mark.parametrize(
    ("value", "read"),
    [
        ("{omp:{threads:[2]}}", {"omp": {"threads": [2]}}),  # Snakemake's own parser
        ("{omp: {threads: [2, 4]}, seq: {impls: [ttable]}}",
         {"omp": {"threads": [2, 4]}, "seq": {"impls": ["ttable"]}}),
        ("{'omp': {'threads': [2]}}", {"omp": {"threads": [2]}}),  # Python dict form
        ("{omp: {threads: ['2']}}", {"omp": {"threads": ["2"]}}),  # quoted: a string
        ("[{name: set, generate: {count: 2, min: 1KiB}}]",
         [{"name": "set", "generate": {"count": 2, "min": "1KiB"}}]),
        ("{x: 1.5, y: true, z: null}", {"x": 1.5, "y": True, "z": None}),
    ],
)  # fmt: skip
def test_nested_config_values_keep_their_types(value: str, read: object) -> None:
    assert src.typed_overrides([f"backends={value}"]) == {"backends": read}


def test_single_config_values_are_left_to_snakemake() -> None:
    """reps=5 is Snakemake's int 5 already; a later single value of a key replaces an
    earlier nested one, as in Snakemake."""
    assert src.typed_overrides(["reps=5", "sizes=1KiB"]) == {}
    assert src.typed_overrides(["sizes=[1KiB]", "sizes=2KiB"]) == {}
    assert src.typed_overrides(["sizes=[1KiB]", "sizes=[2KiB]"]) == {"sizes": ["2KiB"]}


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("backends={omp:{threads:2}}",
         ("{threads:2} is one key 'threads:2' without a value (allowed: a space "
          "after each colon, {threads: 2})")),
        ("backends={omp: {}, omp: {}}", "key 'omp' given twice"),
        ("sizes=[1KiB", "--config sizes:1: YAML syntax error"),
        ("backends.omp.threads=[2]", "'backends.omp.threads' is not a key Snakemake"),
        ("reps", "--config reps: not KEY=VALUE"),
        ("x=[1]", "'x' is not a key Snakemake accepts"),
    ],
)  # fmt: skip
def test_config_entries_snakemake_misreads_are_one_line(entry: str, said: str) -> None:
    with pytest.raises(ConfigError) as exc:
        src.typed_overrides([entry])
    msg = str(exc.value)
    assert said in msg and "allowed:" in msg and "\n" not in msg, msg


def test_a_nested_value_is_merged_over_the_files_with_its_types(tmp_path: Path) -> None:
    """The file's omp threads [4] and seq; --config gives omp threads [2]: Snakemake's
    config holds ['2'] (its base loader); the campaign has [2] and keeps seq."""
    f = tmp_path / "c.yaml"
    f.write_text(
        "campaign: c\nbackends: {seq: {impls: [ttable]}, omp: {threads: [4]}}\n"
    )
    given = {
        "campaign": "c",
        "backends": {"seq": {"impls": ["ttable"]}, "omp": {"threads": ["2"]}},
    }
    argv = ["--configfile", str(f), "--config", "backends={omp:{threads:[2]}}", "-n"]
    got = src.from_command_line(given, argv)
    assert got["backends"] == {"seq": {"impls": ["ttable"]}, "omp": {"threads": [2]}}


# ------------------------------------------------------------------ several files


def test_files_in_one_option_merge_in_order(tmp_path: Path) -> None:
    """As Snakemake documents --configfile: later files over earlier ones, mappings
    key by key (a's keys b does not name are kept)."""
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("campaign: a\nreps: 3\nbackends: {seq: {impls: [ttable]}, omp: {}}\n")
    b.write_text("campaign: b\nbackends: {omp: {threads: [2]}}\n")
    got = src.from_command_line({}, ["--configfile", str(a), str(b)])
    assert got == {
        "campaign": "b",
        "reps": 3,
        "backends": {"seq": {"impls": ["ttable"]}, "omp": {"threads": [2]}},
    }


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--configfile", "a.yaml", "--configfile", "b.yaml"],
         ("--configfile given 2 times (a.yaml; b.yaml): Snakemake keeps only the "
          "last one (allowed: one --configfile with every file, merged in order: "
          "--configfile a.yaml b.yaml)")),
        (["--config", "reps=2", "-C", "sizes=[1KiB]"],
         ("--config given 2 times (reps=2; 'sizes=[1KiB]'): Snakemake keeps only "
          "the last one (allowed: one --config with every KEY=VALUE: --config "
          "reps=2 'sizes=[1KiB]')")),
    ],
)  # fmt: skip
def test_an_option_snakemake_would_drop_is_refused(argv: list[str], said: str) -> None:
    with pytest.raises(ConfigError) as exc:
        src.from_command_line({}, argv)
    assert str(exc.value) == said
    assert src.command_line_error(argv) == f"ciphersweep: {said}"


# ------------------------------------------------------------------ the console


def test_the_console_names_the_file_snakemake_could_not_read(tmp_path: Path) -> None:
    """Snakemake's traceback from its config reading becomes the workflow's line,
    found beside the Snakefile (-s); anything else is left as it is."""
    f = tmp_path / "rec.yaml"
    f.write_text(RECURSIVE)
    argv = ["-s", str(ROOT / "Snakefile"), "--configfile", str(f), "-n"]
    report = 'Traceback ...\n  File ".../snakemake/utils.py", in _update_config\n'
    report += "RecursionError: maximum recursion depth exceeded in comparison"
    report = report.replace("_update_config", "_get_overwrite_config")
    line = before_run.one_line(report, argv)
    assert line == (
        f"ciphersweep: {f}:4: alias *b is used inside its own anchor &b: a structure "
        "that contains itself (allowed: an alias of a node that ends before it)"
    )
    assert before_run.one_line("ValueError: something else", argv) is None
    # Snakemake's report of what the workflow reads fine: left as Snakemake wrote it
    f.write_text(yaml.safe_dump(base_config()))
    assert before_run.one_line(report, argv) is None


@pytest.mark.parametrize(
    "error",
    [
        "OSError: [Errno 30] Read-only file system",
        "PermissionError: [Errno 13] Permission denied",  # a home not the user's
        "OSError: [Errno 28] No space left on device",  # a full home disk
    ],
)
def test_the_console_gives_the_cache_variables_for_a_home_it_cannot_write(
    error: str,
) -> None:
    report = (
        "Traceback (most recent call last):\n\n"
        '  File ".../snakemake/sourcecache.py", line 791, in __init__\n'
        "    os.makedirs(self.cache_path, exist_ok=True)\n\n"
        f"{error}: '/home/u/.cache'\n"
    )
    line = condensed(report)
    why = error.split("] ")[1]
    assert line is not None and "\n" not in line
    assert line.startswith(
        "ciphersweep: Snakemake cannot create its cache directory /home/u/.cache "
        f"({why}): set XDG_CACHE_HOME and XDG_CONFIG_HOME"
    )


# ------------------------------------------------------------------ end to end


def _snakemake(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path), "-n", *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=tmp_path,
        env=with_plugin(env or dict(os.environ)),
    )


def _one_line(proc: subprocess.CompletedProcess[str]) -> str:
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    assert "Traceback" not in out and 'File "' not in out, out[-3000:]
    lines = [ln for ln in out.splitlines() if ln.startswith("ciphersweep:")]
    assert len(lines) == 1, out[-3000:]
    return lines[0]


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("rec.yaml", RECURSIVE, "rec.yaml:4: alias *b is used inside its own anchor"),
        ("bomb.yaml", BOMB, "bomb.yaml:6: the aliases expand to more than 100,000"),
        ("tab.yaml", "campaign: t\nsizes:\n\t- 1KiB\n", "tab.yaml:3: YAML syntax"),
        ("latin1.yaml", b"campaign: caf\xe9\n", "latin1.yaml:1: not UTF-8 text"),
        ("empty.yaml", "", "empty.yaml: not a mapping of keys"),
        ("list.yaml", "- campaign\n", "list.yaml: not a mapping of keys"),
    ],
)
def test_snakemake_stops_on_a_file_with_one_line_naming_it(
    name: str, text: str | bytes, said: str, tmp_path: Path
) -> None:
    f = tmp_path / name
    f.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert said in _one_line(_snakemake(tmp_path, "--configfile", str(f)))


def test_snakemake_runs_a_nested_config_value_and_refuses_a_repeated_option(
    tmp_path: Path,
) -> None:
    cfg = base_config(backends={"seq": {"impls": ["ttable"]}})
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(yaml.safe_dump(cfg))
    b.write_text("sizes: [2KiB]\n")  # over a's sizes, a's backends kept
    nested = "backends={seq: {impls: [ttable]}, omp: {impls: [ttable], threads: [3]}}"
    ok = _snakemake(tmp_path, "--configfile", str(a), str(b), "--config", nested)
    out = ok.stdout + ok.stderr
    assert ok.returncode == 0, out[-3000:]
    assert "seq 1, omp 3 threads 1" in out, out[-3000:]
    assert "last: omp-ttable-ctr-enc-2KiB-r1-t3" in out, out[-3000:]
    twice = _snakemake(tmp_path, "--configfile", str(a), "--configfile", str(b))
    assert "--configfile given 2 times" in _one_line(twice)
    assert not (tmp_path / "results").exists()


def test_a_home_snakemake_cannot_write_is_one_line_naming_the_variables(
    tmp_path: Path,
) -> None:
    """HOME is a file (a directory nobody may write reads the same, but the suite
    may run as root): Snakemake cannot make its source cache there."""
    home = tmp_path / "home"
    home.write_text("")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(base_config()))
    env = {**os.environ, "HOME": str(home)}
    env.pop("XDG_CACHE_HOME", None)
    line = _one_line(_snakemake(tmp_path, "--configfile", str(cfg), env=env))
    assert line.startswith(
        f"ciphersweep: Snakemake cannot create its cache directory {home}/.cache "
    )
    assert "XDG_CACHE_HOME" in line
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    ok = _snakemake(tmp_path, "--configfile", str(cfg), env=env)
    assert ok.returncode == 0, (ok.stdout + ok.stderr)[-3000:]
