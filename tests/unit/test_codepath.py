"""What changes a number but not its record, now part of it: the code-path environment
variables a kernel or its library reads (ciphersweep.backends.codepath), the impl an
``auto`` point really ran, the versions of the libraries doing the work (PyCryptodome,
NumPy, the interpreter, aes-openssl's libcrypto), all in the fingerprint, taken by the
bench job from the real kernels' launches and compared by admission with what the plan
expects."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import Crypto
import numpy
import pytest
from ciphersweep.analysis.tables.provenance_rows import provenance_rows
from ciphersweep.backends import codepath
from ciphersweep.job import launch as cs_launch
from ciphersweep.job import runner as cs_runner
from ciphersweep.plan import fingerprint as cs_fp
from ciphersweep.verdict import admission
from ciphersweep.verdict import records as cs_records
from support import KERNELS, make_point, run_spec

DISABLED = "vaes,vaes256,aesni"
AUTO = make_point(size="4KiB", impl="auto", reps=2, warmup=0)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "4KiB.bin"
    path.write_bytes(os.urandom(4096))
    return path


def _kernel(name: str) -> Path:
    binary = KERNELS / name
    if not binary.exists():
        pytest.fail("kernels not built (run scripts/build-kernels.sh build/kernels)")
    return binary


def _measure(tmp_path: Path, point, data: Path) -> tuple[Path, list[dict]]:
    """The point measured by the bench job's own code (the real kernel, launched as
    the workflow launches it); its raw file and records."""
    spec = run_spec(tmp_path, point, data)
    summary = cs_runner.run_point(point, spec)
    assert summary["status"] == "ok", summary
    raw = Path(spec.out_path)
    return raw, [json.loads(line) for line in raw.read_text().splitlines()]


def _planned(point, data: Path, **over) -> cs_fp.Expected:
    """The fingerprint the plan holds for ``point``, as the workflow takes it: the
    code-path variables and libraries of the environment its kernel gets."""
    env = cs_launch.kernel_env(point, cs_launch.Platform())
    binary = str(KERNELS / f"aes-{point.backend}")
    fields = {
        "input_path": str(data),
        "code_path_env": codepath.select(point.backend, point.impl, env),
        "libraries": codepath.planned_libraries(
            point.backend, point.impl, env, sys.executable, binary
        ),
    }
    return cs_fp.Expected(point, **{**fields, **over})


# ------------------------------------------------------------------ the one list


@pytest.mark.parametrize(
    ("var", "value", "reads", "ignores"),
    [
        # the kernels' own switch: an auto point reads the list, a named impl its name
        ("CIPHERSWEEP_DISABLE_IMPLS", DISABLED, [("seq", "auto"), ("omp", "auto"),
         ("mpi", "auto"), ("seq", "aesni")], [("seq", "ttable"), ("openssl", "evp"),
         ("pycryptodome", "pycryptodome"), ("cuda", "gpu-lanes")]),
        # OpenSSL's capability mask: aes-openssl and the programs of the command backend
        ("OPENSSL_ia32cap", "~0x200000200000000", [("openssl", "evp"),
         ("command", "openssl-enc")], [("seq", "auto"), ("pycryptodome", "pycryptodome")]),
        ("OMP_PROC_BIND", "spread", [("omp", "ttable")], [("seq", "ttable"),
         ("mpi", "ttable")]),
        ("OMP_WAIT_POLICY", "passive", [("omp", "auto")], [("openssl", "evp")]),
        ("OMPI_MCA_btl", "self,tcp", [("mpi", "ttable")], [("omp", "ttable")]),
        ("NPY_DISABLE_CPU_FEATURES", "AVX2", [("purepy", "numpy")],
         [("purepy", "purepy"), ("seq", "auto")]),
        ("PYTHONMALLOC", "malloc", [("purepy", "purepy"),
         ("pycryptodome", "pycryptodome")], [("seq", "auto")]),
        ("LD_PRELOAD", "/x/libcrypto.so.3", [("openssl", "evp"), ("seq", "ttable")],
         [("pycryptodome", "pycryptodome")]),
        ("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX2_Usable", [("seq", "ttable"),
         ("purepy", "purepy"), ("openssl", "evp")], []),
        # read, but choosing no code path of a timed region
        ("PYTHONHASHSEED", "1", [], [("purepy", "purepy"),
         ("pycryptodome", "pycryptodome")]),
        ("OMPI_MCA_orte_tmpdir_base", "/tmp/cs-mpi-x", [], [("mpi", "ttable")]),
        ("PMIX_MCA_gds", "hash", [], [("mpi", "ttable"), ("user", "mykernel")]),
        ("HWLOC_COMPONENTS", "-linuxio,-pci", [], [("mpi", "ttable"),
         ("mpi", "auto")]),
        ("CUDA_VISIBLE_DEVICES", "1", [], [("cuda", "gpu-lanes")]),
    ],
)  # fmt: skip
def test_each_backend_reads_its_own_variables(
    var: str, value: str, reads: list, ignores: list
) -> None:
    env = {"HOME": "/root", var: value}
    for backend, impl in reads:
        assert codepath.select(backend, impl, env) == {var: value}, (backend, impl)
    for backend, impl in ignores:
        assert codepath.select(backend, impl, env) == {}, (backend, impl)


def test_a_backend_the_list_does_not_know_reads_every_switch() -> None:
    env = {"OMP_SCHEDULE": "static", "OPENSSL_ia32cap": "~0", "PATH": "/bin"}
    assert codepath.select("mykernel", "auto", env) == {
        "OMP_SCHEDULE": "static",
        "OPENSSL_ia32cap": "~0",
    }


# ------------------------------------------------------------------ auto and the env


def test_disabled_impls_are_in_the_record_and_another_plan_refuses_it(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernels' own switch: an auto point run with CIPHERSWEEP_DISABLE_IMPLS names
    the impl that ran and the variable; the plan made without the variable (the next
    run) refuses its records with one line naming it, and the plan with it admits."""
    _kernel("aes-seq")
    monkeypatch.setenv("CIPHERSWEEP_DISABLE_IMPLS", DISABLED)
    raw, recs = _measure(tmp_path, AUTO, data)
    assert {r["impl"] for r in recs} == {"ttable"}
    assert {r["fingerprint"]["impl"] for r in recs} == {"ttable"}
    assert all(
        r["fingerprint"]["code_path_env"] == {"CIPHERSWEEP_DISABLE_IMPLS": DISABLED}
        for r in recs
    )
    assert admission.judge(raw, AUTO, _planned(AUTO, data)).ok
    monkeypatch.delenv("CIPHERSWEEP_DISABLE_IMPLS")
    token, why = admission.replan(raw, AUTO, _planned(AUTO, data))
    assert token.startswith("rerun")
    assert why.endswith(
        "fingerprint: code_path_env CIPHERSWEEP_DISABLE_IMPLS=vaes,vaes256,aesni, "
        "planned CIPHERSWEEP_DISABLE_IMPLS unset"
    ), why


