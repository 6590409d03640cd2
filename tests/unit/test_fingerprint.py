"""The fingerprint of a measurement (ciphersweep.plan.fingerprint): what the real kernels
write (binary, input, build key, flags, observed shape), what the plan expects, the one
line a mismatch gives, the build tree's settings (a removed flag never lives on in the
CMake cache), and the build.dir / cluster.mpirun_args checks."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ciphersweep.core import paths
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import fingerprint as cs_fp
from ciphersweep.plan import launch_checks, sweep
from ciphersweep.verdict import admission
from support import KERNELS, ROOT, base_config, make_point

POINT = make_point(size="4KiB", reps=2, warmup=0)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _kernel(name: str) -> Path:
    binary = KERNELS / name
    if not binary.exists():
        pytest.fail("kernels not built (run scripts/build-kernels.sh build/kernels)")
    return binary


def _records(argv: list[str], **kw) -> list[dict]:
    out = subprocess.run(argv, capture_output=True, text=True, check=True, **kw)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "4KiB.bin"
    path.write_bytes(os.urandom(4096))
    return path


def _seq(data: Path) -> list[dict]:
    argv = [str(_kernel("aes-seq")), "--impl", "ttable", "--mode", "ctr"]
    argv += ["--input", str(data), "--reps", "2", "--warmup", "0", "--energy", "none"]
    recs = _records(argv)
    for r in recs:
        r.update(point=POINT.id, status="ok", attempt="first")
    return recs


def test_c_kernel_fingerprint_is_what_ran(data: Path) -> None:
    """aes-seq hashes its own binary and the bytes it read, and says its shape."""
    fp = _seq(data)[0]["fingerprint"]
    assert fp["binary_sha256"] == _sha(_kernel("aes-seq"))
    assert fp["input_sha256"] == _sha(data)
    assert (fp["ranks"], fp["threads"], fp["gpus"]) == (1, 1, 0)
    assert (fp["cipher"], fp["impl"], fp["mode"], fp["op"]) == (
        "aes-128-ctr",
        "ttable",
        "ctr",
        "encrypt",
    )
    assert fp["cflags"] and "-std=c11" in fp["cflags"]


def test_mpi_fingerprint_reports_the_ranks_that_ran(data: Path) -> None:
    """The rank count is MPI_Comm_size, whatever the launcher was told."""
    mpirun = shutil.which("mpirun")
    assert mpirun, "Open MPI's mpirun is needed"
    argv = [mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2"]
    argv += [str(_kernel("aes-mpi")), "--impl", "ttable", "--mode", "ctr"]
    argv += ["--input", str(data), "--reps", "1", "--warmup", "0", "--energy", "none"]
    fp = _records(argv)[0]["fingerprint"]
    assert fp["ranks"] == 2
    assert fp["binary_sha256"] == _sha(_kernel("aes-mpi"))
    planned = dataclasses.replace(POINT, backend="mpi", ranks=4)
    rec = {"fingerprint": fp}
    assert cs_fp.mismatch(rec, cs_fp.Expected(planned)) == (
        "fingerprint: ranks 2, planned 4"
    )


def test_python_kernel_fingerprint(data: Path) -> None:
    """aes-pycryptodome writes the same fingerprint: its module file, the input."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "workflow"))
    argv = [sys.executable, "-m", "ciphersweep.job.kernel_pycryptodome"]
    argv += ["--cipher", "aes-128-ctr", "--input", str(data), "--reps", "1"]
    argv += ["--energy", "none"]
    fp = _records(argv, env=env)[0]["fingerprint"]
    module = ROOT / "workflow" / "ciphersweep" / "job" / "kernel_pycryptodome.py"
    assert fp["binary_sha256"] == _sha(module)
    assert fp["input_sha256"] == _sha(data)
    assert (fp["ranks"], fp["threads"], fp["impl"]) == (1, 1, "pycryptodome")


def test_matching_fingerprint_is_admitted(tmp_path: Path, data: Path) -> None:
    raw = tmp_path / f"{POINT.id}.jsonl"
    raw.write_text("".join(json.dumps(r) + "\n" for r in _seq(data)))
    exp = cs_fp.Expected(POINT, binary=str(_kernel("aes-seq")), input_path=str(data))
    assert admission.judge(raw, POINT, exp).ok
    assert admission.judge(raw, POINT, exp, deep=False).ok


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"threads": 4}, "threads"),
        ({"impl": "aesni"}, "impl"),
        ({"op": "decrypt"}, "op"),
        ({"cipher": "aes-128-cbc", "mode": "cbc"}, "cipher"),
    ],
)
def test_shape_mismatch_fails_the_point(
    tmp_path: Path, data: Path, change: dict, field: str
) -> None:
    """A record of another shape is not the point's: failed, the field named."""
    raw = tmp_path / f"{POINT.id}.jsonl"
    raw.write_text("".join(json.dumps(r) + "\n" for r in _seq(data)))
    planned = dataclasses.replace(POINT, **change)
    verdict = admission.judge(raw, planned, cs_fp.Expected(planned))
    assert not verdict.ok
    assert f"fingerprint: {field} " in verdict.reason
    assert "planned" in verdict.reason and "\n" not in verdict.reason


