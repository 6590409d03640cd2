"""Hostile campaign values: each is refused before any job starts with one line naming
the key and what is allowed (integers given as floats, values past what a job can
take, names that collide, compiler flags that name files, templates that only look
right, key lengths that would be ignored, files compare reads that hold nothing)."""

from __future__ import annotations

import copy
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from ciphersweep.analysis.tables import registry as cs_registry
from ciphersweep.campaign import preflight as cs_preflight
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import sweep as cs_sweep
from support import ROOT, SNAKEMAKE, base_config

Mutate = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutate:
    """Set a dotted key (creating mappings on the way)."""

    def mutate(cfg: dict[str, Any]) -> None:
        node = cfg
        *head, last = path.split(".")
        for k in head:
            node = node.setdefault(k, {})
        node[last] = value

    return mutate


def _refused(mutate: Mutate, tmp_path: Path, cfg: dict[str, Any] | None = None) -> str:
    cfg = copy.deepcopy(cfg or base_config())
    mutate(cfg)
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_config.validate(cfg, root=ROOT, workdir=tmp_path)
    msg = str(exc.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


# key -> value that a schema bound or type lets through today and a job then crashes on
NUMBERS = {
    "reps 3.0": ("reps", 3.0, "reps"),
    "warmup 1.0": ("warmup", 1.0, "warmup"),
    "processes 2.0": ("processes", 2.0, "processes"),
    "batch 1.0": ("batch", 1.0, "batch"),
    "threads [1.0]": ("backends.omp.threads", [1.0], "backends.omp.threads[0]"),
    "ranks [2.0]": ("backends.mpi.ranks", [1, 2.0], "backends.mpi.ranks[1]"),
    "seed 2^64": ("seed", 2**64, "seed"),
    "seed 1.0": ("seed", 1.0, "seed"),
    "timeout 1e20": ("timeout_s", 1e20, "timeout_s"),
    "timeout one week and a second": ("timeout_s", 604801, "604800"),
    "timeout 10.0": ("timeout_s", 10.0, "timeout_s"),
    "cores 32.0": ("cluster.cores_per_node", 32.0, "cluster.cores_per_node"),
    "pack_size float": ("cluster.pack_size", 1e9, "cluster.pack_size"),
    "pack_max_runtime huge": ("cluster.pack_max_runtime", 10**12, "pack_max_runtime"),
    "gpus_per_node huge": ("cluster.gpus_per_node", 10**6, "gpus_per_node"),
    "max_reps 10.0": ("precision", {"target": 0.02, "max_reps": 10.0}, "max_reps"),
    "max_seconds nan": (
        "precision",
        {"target": 0.02, "max_seconds": float("nan")},
        "max_seconds",
    ),
    "target inf": ("precision", {"target": float("inf")}, "precision.target"),
    "key_bits float": ("key_bits", {"aes-128-ctr": [128.0]}, "key_bits.aes-128-ctr[0]"),
    "true as an integer": ("reps", True, "reps"),
}


@pytest.mark.parametrize("case", sorted(NUMBERS))
def test_numbers_that_crash_a_job_are_refused(case: str, tmp_path: Path) -> None:
    key, value, named = NUMBERS[case]
    msg = _refused(_set(key, value), tmp_path)
    assert named in msg, msg


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        ("sizes", [10**30], "sizes[0]"),
        ("sizes", ["1KiB", "2048GiB"], "sizes[1]"),
        (
            "inputs",
            [{"name": "g", "generate": {"count": 2, "min": 1, "max": 2**41}}],
            "inputs[0].generate",
        ),
    ],
)
def test_sizes_past_one_tebibyte_are_refused(
    key: str, value: Any, named: str, tmp_path: Path
) -> None:
    msg = _refused(_set(key, value), tmp_path)
    assert named in msg and "1TiB" in msg, msg


def test_generated_count_as_float_is_refused(tmp_path: Path) -> None:
    item = {"name": "g", "generate": {"count": 3.0, "min": "1KiB", "max": "2KiB"}}
    msg = _refused(_set("inputs", [item]), tmp_path)
    assert "inputs[0].generate.count" in msg


def test_table_digits_as_float_is_refused(tmp_path: Path) -> None:
    layout = {"name": "mine", "value": "t_total", "digits": 4.0}
    msg = _refused(_set("tables", [layout]), tmp_path)
    assert "tables[0].digits" in msg


def test_reference_bounds_must_be_finite(tmp_path: Path) -> None:
    ref = {"where": {"backend": "seq"}, "value": 1.0, "lower": float("-inf")}
    msg = _refused(_set("compare", {"references": [ref]}), tmp_path)
    assert "compare.references[0].lower" in msg and "finite" in msg


# ------------------------------------------------------------------ compiler flags

BAD_FLAGS = [
    "-O2 -o out.bin",
    "-O2 -oout.bin",
    "-MD -MF deps.d",
    "-MMD",
    "-specs=evil.specs",
    "@flags.txt",
    "-Wl,-o,out.bin",
    "-Wa,-adhln=listing.txt",
    "-include /etc/passwd",
    "-I/tmp",
    "-B/tmp",
    "-fplugin=./evil.so",
    "-fprofile-generate",
    "-fdump-tree-all",
    "-fstack-usage",
    "-save-temps",
    "-dumpdir x/",
    "--output=out.bin",
    "-O2 $(touch x)",
    "-march=native;rm",
]


