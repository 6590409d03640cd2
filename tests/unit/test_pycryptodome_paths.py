"""PyCryptodome's two AES codes (backends.pycryptodome.impls): the library's choice
(AES-NI where the CPU has it) and its portable C code (use_aesni=False), each run
through the bench job's code path, verified, and named in every record (aes_path)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ciphersweep.analysis.tables import layouts
from ciphersweep.analysis.tables import model as tables
from ciphersweep.core import ciphers
from ciphersweep.job import kernel_pycryptodome as kp
from ciphersweep.job import launch, pykernel, record_schema, runner
from ciphersweep.plan import config as cs_config
from ciphersweep.plan.sweep import Point, expand
from Crypto.Cipher import AES
from Crypto.Util.Padding import pad
from support import ROOT, base_config, make_point, run_spec


class _Counting:
    """Stands in for PyCryptodome's portable AES library: counts the cipher objects
    its start function makes, and passes every call on."""

    def __init__(self, lib: Any) -> None:
        self._lib, self.started = lib, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lib, name)

    @property
    def AES_start_operation(self) -> Any:
        def start(*args: Any) -> Any:
            self.started += 1
            return self._lib.AES_start_operation(*args)

        return start


@pytest.mark.parametrize("impl", kp.IMPLS)
@pytest.mark.parametrize("name", ["aes-128-cbc", "aes-256-cbc", "aes-192-ctr"])
def test_the_recorded_path_is_the_code_that_ran(
    monkeypatch: pytest.MonkeyPatch, impl: str, name: str
) -> None:
    """The portable C code makes the cipher object exactly where aes_path says
    "portable": always for impl portable, for the library's choice only on a CPU
    without AES instructions."""
    counting = _Counting(AES._raw_aes_lib)
    monkeypatch.setattr(AES, "_raw_aes_lib", counting)
    c = ciphers.cipher(name)
    kp.factory(c, impl)()
    path = kp.aes_path(c, impl)
    assert counting.started == (1 if path == "portable" else 0), path
    if impl == "portable":
        assert path == "portable"


@pytest.mark.parametrize("impl", kp.IMPLS)
def test_sp800_38a_cbc_known_answer_on_each_path(impl: str) -> None:
    """SP 800-38A F.2.1 (CBC-AES128.Encrypt), first two blocks, on each AES code."""
    key = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
    iv = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
    plain = bytes.fromhex(
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    )
    expected = "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
    path = {"use_aesni": False} if impl == "portable" else {}
    assert AES.new(key, AES.MODE_CBC, iv=iv, **path).encrypt(plain).hex() == expected


@pytest.mark.parametrize("name", ["aes-128-cbc", "aes-256-cbc", "aes-128-ctr"])
def test_portable_output_equals_openssl(name: str) -> None:
    c = ciphers.cipher(name)
    data = bytes(range(256)) * 5
    ours = kp.factory(c, "portable")().encrypt(pad(data, 16) if c.padded else data)
    assert ours == ciphers.openssl_crypt(c, True, data)


def test_one_path_ciphers_refuse_the_portable_impl() -> None:
    c = ciphers.cipher("des-cbc")
    assert kp.aes_path(c, "pycryptodome") is None
    with pytest.raises(pykernel.KernelError, match=r"^--impl portable: AES only"):
        kp.factory(c, "portable")


def _point(impl: str, cipher: str, **over: Any) -> Point:
    """A PyCryptodome point of a 4,097-byte input, two repetitions."""
    fields = {"size_bytes": 4097, "reps": 2, "backend": "pycryptodome", **over}
    return make_point(size="in", impl=impl, cipher=cipher, **fields)


def _run(tmp_path: Path, p: Point) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    data = tmp_path / "in.bin"
    data.write_bytes(bytes((i * 11 + 5) % 256 for i in range(4097)))
    spec = run_spec(tmp_path, p, data, timeout_s=60)
    res = runner.run_point(p, spec)
    recs = [json.loads(x) for x in Path(spec.out_path).read_text().splitlines()]
    return res, recs


@pytest.mark.parametrize("op", ["encrypt", "decrypt"])
def test_a_portable_point_runs_verified_and_says_so(tmp_path: Path, op: str) -> None:
    p = _point("portable", "aes-256-cbc", op=op)
    assert p.id.startswith("pycryptodome-portable-aes-256-cbc-")
    args = launch.kernel_args(p, input_path="in", json_path="out")
    assert args[args.index("--impl") + 1] == "portable"
    res, recs = _run(tmp_path, p)
    assert res["status"] == "ok", res
    for r in recs:
        assert record_schema.validate_record(r) is None
        assert r["verified"] is True
        assert (r["impl"], r["aes_path"]) == ("portable", "portable")
        assert r["fingerprint"]["impl"] == "portable"


def test_the_librarys_choice_names_its_code(tmp_path: Path) -> None:
    p = _point("pycryptodome", "aes-128-cbc", reps=1)
    res, recs = _run(tmp_path, p)
    assert res["status"] == "ok", res
    assert recs[0]["aes_path"] == kp.aes_path(ciphers.cipher("aes-128-cbc"), p.impl)


def _cfg(**pyc: Any) -> dict[str, Any]:
    cfg = base_config(ops=["encrypt", "decrypt"], sizes=["1KiB"])
    cfg["backends"] = {"pycryptodome": {"ciphers": ["aes-128-cbc", "des-cbc"], **pyc}}
    return cfg


def test_each_aes_cipher_runs_once_per_impl_every_other_once(tmp_path: Path) -> None:
    cfg = cs_config.validate(
        _cfg(impls=["pycryptodome", "portable"]), root=ROOT, workdir=tmp_path
    )
    got = sorted((p.cipher, p.impl, p.op) for p in expand(cfg))
    assert got == [
        ("aes-128-cbc", "portable", "decrypt"),
        ("aes-128-cbc", "portable", "encrypt"),
        ("aes-128-cbc", "pycryptodome", "decrypt"),
        ("aes-128-cbc", "pycryptodome", "encrypt"),
        ("des-cbc", "pycryptodome", "decrypt"),
        ("des-cbc", "pycryptodome", "encrypt"),
    ]
    default = cs_config.validate(_cfg(), root=ROOT, workdir=tmp_path)
    assert {p.impl for p in expand(default)} == {"pycryptodome"}


def test_an_unknown_impl_is_one_line_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as err:
        cs_config.validate(_cfg(impls=["aesni"]), root=ROOT, workdir=tmp_path)
    msg = str(err.value)
    assert "backends.pycryptodome.impls" in msg and "portable" in msg
    assert "\n" not in msg


def test_a_table_shows_the_recorded_path_or_why_not() -> None:
    aes = make_point(backend="pycryptodome", impl="portable", cipher="aes-128-cbc")
    des = make_point(backend="pycryptodome", impl="pycryptodome", cipher="des-cbc")
    summary = pd.DataFrame(
        [
            {"point": aes.id, "status": "ok", "aes_path": "portable"},
            {"point": des.id, "status": "ok", "aes_path": None},
        ]
    )
    ctx = tables.Context({}, [aes, des], summary)
    assert layouts.quantity(ctx, aes, "aes_path", statistic="mean") == "portable"
    na = layouts.quantity(ctx, des, "aes_path", statistic="mean")
    assert na == (tables.NA, "no AES path recorded")
    assert tables.row_labels([aes, des])[aes.id].startswith("pycryptodome portable ")