def test_other_build_binary_or_input_runs_again(tmp_path: Path, data: Path) -> None:
    """Records of another build key, another binary on disk or other input bytes give
    a new attempt token (the same command measures the point again) and a reason."""
    recs = _seq(data)
    raw = tmp_path / f"{POINT.id}.jsonl"
    raw.write_text("".join(json.dumps(r) + "\n" for r in recs))
    key = cs_fp.Expected(POINT, build_key="sha256:" + "0" * 64)
    token, why = admission.replan(raw, POINT, key)
    # the records' own key: none from a plain build, or the one a campaign that built
    # into the same tree configured it with
    assert token.startswith("rerun") and "fingerprint: build_key " in why
    assert why.endswith(", planned sha256:0000000000000000"), why
    other = tmp_path / "aes-seq"
    other.write_bytes(_kernel("aes-seq").read_bytes() + b"\0")
    token, why = admission.replan(raw, POINT, cs_fp.Expected(POINT, binary=str(other)))
    assert token.startswith("rerun") and "binary_sha256" in why
    data.write_bytes(os.urandom(4096))  # same name, other bytes
    exp = cs_fp.Expected(POINT, input_path=str(data))
    assert "input_sha256" in admission.judge(raw, POINT, exp).reason
    # the same records with what the plan holds: admitted, the token is theirs
    assert admission.replan(raw, POINT, cs_fp.Expected(POINT)) == ("first", None)


