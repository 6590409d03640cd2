"""Build variants: config checks, points per variant, cmake arguments kept whole,
size(1) parsing and -march=native resolution."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from ciphersweep.job import build as cs_build
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import sweep as cs_sweep
from support import ROOT, base_config

VARIANTS = [
    {"name": "O0", "cflags": "-O0"},
    {"name": "O2-native", "cflags": "-O2 -march=native"},
]


def _cfg(tmp_path: Path, **build) -> dict:
    return cs_config.validate(base_config(build=build), root=ROOT, workdir=tmp_path)


def test_points_are_multiplied_by_variants(tmp_path: Path) -> None:
    plain = cs_sweep.expand(_cfg(tmp_path))
    both = cs_sweep.expand(_cfg(tmp_path, variants=VARIANTS))
    assert len(both) == 2 * len(plain)
    assert {p.variant for p in both} == {"O0", "O2-native"}
    assert len({p.id for p in both}) == len(both)
    assert all(p.id.endswith(f"-v{p.variant}") for p in both)
    assert all(p.variant == "" for p in plain)


def test_cmake_args_stay_whole_and_cflags_become_one_argument(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, cmake_args=["-DCS_WITH_LIKWID=OFF", "-DA=b c"])
    args = cs_build.cmake_args(cfg["build"], "-O1 -march=native")
    assert args == [
        "-DCS_WITH_LIKWID=OFF",
        "-DA=b c",
        "-DCMAKE_C_FLAGS=-O1 -march=native",
    ]
    assert cs_build.cmake_args(cfg["build"]) == ["-DCS_WITH_LIKWID=OFF", "-DA=b c"]


def test_build_dirs(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, dir="out/k", variants=VARIANTS)
    assert cs_build.build_dir(cfg["build"]) == "out/k"
    assert cs_build.build_dir(cfg["build"], "O0") == "out/k/variants/O0"
    assert cs_build.variants(cfg["build"]) == {
        "O0": "-O0",
        "O2-native": "-O2 -march=native",
    }


def _bad(tmp_path: Path, mutate) -> str:
    cfg = copy.deepcopy(base_config())
    mutate(cfg)
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_config.validate(cfg, root=ROOT, workdir=tmp_path)
    assert "\n" not in str(exc.value)
    return str(exc.value)


def test_duplicate_variant_names_are_refused(tmp_path: Path) -> None:
    msg = _bad(
        tmp_path, lambda c: c.update(build={"variants": VARIANTS + [VARIANTS[0]]})
    )
    assert "build.variants[2].name" in msg and "used twice" in msg


def test_variants_with_a_container_runtime_are_refused(tmp_path: Path) -> None:
    def mutate(c: dict) -> None:
        c.update(build={"variants": VARIANTS})
        c.update(platform={"container": {"runtime": "charliecloud"}})

    msg = _bad(tmp_path, mutate)
    assert "build.variants" in msg and "runtime none" in msg


def test_variant_flags_without_shell_metacharacters(tmp_path: Path) -> None:
    msg = _bad(
        tmp_path,
        lambda c: c.update(
            build={"variants": [{"name": "x", "cflags": "-O2; rm -rf /"}]}
        ),
    )
    assert "build.variants[0].cflags" in msg and "shell metacharacters" in msg


def test_bad_variant_name(tmp_path: Path) -> None:
    msg = _bad(
        tmp_path,
        lambda c: c.update(build={"variants": [{"name": "a b", "cflags": ""}]}),
    )
    assert "build.variants[0].name" in msg


SIZE_OUTPUT = """   text	   data	    bss	    dec	    hex	filename
  61482	   2624	     56	  64162	   faa2	build/aes-seq
   2061	      0	      0	   2061	    80d	build/CMakeFiles/cs_aes.dir/src/aes_aesni.c.o
