"""The Python block-at-a-time ciphers (lists: purepy; NumPy arrays: numpy): known
answers from the standards, OpenSSL's output on random data, and real points through
the bench job's own code path, verified against OpenSSL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ciphersweep.core import ciphers
from ciphersweep.job import (
    kernel_purepy,
    launch,
    numpy_aes,
    numpy_chacha,
    numpy_des,
    pure_aes,
    pure_chacha,
    pure_des,
    record_schema,
    runner,
)
from ciphersweep.plan import config as cs_config
from ciphersweep.plan.sweep import Point, expand
from support import ROOT, base_config, make_point

PLAIN = bytes.fromhex("00112233445566778899aabbccddeeff")


@pytest.mark.parametrize(
    ("nbytes", "expected"),
    [  # FIPS-197 Appendix C.1, C.2, C.3 (key 000102...)
        (16, "69c4e0d86a7b0430d8cdb78070b4c55a"),
        (24, "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (32, "8ea2b7ca516745bfeafc49904b496089"),
    ],
)
def test_aes_fips197_appendix_c(nbytes: int, expected: str) -> None:
    rk = pure_aes.expand_key(bytes(range(nbytes)))
    ct = pure_aes.encrypt_block(rk, PLAIN)
    assert ct.hex() == expected
    assert pure_aes.decrypt_block(rk, ct) == PLAIN


@pytest.mark.parametrize(
    ("nbytes", "expected"),
    [  # FIPS-197 Appendix C.1, C.2, C.3 (key 000102...)
        (16, "69c4e0d86a7b0430d8cdb78070b4c55a"),
        (24, "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (32, "8ea2b7ca516745bfeafc49904b496089"),
    ],
)
def test_numpy_aes_fips197_appendix_c(nbytes: int, expected: str) -> None:
    rk = numpy_aes.expand_key(bytes(range(nbytes)))
    assert rk.dtype == np.uint8 and rk.shape == (pure_aes.ROUNDS[nbytes] + 1, 16)
    ct = numpy_aes.encrypt_block(rk, PLAIN)
    assert ct.hex() == expected
    assert numpy_aes.decrypt_block(rk, ct) == PLAIN


def test_numpy_aes_steps_known_answers() -> None:
    # FIPS-197 Appendix A.1: the last word of the expanded key 2b7e1516...
    rk = numpy_aes.expand_key(bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c"))
    assert rk[-1, 12:].tobytes().hex() == "b6630ca6"
    # FIPS-197 §4.2.1: {57} xtime -> {ae}, {ae} -> {47}
    assert numpy_aes.xtime(np.array([0x57, 0xAE], np.uint8)).tolist() == [0xAE, 0x47]
    # the MixColumns test column db 13 53 45 -> 8e 4d a1 bc, and back
    col = np.array([0xDB, 0x13, 0x53, 0x45], np.uint8)
    mixed = numpy_aes.mix_column(col)
    assert mixed.tobytes().hex() == "8e4da1bc"
    assert numpy_aes.inv_mix_column(mixed).tobytes() == col.tobytes()
    # SubBytes through the S-box table: S(00) = 63, S(53) = ed (FIPS-197 Figure 7)
    state = np.array([0x00, 0x53] + [0] * 14, np.uint8)
    assert numpy_aes.sub_bytes(state)[:2].tolist() == [0x63, 0xED]
    # ShiftRows: the study's {0,5,10,15,4,9,14,3,8,13,2,7,12,1,6,11} (§4.1.1)
    assert numpy_aes.SHIFT.tolist() == [
        0,
        5,
        10,
        15,
        4,
        9,
        14,
        3,
        8,
        13,
        2,
        7,
        12,
        1,
        6,
        11,
    ]
    assert numpy_aes.INV_SHIFT.tolist() == [
        0,
        13,
        10,
        7,
        4,
        1,
        14,
        11,
        8,
        5,
        2,
        15,
        12,
        9,
        6,
        3,
    ]


def test_numpy_des_known_answers() -> None:
    ks = numpy_des.subkeys(bytes.fromhex("133457799BBCDFF1"))
    block = np.unpackbits(np.frombuffer(bytes.fromhex("0123456789ABCDEF"), np.uint8))
    ct = np.packbits(numpy_des.des_block(ks, block)).tobytes()
    assert ct.hex() == "85e813540f0ab405"  # the FIPS 46 worked example
    k3 = numpy_des.tdes_keys(bytes.fromhex("133457799BBCDFF1") * 3)
    assert numpy_des.tdes_encrypt_block(k3, bytes.fromhex("0123456789ABCDEF")) == ct
    assert numpy_des.tdes_decrypt_block(k3, ct).hex() == "0123456789abcdef"


@pytest.mark.parametrize("cipher", kernel_purepy.SUPPORTED)
def test_numpy_ciphers_match_openssl_on_random_data(cipher: str) -> None:
    """Random bytes of a length that is no multiple of a block, each way."""
    rng = np.random.default_rng(20210)
    c = ciphers.cipher(cipher)
    crypt = kernel_purepy.keyed(c, "numpy")()
    for n in (1, 97):
        plain = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        want = ciphers.openssl_crypt(c, True, plain)
        got = crypt(plain, True)
        assert got == want
        assert crypt(got, False) == plain


def test_pure_aes_mixes_columns_by_its_multiplication_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As its docstring says: MixColumns looks {02}.b up in a table (not xtime at
    each step), so a changed table changes the ciphertext."""
    rk = pure_aes.expand_key(bytes(range(16)))
    good = pure_aes.encrypt_block(rk, PLAIN)
    assert "multiplication tables" in (pure_aes.__doc__ or "")
    monkeypatch.setitem(pure_aes.MUL, 2, [0] * 256)
    assert pure_aes.encrypt_block(rk, PLAIN) != good