def test_a_named_impl_is_not_measured_again_for_a_list_without_it(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exactly the affected points: a ttable point's records hold under a list that
    does not name ttable."""
    point = make_point(size="4KiB", reps=2, warmup=0)
    raw, _ = _measure(tmp_path, point, data)
    monkeypatch.setenv("CIPHERSWEEP_DISABLE_IMPLS", DISABLED)
    assert admission.judge(raw, point, _planned(point, data)).ok


def test_a_record_of_an_auto_point_names_the_impl_that_ran(
    tmp_path: Path, data: Path
) -> None:
    """``auto`` is no impl: a record of an auto point that says auto (or nothing) is
    not admitted."""
    raw, recs = _measure(tmp_path, AUTO, data)
    assert recs[0]["impl"] in ("ttable", "aesni", "vaes256", "vaes")
    assert admission.judge(raw, AUTO, _planned(AUTO, data)).ok
    for r in recs:
        r["fingerprint"]["impl"] = "auto"
    raw.write_text("".join(json.dumps(r) + "\n" for r in recs))
    verdict = admission.judge(raw, AUTO, _planned(AUTO, data))
    assert not verdict.ok
    assert verdict.reason.endswith("fingerprint: impl auto, planned the impl that ran")


def test_openmp_variables_of_an_omp_point(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OMP_* chooses the OpenMP runtime's path: in the omp point's record (with the
    workflow's own binding, OMP_PROC_BIND=close, OMP_PLACES=cores), another value is
    another fingerprint."""
    _kernel("aes-omp")
    point = make_point(size="4KiB", backend="omp", threads=2, reps=2, warmup=0)
    monkeypatch.setenv("OMP_WAIT_POLICY", "passive")
    raw, recs = _measure(tmp_path, point, data)
    assert recs[0]["fingerprint"]["code_path_env"] == {
        "OMP_PLACES": "cores",
        "OMP_PROC_BIND": "close",
        "OMP_WAIT_POLICY": "passive",
    }
    assert admission.judge(raw, point, _planned(point, data)).ok
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")
    verdict = admission.judge(raw, point, _planned(point, data))
    assert verdict.reason.endswith(
        "code_path_env OMP_WAIT_POLICY=passive, planned OMP_WAIT_POLICY=active"
    )


def test_openssl_capability_mask_and_version(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aes-openssl's records name the libcrypto that did the work (its version, which
    the binary's digest does not show) and OPENSSL_ia32cap; the plan learns the same
    version from the binary, in the same environment; an irrelevant variable
    (PYTHONHASHSEED) changes nothing."""
    _kernel("aes-openssl")
    point = make_point(size="4KiB", backend="openssl", impl="evp", reps=2, warmup=0)
    monkeypatch.setenv("OPENSSL_ia32cap", "~0x200000200000000")
    raw, recs = _measure(tmp_path, point, data)
    fp = recs[0]["fingerprint"]
    assert fp["code_path_env"] == {"OPENSSL_ia32cap": "~0x200000200000000"}
    assert fp["libraries"]["OpenSSL"] == recs[0]["openssl_version"]
    plan = _planned(point, data)
    assert plan.libraries == fp["libraries"]
    assert admission.judge(raw, point, plan).ok
    monkeypatch.setenv("PYTHONHASHSEED", "7")
    assert admission.judge(raw, point, _planned(point, data)).ok
    other = {"OpenSSL": "OpenSSL 3.9.9 1 Jan 2030"}
    verdict = admission.judge(raw, point, _planned(point, data, libraries=other))
    assert verdict.reason.endswith(
        f"fingerprint: libraries OpenSSL={fp['libraries']['OpenSSL']}, "
        "planned OpenSSL=OpenSSL 3.9.9 1 Jan 2030"
    )


# ------------------------------------------------------------------ library versions


def _stub_crypto(tmp_path: Path, version: str) -> Path:
    """A package named Crypto of another version, first on PYTHONPATH."""
    pkg = tmp_path / "other" / "Crypto"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(f'__version__ = "{version}"\n')
    return pkg.parent


def test_pycryptodome_version_is_in_the_fingerprint(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The PyCryptodome a point ran is in its records; the plan asks the kernel's
    Python in the kernel's environment, so another PyCryptodome first on PYTHONPATH
    is another fingerprint, and the point is measured again."""
    point = make_point(
        size="4KiB", backend="pycryptodome", impl="pycryptodome", reps=1, warmup=0
    )
    raw, recs = _measure(tmp_path, point, data)
    libs = recs[0]["fingerprint"]["libraries"]
    assert libs == {
        "PyCryptodome": Crypto.__version__,
        "Python": ".".join(map(str, sys.version_info[:3])),
    }
    assert admission.judge(raw, point, _planned(point, data)).ok
    old = os.environ.get("PYTHONPATH", "")
    stub = _stub_crypto(tmp_path, "3.20.0")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(stub), old) if p))
    plan = _planned(point, data)
    assert plan.libraries is not None and plan.libraries["PyCryptodome"] == "3.20.0"
    verdict = admission.judge(raw, point, plan)
    assert verdict.reason.endswith(
        f"fingerprint: libraries PyCryptodome={Crypto.__version__}, "
        "planned PyCryptodome=3.20.0"
    )