"""


def test_parse_size_output() -> None:
    rows = cs_build.parse_size_output(SIZE_OUTPUT)
    assert rows[0] == {
        "text": 61482,
        "data": 2624,
        "bss": 56,
        "total": 64162,
        "file": "build/aes-seq",
    }
    assert rows[1]["file"].endswith("aes_aesni.c.o") and rows[1]["total"] == 2061


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc on PATH")
def test_march_native_is_resolved() -> None:
    cpu = cs_build.resolve_march("-O2 -march=native", compiler="gcc")
    assert cpu and cpu != "native"
    assert cs_build.resolve_march("-O2", compiler="gcc") is None


def test_aead_points_and_launch_args(tmp_path: Path) -> None:
    from ciphersweep.job import launch as cs_launch

    cfg = cs_config.validate(
        base_config(
            sizes=["20B", "5KiB"],
            ops=["encrypt", "decrypt"],
            backends={
                "seq": {
                    "impls": [],
                    "aead": {
                        "ascon-aead128": ["ascon-ref", "ascon-opt64"],
                        "aes-128-gcm": ["gcm-aesni"],
                    },
                }
            },
        ),
        root=ROOT,
        workdir=tmp_path,
    )
    points = cs_sweep.expand(cfg)
    assert len(points) == 2 * 2 * 3
    gcm = next(p for p in points if p.impl == "gcm-aesni" and p.op == "decrypt")
    assert (gcm.cipher, gcm.mode) == ("aes-128-gcm", "gcm")
    args = cs_launch.kernel_args(gcm, input_path="in.bin", json_path="o.json")
    assert args[:4] == ["--cipher", "aes-128-gcm", "--impl", "gcm-aesni"]
    assert "--mode" not in args
    assert {p.mode for p in points if p.cipher == "ascon-aead128"} == {"aead"}


def test_aead_impl_of_another_cipher_is_refused(tmp_path: Path) -> None:
    msg = _bad(
        tmp_path,
        lambda c: c.update(
            backends={"seq": {"impls": [], "aead": {"ascon-aead128": ["gcm-ref"]}}}
        ),
    )
    assert "backends.seq.aead.ascon-aead128[0]" in msg and "ascon-opt64" in msg


def test_seq_with_nothing_to_run_is_refused(tmp_path: Path) -> None:
    msg = _bad(tmp_path, lambda c: c.update(backends={"seq": {"impls": []}}))
    assert "backends.seq.impls" in msg


def _batched(tmp_path: Path, **over) -> list:
    cfg = cs_config.validate(
        base_config(
            reps=6,
            batch=3,
            backends={"seq": {"impls": ["ttable"]}},
            **over,
        ),
        root=ROOT,
        workdir=tmp_path,
    )
    return cs_sweep.expand(cfg)


def test_batch_reaches_the_kernel_and_the_count_check(tmp_path: Path) -> None:
    from ciphersweep.job import launch as cs_launch

    p = _batched(tmp_path)[0]
    args = cs_launch.kernel_args(p, input_path="i", json_path="o")
    assert args[args.index("--batch") + 1] == "3"
    two = [{"batch": 3, "reps_run": 6}, {"batch": 3, "reps_run": 6}]
    assert p.reps_problem(two) is None
    assert "batches of 3" in p.reps_problem(two[:1])
    assert "records of 3" in p.reps_problem([{"batch": 3}, {"batch": 2}, {"batch": 1}])
    plain = cs_sweep.expand(
        cs_config.validate(base_config(), root=ROOT, workdir=tmp_path)
    )
    assert "--batch" not in cs_launch.kernel_args(
        plain[0], input_path="i", json_path="o"
    )


def test_batch_must_divide_reps_and_not_meet_precision(tmp_path: Path) -> None:
    msg = _bad(tmp_path, lambda c: c.update(reps=10, batch=3))
    assert msg.endswith("batch: 3 does not divide reps 10 (allowed: a divisor of reps)")
    msg = _bad(
        tmp_path,
        lambda c: c.update(
            reps=10, batch=5, precision={"target": 0.05, "max_reps": 100}
        ),
    )
    assert "batch" in msg and "precision" in msg


def test_records_of_every_process_are_required(tmp_path: Path) -> None:
    cfg = cs_config.validate(
        base_config(reps=2, processes=3, backends={"seq": {"impls": ["ttable"]}}),
        root=ROOT,
        workdir=tmp_path,
    )
    p = cs_sweep.expand(cfg)[0]
    recs = [{"process": g, "rep": r} for g in range(3) for r in range(2)]
    assert p.reps_problem(recs) is None
    assert "processes 0..2" in p.reps_problem(recs[:4])
    assert p.reps_problem(recs[:5]).startswith("process 2: expected 2 records, got 1")


def test_size_rows_skip_files_size_does_not_know(tmp_path: Path) -> None:
    script = tmp_path / "aes-seq"
    script.write_text("#!/bin/sh\nexec true\n")
    real = shutil.which("true")
    assert real
    rows = cs_build.size_rows(tmp_path, [str(script), real])
    assert [r["name"] for r in rows] == ["true"]
    assert rows[0]["text"] > 0 and rows[0]["bytes_on_disk"] > 0


def test_a_variant_named_as_the_default_build_is_refused(tmp_path: Path) -> None:
    """'default' names the build without variants (its size file, its records): a
    variant of that name would have another build's sizes stand for it."""
    msg = _bad(
        tmp_path,
        lambda c: c.update(build={"variants": [{"name": "default", "cflags": "-O0"}]}),
    )
    assert "build.variants[0].name: 'default' names the build" in msg
    assert cs_build.build_name("") == "default" and cs_build.build_name("O0") == "O0"


def _key(args: list[str], environ: dict[str, str]) -> list[str]:
    return cs_build.key_settings(args, environ)