@pytest.mark.parametrize("flags", BAD_FLAGS)
def test_cflags_that_are_not_compiler_flags_are_refused(
    flags: str, tmp_path: Path
) -> None:
    msg = _refused(
        _set("build", {"variants": [{"name": "v", "cflags": flags}]}), tmp_path
    )
    assert "build.variants[0].cflags" in msg, msg


@pytest.mark.parametrize(
    "flags", ["", "-O0", "-O2 -march=native", "-O3 -funroll-loops -DNDEBUG -g", "-Os"]
)
def test_compiler_flags_are_accepted(flags: str, tmp_path: Path) -> None:
    cfg = base_config(build={"variants": [{"name": "v", "cflags": flags}]})
    cs_config.validate(cfg, root=ROOT, workdir=tmp_path)


def test_cmake_flags_are_checked_too(tmp_path: Path) -> None:
    msg = _refused(
        _set("build", {"cmake_args": ["-DCMAKE_C_FLAGS=-O1 -o x.bin"]}), tmp_path
    )
    assert "build.cmake_args[0]" in msg and "'-o'" in msg


# ------------------------------------------------------------------ key lengths


def _python_cfg(**over: Any) -> dict[str, Any]:
    cfg = base_config(**over)
    cfg["backends"] = {"pycryptodome": {"ciphers": ["aes-128-cbc", "bf-cbc"]}}
    return cfg


def test_key_bits_apply_whatever_the_case_of_the_cipher(tmp_path: Path) -> None:
    for ciphers, key in ((["BF-CBC"], "bf-cbc"), (["bf-cbc"], "BF-CBC")):
        cfg = _python_cfg(key_bits={key: [64, 128]})
        cfg["backends"]["pycryptodome"]["ciphers"] = ciphers
        norm = cs_config.validate(cfg, root=ROOT, workdir=tmp_path)
        bits = sorted(p.key_bits for p in cs_sweep.expand(norm) if p.cipher == "bf-cbc")
        assert bits == [64, 64, 128, 128], bits  # two sizes x two key lengths


@pytest.mark.parametrize(
    ("key_bits", "named"),
    [
        ({"aes-256-cbc": [256]}, "key_bits.aes-256-cbc"),  # not a cipher here
        ({"bf-cbc": [64], "BF-CBC": [128]}, "key_bits.BF-CBC"),  # given twice
        ({"bf-cbc": [64, 64]}, "key_bits.bf-cbc[1]"),  # a length twice
    ],
)
def test_key_bits_that_would_be_ignored_are_refused(
    key_bits: dict[str, list[int]], named: str, tmp_path: Path
) -> None:
    cfg = _python_cfg(key_bits=key_bits)
    msg = _refused(lambda c: None, tmp_path, cfg)
    assert named in msg, msg


# ------------------------------------------------------------------ templates


def _command_cfg(encrypt: list[str]) -> dict[str, Any]:
    cfg = base_config()
    cfg["backends"] = {
        "command": {
            "programs": [
                {"name": "ossl", "ciphers": ["aes-128-cbc"], "encrypt": encrypt}
            ]
        }
    }
    return cfg


OSSL = ["openssl", "enc", "-{cipher}", "-K", "{key}", "-iv", "{iv}", "-in", "{input}"]


@pytest.mark.parametrize(
    "tail",
    [
        ["-out", "{{output}}"],  # a literal "{output}" file, not the placeholder
        ["-out", "{output}", "-pass", "pass:{{x}}"],
        ["-out", "x{{output}}y"],
        ["-out", "}}{output}"],
        ["-out", "{output}", "-out", "{input}"],  # would write over the input
    ],
)
def test_templates_are_read_as_they_are_expanded(
    tail: list[str], tmp_path: Path
) -> None:
    msg = _refused(lambda c: None, tmp_path, _command_cfg(OSSL + tail))
    assert "backends.command.programs[0].encrypt" in msg, msg


# ------------------------------------------------------------------ inputs


def test_a_file_named_like_a_set_member_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f.bin").write_bytes(b"x" * 100)
    inputs = [
        {"name": "a", "generate": {"count": 3, "min": "1KiB", "max": "2KiB"}},
        {"name": "a.001", "path": "f.bin"},
    ]
    msg = _refused(_set("inputs", inputs), tmp_path)
    assert "inputs[" in msg and "'a.001'" in msg, msg


# ------------------------------------------------------------------ compare files