def test_numpy_version_of_a_numpy_runner(tmp_path: Path, data: Path) -> None:
    """aes-purepy --impl numpy: NumPy's version is in the fingerprint (the pure Python
    impl names the interpreter only)."""
    plain = data.with_name("plain.bin")
    plain.write_bytes(data.read_bytes()[:64])
    for impl, want in (("numpy", {"NumPy": numpy.__version__}), ("purepy", {})):
        point = make_point(
            size="64B", backend="purepy", impl=impl, cipher="aes-128-ecb", reps=1,
            warmup=0, input_path=str(plain), input_name="plain",
        )  # fmt: skip
        raw, recs = _measure(tmp_path / impl, point, plain)
        libs = recs[0]["fingerprint"]["libraries"]
        assert libs == {"Python": ".".join(map(str, sys.version_info[:3])), **want}
        assert admission.judge(raw, point, _planned(point, plain)).ok


def test_records_without_the_new_fields_are_measured_again(
    tmp_path: Path, data: Path
) -> None:
    """A record of an older runner (no code_path_env) does not say what its number
    depended on: measured again, with the reason."""
    point = make_point(size="4KiB", reps=2, warmup=0)
    raw, recs = _measure(tmp_path, point, data)
    for r in recs:
        del r["fingerprint"]["code_path_env"]
    raw.write_text("".join(json.dumps(r) + "\n" for r in recs))
    verdict = admission.judge(raw, point, _planned(point, data))
    assert verdict.reason.endswith(
        "fingerprint: code_path_env missing (a record of an older kernel or runner)"
    )


def test_summary_and_provenance_name_them(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tidy tables carry the variables and the libraries as text; the report's
    provenance section lists them, and the build's effective settings."""
    monkeypatch.setenv("CIPHERSWEEP_DISABLE_IMPLS", "aesni")
    seq, _ = _measure(tmp_path / "seq", AUTO, data)
    py = make_point(
        size="4KiB", backend="pycryptodome", impl="pycryptodome", reps=1, warmup=0
    )
    lib, _ = _measure(tmp_path / "py", py, data)
    meas, _, summary = cs_records.collect([seq, lib], [AUTO, py])
    by = summary.set_index("point")
    assert by.loc[AUTO.id, "code_path_env"] == "CIPHERSWEEP_DISABLE_IMPLS=aesni"
    python = ".".join(map(str, sys.version_info[:3]))
    libs = f"PyCryptodome {Crypto.__version__}, Python {python}"
    assert by.loc[py.id, "libraries"] == libs
    rows = dict(provenance_rows(meas, {}))
    assert rows["Code-path environment"] == "CIPHERSWEEP_DISABLE_IMPLS=aesni"
    assert rows["Libraries doing the work"] == libs
