"""What can be checked of the Apptainer recipes without Apptainer.

Every section parses (with the parser the registry-free build uses), every %files source
exists, both recipes call the one provisioning script, every kernel has an %apprun, the
labels carry the project version and git revision, and build-image.sh refuses what it
cannot build before it starts any work.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import deffile
import pytest
from imagetools import CONTAINERS, CPU_KERNELS, ROOT

RECIPES = {"cpu": CPU_KERNELS, "cuda": [*CPU_KERNELS, "aes-cuda"]}
PROVISION_DST = "/opt/ciphersweep/src/containers/provision.sh"


@pytest.fixture(params=sorted(RECIPES))
def recipe(request: pytest.FixtureRequest) -> tuple[str, deffile.DefFile]:
    return request.param, deffile.parse(CONTAINERS / f"{request.param}.def")


def test_sections_parse(recipe: tuple[str, deffile.DefFile]) -> None:
    name, d = recipe
    assert d.header["bootstrap"] == "docker"
    for section in (
        "arguments",
        "files",
        "post",
        "environment",
        "runscript",
        "test",
        "labels",
        "help",
    ):
        assert d.section(section).strip(), f"{name}.def: %{section} is empty"
    d.files()
    assert d.labels()
    assert d.environment()["CIPHERSWEEP_IMAGE"] == name
    # the shell sections are valid shell
    for section in ("post", "runscript", "test", "environment"):
        subprocess.run(["bash", "-n"], input=d.section(section), text=True, check=True)
    for app in d.apps():
        subprocess.run(
            ["bash", "-n"], input=d.section("apprun", app), text=True, check=True
        )


def test_every_files_source_exists(recipe: tuple[str, deffile.DefFile]) -> None:
    name, d = recipe
    entries = d.files()
    assert entries
    for src, dst in entries:
        assert not Path(src).is_absolute(), (
            f"{name}.def: {src} must be relative to the repository"
        )
        assert (ROOT / src).exists(), f"{name}.def: %files source {src} does not exist"
        assert dst.startswith("/opt/ciphersweep/src/")
    srcs = {s for s, _ in entries}
    assert {
        "containers/provision.sh",
        "containers/packages.txt",
        "scripts/build-kernels.sh",
        "kernels",
    } <= srcs


def test_post_runs_the_one_provisioning_script(
    recipe: tuple[str, deffile.DefFile],
) -> None:
    name, d = recipe
    assert ("containers/provision.sh", PROVISION_DST) in d.files()
    calls = re.findall(
        r"^\s*(?:bash|sh)?\s*(/\S*provision\.sh)\b", d.section("post"), re.MULTILINE
    )
    assert calls == [PROVISION_DST], f"{name}.def: %post must call {PROVISION_DST} once"
    assert f"CIPHERSWEEP_RECIPE={name}" in d.section("post")


def test_apps_for_every_kernel(recipe: tuple[str, deffile.DefFile]) -> None:
    name, d = recipe
    assert d.apps() == sorted(RECIPES[name])
    for app in d.apps():
        assert d.section("apprun", app).strip() == f'exec {app} "$@"'


def test_labels_carry_version_and_revision(recipe: tuple[str, deffile.DefFile]) -> None:
    name, _ = recipe
    d = deffile.parse(
        CONTAINERS / f"{name}.def", {"VERSION": "9.8.7", "GIT_REVISION": "abc123"}
    )
    labels = d.labels()
    assert labels["org.opencontainers.image.version"] == "9.8.7"
    assert labels["org.opencontainers.image.revision"] == "abc123"
    assert labels["ciphersweep.recipe"] == name
    assert 'CIPHERSWEEP_GIT_REVISION="abc123"' in d.section("post")
    # without build args the %arguments defaults apply
    assert (
        deffile.parse(CONTAINERS / f"{name}.def").labels()[
            "org.opencontainers.image.version"
        ]
        == "unknown"
    )


def test_cpu_base_is_debian_12() -> None:
    d = deffile.parse(CONTAINERS / "cpu.def")
    assert d.header["from"] in ("debian:bookworm", "debian:12")


def test_cuda_recipe_builds_for_gpus() -> None:
    d = deffile.parse(CONTAINERS / "cuda.def")
    assert d.header["from"].startswith("nvidia/cuda:") and "-devel-" in d.header["from"]
    assert "-DCS_CUDA_ARCHITECTURES=80;90" in d.section("post")
    assert "--nv" in d.section("help")


def test_provision_script_is_valid_bash() -> None:
    subprocess.run(["bash", "-n", str(CONTAINERS / "provision.sh")], check=True)
    subprocess.run(["bash", "-n", str(CONTAINERS / "build-image.sh")], check=True)


def test_package_list_names_open_mpi_with_pmix_family() -> None:
    pkgs = [
        line.strip()
        for line in (CONTAINERS / "packages.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert {
        "openmpi-bin",
        "libopenmpi-dev",
        "libssl-dev",
        "cmake",
        "gcc",
        "likwid",
    } <= set(pkgs)


# --- the parser itself ------------------------------------------------------------------


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "x.def"
    p.write_text(text)
    return p


def test_parser_rejects_unknown_section(tmp_path: Path) -> None:
    with pytest.raises(deffile.DefError, match="unknown section %postt"):
        deffile.parse(
            write(tmp_path, "Bootstrap: docker\nFrom: debian:12\n%postt\n  true\n")
        )


def test_parser_rejects_missing_bootstrap_and_bad_header(tmp_path: Path) -> None:
    with pytest.raises(deffile.DefError, match="no Bootstrap"):
        deffile.parse(write(tmp_path, "From: debian:12\n%post\n  true\n"))
    with pytest.raises(deffile.DefError, match="not a header line"):
        deffile.parse(write(tmp_path, "Bootstrap: docker\nthis is wrong\n"))


def test_parser_template_needs_a_value(tmp_path: Path) -> None:
    p = write(tmp_path, "Bootstrap: docker\nFrom: debian:12\n%labels\n  v {{ NOPE }}\n")
    with pytest.raises(deffile.DefError, match="NOPE"):
        deffile.parse(p)
    assert deffile.parse(p, {"NOPE": "1"}).labels() == {"v": "1"}


def test_parser_app_sections_and_duplicates(tmp_path: Path) -> None:
    with pytest.raises(deffile.DefError, match="needs an app name"):
        deffile.parse(write(tmp_path, "Bootstrap: docker\n%apprun\n  true\n"))
    with pytest.raises(deffile.DefError, match="twice"):
        deffile.parse(
            write(tmp_path, "Bootstrap: docker\n%post\n true\n%post\n true\n")
        )
    d = deffile.parse(
        write(tmp_path, "Bootstrap: docker\n%apprun a\n exec a\n%apphelp a\n help\n")
    )
    assert d.apps() == ["a"]


def test_deffile_cli(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            "python3",
            str(CONTAINERS / "deffile.py"),
            str(CONTAINERS / "cpu.def"),
            "files",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"containers/provision.sh\t{PROVISION_DST}" in out.splitlines()
    bad = subprocess.run(
        [
            "python3",
            str(CONTAINERS / "deffile.py"),
            str(write(tmp_path, "nothing\n")),
            "check",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1 and bad.stderr.startswith("deffile: ")


# --- build-image.sh refuses early -------------------------------------------------------


def build_image(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CONTAINERS / "build-image.sh"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_build_image_usage(tmp_path: Path) -> None:
    r = build_image()
    assert r.returncode == 2 and "build-image.sh [OPTIONS] RECIPE OUT_IMAGE" in r.stderr
    r = build_image("nosuch", str(tmp_path / "x.sqfs"))
    assert r.returncode == 1 and "no recipe" in r.stderr


def test_registry_free_build_refuses_non_debian_base(tmp_path: Path) -> None:
    r = build_image("--builder", "mmdebstrap", "cuda", str(tmp_path / "cuda.sqfs"))
    assert r.returncode == 1
    assert "cannot be built without Apptainer" in r.stderr or "runs as root" in r.stderr
    assert not (tmp_path / "cuda.sqfs").exists()


def test_apptainer_builder_needs_apptainer(tmp_path: Path) -> None:
    import shutil

    if shutil.which("apptainer"):
        pytest.skip(
            "apptainer is installed here; this checks the message where it is not"
        )
    r = build_image("--builder", "apptainer", "cpu", str(tmp_path / "cpu.sif"))
    assert r.returncode == 1 and "apptainer is not installed" in r.stderr


def test_apptainer_build_command_line(tmp_path: Path) -> None:
    """The Apptainer branch, with a stand-in ``apptainer`` that records how it was called."""
    import os

    fake = tmp_path / "bin" / "apptainer"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        'printf "%s\\n" "$PWD" "$@" > "$FAKE_LOG"\n'
        "for a; do out=$prev; prev=$a; done\n"  # OUT is the second-to-last argument
        'echo SIF > "$out"\n'
    )
    fake.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{fake.parent}:{env['PATH']}"
    env["FAKE_LOG"] = str(tmp_path / "calls")
    env["CIPHERSWEEP_RUNTIME"] = "apptainer"
    env["CIPHERSWEEP_APPTAINER_BUILD_ARGS"] = "--fakeroot --tmpdir /scratch"
    out = tmp_path / "img" / "cpu.sif"
    r = build_image(
        "--version", "1.2.3", "--git-revision", "cafe", "cpu", str(out), env=env
    )
    assert r.returncode == 0, r.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls[0] == str(ROOT)  # %files paths are relative to the repository root
    assert calls[1:] == [
        "build",
        "--force",
        "--fakeroot",
        "--tmpdir",
        "/scratch",
        "--build-arg",
        "VERSION=1.2.3",
        "--build-arg",
        "GIT_REVISION=cafe",
        f"{out}.tmp",
        str(CONTAINERS / "cpu.def"),
    ]
    assert out.read_text() == "SIF\n"
    digest, name = (tmp_path / "img" / "cpu.sif.sha256").read_text().split()
    assert name == "cpu.sif" and len(digest) == 64