def test_aes_sbox_known_entries() -> None:
    # FIPS-197 Figure 7: S(00) = 63, S(53) = ed; Figure 14: InvS(63) = 00
    assert pure_aes.SBOX[0x00] == 0x63 and pure_aes.SBOX[0x53] == 0xED
    assert pure_aes.INV_SBOX[0x63] == 0x00 and len(set(pure_aes.SBOX)) == 256


def test_des_and_tdes_known_answers() -> None:
    # the classic FIPS 46 worked example: key 133457799BBCDFF1, 0123456789ABCDEF
    ks = pure_des.subkeys(bytes.fromhex("133457799BBCDFF1"))
    ct = pure_des.des_block(ks, bytes.fromhex("0123456789ABCDEF"))
    assert ct.hex() == "85e813540f0ab405"
    # SP 800-67: with K1 = K2 = K3, TDEA is single DES
    k3 = pure_des.tdes_keys(bytes.fromhex("133457799BBCDFF1") * 3)
    assert pure_des.tdes_encrypt_block(k3, bytes.fromhex("0123456789ABCDEF")) == ct
    assert pure_des.tdes_decrypt_block(k3, ct).hex() == "0123456789abcdef"


@pytest.mark.parametrize("chacha", [pure_chacha, numpy_chacha])
def test_chacha20_rfc8439(chacha: Any) -> None:
    """Both runners' ChaCha20 (lists of ints, NumPy word arrays)."""
    key = bytes(range(32))
    # RFC 8439 §2.3.2: the block function, counter 1
    nonce = bytes.fromhex("000000090000004a00000000")
    assert chacha.block(key, 1, nonce)[:16].hex() == (
        "10f1e7e4d13b5915500fdd1fa32071c4"
    )
    # §2.4.2: the sunscreen text, counter 1
    nonce = bytes.fromhex("000000000000004a00000000")
    text = (
        b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip"
    )
    ct = chacha.crypt(key, 1, nonce, text)
    assert ct[:16].hex() == "6e2e359a2568f98041ba0728dd0d6981"
    assert chacha.crypt(key, 1, nonce, ct) == text


def _run(tmp_path: Path, p: Point) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    data = tmp_path / "in.bin"
    data.write_bytes(bytes((i * 7 + 3) % 256 for i in range(301)))
    spec = runner.RunSpec(
        campaign="t",
        input_path=str(data),
        out_path=str(tmp_path / "raw" / f"{p.id}.jsonl"),
        log_path=str(tmp_path / "logs" / f"{p.id}.log"),
        energy="none",
        timeout_s=60,
    )
    res = runner.run_point(p, spec)
    recs = [json.loads(x) for x in Path(spec.out_path).read_text().splitlines()]
    return res, recs