def test_site_cmake_args_and_build_environment_are_in_the_build_key() -> None:
    """CIPHERSWEEP_CMAKE_ARGS and what CMake reads from the environment (CC, CFLAGS...)
    change what a build makes, so they are in its key; a compiler launcher (ccache)
    and the NVML header the build only checks against are not."""
    base = _key(["-DCS_WITH_CUDA=OFF"], {})
    assert base == ["-DCS_WITH_CUDA=OFF"]
    o0 = {"CIPHERSWEEP_CMAKE_ARGS": "-DCMAKE_C_FLAGS=-O0"}
    assert _key(["-DCS_WITH_CUDA=OFF"], o0) == [
        "-DCMAKE_C_FLAGS=-O0",
        "-DCS_WITH_CUDA=OFF",
    ]
    neutral = {
        "CIPHERSWEEP_CMAKE_ARGS": "-DCMAKE_C_COMPILER_LAUNCHER=ccache "
        "-DCMAKE_CUDA_COMPILER_LAUNCHER:STRING=ccache -DCS_NVML_INCLUDE_DIR=/x/include",
        "CCACHE_BASEDIR": "/src",
        "PATH": "/usr/bin",
    }
    assert _key(["-DCS_WITH_CUDA=OFF"], neutral) == base
    assert _key([], {"CC": "clang", "CFLAGS": "-O0"}) == ["CC=clang", "CFLAGS=-O0"]
    assert {"CC", "CFLAGS", "LDFLAGS", "CUDAFLAGS"} <= set(cs_build.build_env_names())


def test_build_info_names_every_setting() -> None:
    """build-info.json says what the build got from everywhere: the site's arguments
    before the config's, and the build environment."""
    env = {"CIPHERSWEEP_CMAKE_ARGS": "-DCMAKE_C_FLAGS=-O0", "CFLAGS": "-g"}
    info = cs_build.build_info("", None, ["-DCS_WITH_CUDA=OFF"], "sha256:k", env)
    assert info["cmake_args"] == ["-DCMAKE_C_FLAGS=-O0", "-DCS_WITH_CUDA=OFF"]
    assert info["build_env"] == {"CFLAGS": "-g"}
    assert info["variant"] == "default"
    assert (
        cs_build.settings_text(info)
        == "-DCMAKE_C_FLAGS=-O0 -DCS_WITH_CUDA=OFF CFLAGS=-g"
    )


def test_the_build_environment_does_not_live_on_in_the_cmake_cache(
    tmp_path: Path,
) -> None:
    """CFLAGS=-O0 at one build, not at the next: CMake read it into its cache once,
    and the build script, seeing other settings, configures the tree afresh."""
    script = str(ROOT / "scripts" / "build-kernels.sh")
    bdir = tmp_path / "build" / "k"
    env = dict(os.environ, CIPHERSWEEP_BUILD_TARGETS="aes-cpu-limits")
    env["CIPHERSWEEP_CMAKE_ARGS"] = "-DCS_WITH_CUDA=OFF"  # a configure of seconds

    def run(**extra: str) -> str:
        proc = subprocess.run(
            [script, str(bdir), "-DCS_BUILD_KEY=k"],
            env={**env, **extra},
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        flags = bdir / "CMakeFiles" / "aes-cpu-limits.dir" / "flags.make"
        return flags.read_text()

    assert "-O0 -fno-inline" in run(CFLAGS="-O0 -fno-inline")
    again = run()
    assert "-O0" not in again and "-O3" in again


def test_a_build_of_other_settings_fails_its_points_unmeasured(tmp_path: Path) -> None:
    """A build directory whose binaries carry another build key than the campaign's
    (another campaign, with other settings and Snakemake records of its own, built it
    last) fails the points that run them at once, without running a kernel, with one
    line naming the directory and how to build it again; a build with the campaign's
    key, or one made outside the workflow (no key), is run."""
    from ciphersweep.job import runner
    from support import make_point, run_spec

    kdir = tmp_path / "kernels"
    kdir.mkdir()
    (kdir / "aes-seq").write_text("")
    point = make_point(reps=2, size_bytes=4096)
    data = tmp_path / "in.bin"
    data.write_bytes(b"\0" * 4096)
    ran: list[list[str]] = []

    def run(argv: list[str], **kw: object) -> subprocess.CompletedProcess:
        ran.append(argv)
        return subprocess.CompletedProcess(argv, 1, "", "not a kernel")

    def measured(built: str | None, planned: str | None) -> str:
        info = {"variant": "default", "build_key": built}
        (kdir / cs_build.INFO_FILE).write_text(json.dumps(info) if built else "{}")
        spec = run_spec(tmp_path, point, data, kernel_dir=str(kdir), build_key=planned)
        return str(runner.run_point(point, spec, runner=run)["reason"])

    why = measured("sha256:" + "a" * 64, "sha256:" + "b" * 64)
    assert not ran
    assert why.startswith(f"{kdir} holds a build of other sources or settings")
    assert why.endswith("--forcerun build_kernels builds it again")
    [line] = (tmp_path / "raw" / f"{point.id}.jsonl").read_text().splitlines()
    rec = json.loads(line)
    assert rec["status"] == "failed" and rec["reason"] == why
    for built, planned in (("sha256:" + "b" * 64,) * 2, (None, None)):
        ran.clear()
        assert "holds a build" not in measured(built, planned)
        assert ran  # the kernel was launched (and failed: not a kernel)