@pytest.mark.parametrize("content", ["", "\n", "point,status\n", None])
def test_compare_campaign_without_results_is_refused(
    content: str | None, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    if content is None:
        (other / "summary.csv").mkdir()  # cannot be read as a file
    else:
        (other / "summary.csv").write_text(content)
    msg = _refused(_set("compare", {"campaign": str(other)}), tmp_path)
    assert "compare.campaign" in msg and "summary.csv" in msg, msg


CLAIM = {
    "id": "x",
    "text": "AES is four times faster",
    "kind": "factor",
    "quantity": "throughput",
    "faster": {"impl": "aesni"},
    "slower": {"impl": "ttable"},
    "expect": 4,
}


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"expect": "four"}, "claims[0].expect"),
        ({"tolerance": "10%"}, "claims[0].tolerance"),
        ({"tolerance": -0.1}, "claims[0].tolerance"),
        ({"at_least": "yes"}, "claims[0].at_least"),
        ({"aggregate": "mode"}, "claims[0].aggregate"),
        ({"kind": "values", "expect": [{"where": {}, "value": "1"}]}, "value"),
    ],
)
def test_claims_with_wrong_types_are_refused(
    change: dict[str, Any], named: str, tmp_path: Path
) -> None:
    path = tmp_path / "c.claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [{**CLAIM, **change}]}))
    msg = _refused(_set("compare", {"claims": str(path)}), tmp_path)
    assert "compare.claims" in msg and named in msg, msg


def test_shipped_claims_pass(tmp_path: Path) -> None:
    for path in sorted(
        (ROOT / "config" / "campaigns" / "published").glob("*.claims.yaml")
    ):
        cfg = base_config(compare={"claims": str(path)})
        cs_config.validate(cfg, root=ROOT, workdir=tmp_path)


# ------------------------------------------------------------------ YAML files


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("campaign: a\nreps: 3\nreps: 5\n", 3),
        ("campaign: a\nbackends:\n  seq: {impls: [ref]}\n  seq: null\n", 4),
        ("campaign: a\nkey_bits: {bf-cbc: [64], bf-cbc: [128]}\n", 2),
    ],
)
def test_duplicate_yaml_keys_are_refused(text: str, line: int, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_config.load_file(path)
    assert str(exc.value).startswith(f"{path}:{line}: ")
    assert "given twice" in str(exc.value)


def test_yaml_merge_keys_may_be_overridden(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("campaign: a\nx: &x {p: 1, q: 2}\nb:\n  <<: *x\n  p: 3\n")
    assert cs_config.load_file(path)["b"] == {"p": 3, "q": 2}


def test_duplicate_keys_in_a_claims_file_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.claims.yaml"
    text = yaml.safe_dump({"claims": [CLAIM]})
    path.write_text(text + "  expect: 5\n")  # expect given twice
    msg = _refused(_set("compare", {"claims": str(path)}), tmp_path)
    assert "compare.claims" in msg and "given twice" in msg


# ------------------------------------------------------------------ the plan


def _plan(cfg: dict[str, Any], tmp_path: Path) -> tuple[dict[str, Any], list[Any]]:
    norm = cs_config.validate(cfg, root=ROOT, workdir=tmp_path)
    return norm, cs_sweep.expand(norm)


@pytest.mark.parametrize("name", ["time", "throughput", "mine_aesni"])
def test_a_table_named_like_another_is_refused(name: str, tmp_path: Path) -> None:
    layouts = [
        {"name": "mine", "value": "t_total", "per": "impl"},
        {"name": name, "value": "t_total"},
    ]
    cfg = base_config(tables=layouts)
    cfg["backends"]["seq"]["impls"] = ["aesni", "ttable"]
    norm, points = _plan(cfg, tmp_path)
    outs = [f"t/{n}.csv" for n in cs_registry.table_names(norm, points)]
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_preflight.check_unique(norm, outs)
    assert "tables[1].name" in str(exc.value) and repr(name) in str(exc.value)


def test_a_reference_that_selects_no_point_is_refused(tmp_path: Path) -> None:
    ref = {"where": {"backend": "cuda"}, "value": 1.0}
    norm, points = _plan(
        base_config(compare={"references": [ref], "on_violation": "fail"}), tmp_path
    )
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_preflight.check_references(norm, points)
    assert "compare.references[0].where" in str(exc.value)
    ok = {"where": {"backend": "seq"}, "value": 1.0}
    norm, points = _plan(base_config(compare={"references": [ok]}), tmp_path)
    cs_preflight.check_references(norm, points)


# ------------------------------------------------------------------ end to end


def _dry_run(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "bad.yaml").write_text(text)
    return subprocess.run(
        [SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path)]
        + ["--configfile", str(tmp_path / "bad.yaml"), "-n"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ("reps: 3\nreps: 3.0\n", "bad.yaml:"),
        ("tables: [{name: time, value: t_total}]\n", "tables[0].name"),
    ],
)
def test_snakemake_stops_with_one_line(change: str, named: str, tmp_path: Path) -> None:
    text = yaml.safe_dump(base_config()).replace("reps: 3\n", "") + change
    proc = _dry_run(tmp_path, text)
    assert proc.returncode == 1, proc.stderr
    out = proc.stderr + proc.stdout
    assert "Traceback" not in out and 'File "' not in out
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("ciphersweep:")]
    assert len(lines) == 1 and named in lines[0], proc.stderr
    assert not (tmp_path / "results").exists()