@pytest.mark.parametrize("impl", ["purepy", "numpy"])
@pytest.mark.parametrize("cipher", kernel_purepy.SUPPORTED)
@pytest.mark.parametrize("op", ["encrypt", "decrypt"])
def test_purepy_point_verified_against_openssl(
    tmp_path: Path, cipher: str, op: str, impl: str
) -> None:
    res, recs = _run(
        tmp_path,
        make_point(
            size="in",
            size_bytes=301,
            reps=2,
            backend="purepy",
            impl=impl,
            cipher=cipher,
            op=op,
        ),
    )
    assert res["status"] == "ok", res
    assert len(recs) == 2 and all(r["verified"] is True for r in recs)
    r = recs[0]
    assert record_schema.validate_record(r) is None
    assert r["backend"] == "purepy" and r["key_bits"] == ciphers.cipher(cipher).key_bits
    assert r["impl"] == r["fingerprint"]["impl"] == impl
    assert (r["library_version"] or "").startswith("NumPy" if impl == "numpy" else "")
    assert r["t_keyexp"] + r["t_compute"] == pytest.approx(r["t_total"])


def test_purepy_config_and_points(tmp_path: Path) -> None:
    raw = base_config()
    raw["backends"] = {"purepy": {"ciphers": ["aes-256-ecb", "chacha20"]}}
    raw["platform"] = {"container": {"runtime": "none"}}
    cfg = cs_config.validate(raw, root=ROOT, workdir=tmp_path)
    ids = {p.id for p in expand(cfg)}
    assert any(i.startswith("purepy-aes-256-ecb-") for i in ids)
    raw["backends"] = {"purepy": {"ciphers": ["aes-128-cbc"]}}
    with pytest.raises(ValueError, match=r"backends\.purepy\.ciphers\[0\]"):
        cs_config.validate(raw, root=ROOT, workdir=tmp_path)


def test_purepy_impls_make_points_of_their_own(tmp_path: Path) -> None:
    raw = base_config()
    raw["backends"] = {
        "purepy": {"ciphers": ["chacha20"], "impls": ["purepy", "numpy"]}
    }
    raw["platform"] = {"container": {"runtime": "none"}}
    pts = expand(cs_config.validate(raw, root=ROOT, workdir=tmp_path))
    by_impl = {i: [p for p in pts if p.impl == i] for i in ("purepy", "numpy")}
    assert len(by_impl["purepy"]) == len(by_impl["numpy"]) == 2  # two sizes
    assert len({p.id for p in pts}) == len(pts)
    assert all(p.id.startswith("purepy-numpy-chacha20-") for p in by_impl["numpy"])
    args = launch.kernel_args(by_impl["numpy"][0], input_path="x", json_path="y")
    assert args[args.index("--impl") + 1] == "numpy"
    raw["backends"]["purepy"]["impls"] = ["cython"]
    with pytest.raises(ValueError, match=r"backends\.purepy\.impls\[0\]: 'cython'"):
        cs_config.validate(raw, root=ROOT, workdir=tmp_path)


def test_purepy_sets_restrict_its_points(tmp_path: Path) -> None:
    raw = base_config(sizes=[], inputs=[
        {"name": "small", "generate": {"count": 2, "min": "20B", "max": "40B"}},
        {"name": "large", "generate": {"count": 2, "min": "1KB", "max": "2KB"}},
    ])  # fmt: skip
    raw["backends"] = {
        "purepy": {"ciphers": ["chacha20"], "sets": ["small"]},
        "openssl": {"ciphers": ["chacha20"]},
    }
    raw["platform"] = {"container": {"runtime": "none"}}
    pts = expand(cs_config.validate(raw, root=ROOT, workdir=tmp_path))
    assert {p.input_set for p in pts if p.backend == "purepy"} == {"small"}
    assert {p.input_set for p in pts if p.backend == "openssl"} == {"small", "large"}
    raw["backends"]["purepy"]["sets"] = ["huge"]
    with pytest.raises(ValueError, match=r"backends\.purepy\.sets\[0\]: 'huge'"):
        cs_config.validate(raw, root=ROOT, workdir=tmp_path)