def test_the_planned_fingerprint_is_read_once_per_raw_file(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A raw file of many records reads the input's `.sha256` and hashes the binary
    once, not once per record (a finished campaign holds hundreds per point)."""
    recs = _seq(data) * 20
    for i, r in enumerate(recs):
        r["rep"] = i
    raw = tmp_path / f"{POINT.id}.jsonl"
    raw.write_text("".join(json.dumps(r) + "\n" for r in recs))
    cs_fp.write_digest(str(data))
    reads: list[str] = []
    real = cs_fp.read_digest
    monkeypatch.setattr(cs_fp, "read_digest", lambda p: reads.append(p) or real(p))
    point = dataclasses.replace(POINT, reps=40)
    exp = cs_fp.Expected(
        point,
        binary=str(_kernel("aes-seq")),
        input_path=str(data),
        input_digest=cs_fp.digest_file(str(data)),
    )
    assert admission.judge(raw, point, exp, deep=False).ok
    assert reads == [cs_fp.digest_file(str(data))]


def test_record_without_fingerprint_is_not_admitted(tmp_path: Path, data: Path) -> None:
    recs = _seq(data)
    for r in recs:
        del r["fingerprint"]
    raw = tmp_path / f"{POINT.id}.jsonl"
    raw.write_text("".join(json.dumps(r) + "\n" for r in recs))
    verdict = admission.judge(raw, POINT, cs_fp.Expected(POINT))
    assert verdict.state == "damaged" and "fingerprint: missing" in verdict.reason


def test_generated_input_digest_file(data: Path) -> None:
    """The input rule's `.sha256` is what the plan expects, unless the input is newer
    (then the file itself is hashed, at gather)."""
    cs_fp.write_digest(data)
    exp = cs_fp.Expected(
        POINT, input_path=str(data), input_digest=cs_fp.digest_file(data)
    )
    assert exp.input_sha256(deep=False) == _sha(data)
    data.write_bytes(b"x" * 4096)
    st = os.stat(cs_fp.digest_file(data))
    os.utime(data, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert exp.input_sha256(deep=False) is None
    assert exp.input_sha256(deep=True) == _sha(data)


def test_build_key_changes_with_sources_and_settings(tmp_path: Path) -> None:
    src = tmp_path / "a.c"
    src.write_text("int x;\n")
    k0 = cs_fp.build_key([str(src)], [])
    assert k0.startswith("sha256:") and k0 == cs_fp.build_key([str(src)], [])
    assert cs_fp.build_key([str(src)], ["-DCMAKE_C_FLAGS=-O0"]) != k0
    src.write_text("int y;\n")
    assert cs_fp.build_key([str(src)], []) != k0


def test_a_moved_checkout_keeps_its_build_keys(tmp_path: Path) -> None:
    """The names of the sources are hashed relative to the project: the same sources
    and settings in another directory give the same key (a clone or a moved checkout
    re-measures nothing), another name in the project another key."""
    keys = []
    for where in ("here", "moved/elsewhere"):
        root = tmp_path / where
        (root / "kernels").mkdir(parents=True)
        (root / "kernels" / "a.c").write_text("int x;\n")
        src = [str(root / "kernels" / "a.c")]
        keys.append(cs_fp.build_key(src, ["-DX=1"], root=root))
        assert cs_fp.build_key(src, ["-DX=1"]) != keys[-1]  # absolute names differ
    assert keys[0] == keys[1]
    (tmp_path / "here" / "kernels" / "a.c").rename(
        tmp_path / "here" / "kernels" / "b.c"
    )
    b = [str(tmp_path / "here" / "kernels" / "b.c")]
    assert cs_fp.build_key(b, ["-DX=1"], root=tmp_path / "here") != keys[0]


def _flags(bdir: Path) -> str:
    return (bdir / "CMakeFiles" / "aes-cpu-limits.dir" / "flags.make").read_text()


def test_removed_flag_does_not_live_on_in_the_cmake_cache(tmp_path: Path) -> None:
    """-DCMAKE_C_FLAGS=-O0 given once, then not: the compiler sees no -O0 (the
    settings changed, so the build script drops the CMake cache)."""
    script = str(ROOT / "scripts" / "build-kernels.sh")
    bdir = tmp_path / "build" / "k"
    env = dict(os.environ, CIPHERSWEEP_BUILD_TARGETS="aes-cpu-limits")
    # no CUDA compiler looked for: a configure of seconds, not tens of them
    env["CIPHERSWEEP_CMAKE_ARGS"] = "-DCS_WITH_CUDA=OFF"

    def run(*args: str) -> None:
        proc = subprocess.run(
            [script, str(bdir), *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]

    run("-DCMAKE_C_FLAGS=-O0 -fno-inline", "-DCS_BUILD_KEY=k1")
    assert "-O0 -fno-inline" in _flags(bdir)
    run("-DCS_BUILD_KEY=k2")
    assert "-O0" not in _flags(bdir) and "-O3" in _flags(bdir)
    assert "CS_BUILD_KEY:STRING=k2" in (bdir / "CMakeCache.txt").read_text()
    (bdir / "build-info.json").write_text('{"build_key": "k2"}\n')
    run()  # no key given: none is recorded, never the last one
    assert "CS_BUILD_KEY:STRING=\n" in (bdir / "CMakeCache.txt").read_text()
    assert not (bdir / "build-info.json").exists()  # it described the last build


def test_a_build_tree_moved_elsewhere_is_configured_afresh(tmp_path: Path) -> None:
    """A build directory copied or moved with its checkout holds a CMake cache made for
    another directory, which CMake refuses to configure again; the build script starts
    that tree afresh instead of failing the build."""
    script = str(ROOT / "scripts" / "build-kernels.sh")
    env = dict(os.environ, CIPHERSWEEP_BUILD_TARGETS="aes-cpu-limits")
    # no CUDA compiler looked for: a configure of seconds, not tens of them
    env["CIPHERSWEEP_CMAKE_ARGS"] = "-DCS_WITH_CUDA=OFF"
    first, moved = tmp_path / "a" / "k", tmp_path / "b" / "k"

    def build(bdir: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [script, str(bdir), "-DCS_BUILD_KEY=k1"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    assert build(first).returncode == 0
    moved.parent.mkdir()
    first.rename(moved)
    proc = build(moved)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    cache = (moved / "CMakeCache.txt").read_text()
    assert f"CMAKE_CACHEFILE_DIR:INTERNAL={moved}" in cache
    assert (moved / "aes-cpu-limits").exists()
    # an unmoved tree keeps its cache (no rebuild): the binary is not written again
    before = (moved / "aes-cpu-limits").stat().st_mtime_ns
    assert build(moved).returncode == 0
    assert (moved / "aes-cpu-limits").stat().st_mtime_ns == before


@pytest.mark.parametrize(
    "bdir", [".", "kernels", "tests", "kernels/src", "build", "..", "/", "results/x"]
)
def test_build_dir_in_or_above_the_project_is_refused(bdir: str) -> None:
    cfg = base_config(build={"dir": bdir})
    with pytest.raises(cs_config.ConfigError) as err:
        cs_config.validate(cfg, root=ROOT, workdir=ROOT)
    line = cs_config.format_error(err.value)
    assert "build.dir" in line and "below build/" in line and "\n" not in line


def test_build_dir_below_build_is_accepted(tmp_path: Path) -> None:
    assert launch_checks.dir_problem("build/kernels", ROOT, ROOT) is None
    assert (
        launch_checks.dir_problem(str(ROOT / "build" / "x" / "y"), ROOT, ROOT) is None
    )
    # a campaign run from a directory of its own may build there
    assert launch_checks.dir_problem("kbin", ROOT, tmp_path) is None
    assert launch_checks.dir_problem("results/k", ROOT, tmp_path) is not None
    assert launch_checks.dir_problem(str(tmp_path.parent), ROOT, tmp_path) is not None


@pytest.mark.parametrize(
    "args",
    [
        ["-np", "1"],
        ["--np=1"],
        ["-n", "1"],
        ["-n1"],
        ["--map-by", "ppr:1:node"],
        ["-H", "localhost:1"],
        ["--host", "a,b"],
        ["--hostfile", "hosts"],
        ["-x", "OMP_NUM_THREADS=4"],
        ["--npernode", "1"],
    ],
)
def test_launcher_options_that_set_the_shape_are_refused(args: list[str]) -> None:
    assert launch_checks.shape_option(args) is not None
    cfg = base_config(cluster={"cores_per_node": 32, "mpirun_args": args})
    with pytest.raises(cs_config.ConfigError) as err:
        cs_config.validate(cfg, root=ROOT, workdir=ROOT)
    line = cs_config.format_error(err.value)
    assert "cluster.mpirun_args" in line and "\n" not in line


def test_other_launcher_options_pass() -> None:
    for args in (["--mca", "pml", "ucx"], ["--bind-to", "core"], ["--report-bindings"]):
        assert launch_checks.shape_option(args) is None


@pytest.mark.parametrize("backend", ["purepy", "pycryptodome"])
@pytest.mark.parametrize(
    "cipher", ["aes-128-ecb", "aes-256-ecb", "des-ede3-ecb", "chacha20"]
)
def test_python_kernels_are_admitted_for_every_cipher(
    backend: str, cipher: str, tmp_path: Path
) -> None:
    """The record a Python-side kernel really writes for a point of the plan is the
    point's (ChaCha20's mode reads "stream" in the record, the cipher's name in the
    plan: a purepy point once failed on that in every run)."""
    cfg = base_config(sizes=["64B"], reps=1, warmup=0, backends={backend: {}})
    cfg["backends"][backend]["ciphers"] = [cipher]
    cfg = cs_config.validate(cfg, root=ROOT, workdir=tmp_path)
    (point,) = [p for p in sweep.expand(cfg) if p.op == "encrypt"]
    data = tmp_path / "64B.bin"
    data.write_bytes(os.urandom(64))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "workflow"))
    argv = [sys.executable, "-m", f"ciphersweep.job.kernel_{backend}"]
    argv += ["--cipher", cipher, "--input", str(data), "--reps", "1"]
    argv += ["--warmup", "0", "--energy", "none"]
    (rec,) = _records(argv, env=env)
    assert cs_fp.mismatch(rec, cs_fp.Expected(point, input_path=str(data))) is None


def test_the_code_that_admits_records_is_named_for_gather() -> None:
    """gather's `judge_code` parameter hashes these files: the record schema and its
    validation, the fingerprint comparison, admission and gathering (a fix such as
    the purepy ChaCha20 mode then re-judges the raw files already there)."""
    names = {f.name for f in paths.verdict_sources()}
    assert {"admission.py", "records.py", "fingerprint.py", "record_schema.py"} <= names
    assert "record.schema.yaml" in names
    assert all(f.is_file() for f in paths.verdict_sources())
    # (the campaign object keys gather by their digest: tests/unit/test_campaign_model.py)


def test_a_generated_inputs_digest_holds_by_change_time_or_by_its_bytes(
    tmp_path: Path,
) -> None:
    data = tmp_path / "4KiB.bin"
    data.write_bytes(b"a" * 4096)
    cs_fp.write_digest(data)
    side = cs_fp.digest_file(data)
    assert cs_fp.sidecar_holds(side, str(data))
    assert cs_fp.generated_stamp(str(data)) is None
    # copied with its times kept (cp -p): a new change time, the same bytes
    kept = data.stat()
    shutil.copy2(data, tmp_path / "copy")
    os.replace(tmp_path / "copy", data)
    os.utime(side, ns=(kept.st_atime_ns, kept.st_mtime_ns - 10**9))
    assert data.stat().st_ctime_ns > Path(side).stat().st_mtime_ns
    assert cs_fp.sidecar_holds(side, str(data))
    assert cs_fp.generated_stamp(str(data)) is None
    # other bytes, the modification time put back (touch -r)
    data.write_bytes(b"b" * 4096)
    os.utime(data, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    assert not cs_fp.sidecar_holds(side, str(data))
    other = hashlib.sha256(b"b" * 4096).hexdigest()
    assert cs_fp.generated_stamp(str(data)) == f"sha256 {other}"
    assert cs_fp.generated_stamp(str(tmp_path / "none.bin")) is None
