"""The command backend and the PyCryptodome runner: argument lists with placeholders
(no shell), their config checks, and small real points through the bench job's own
code path (real `openssl enc`, real PyCryptodome, OpenSSL's legacy provider)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ciphersweep.core import ciphers
from ciphersweep.job import launch, record_schema, runner
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import launch_checks
from ciphersweep.plan.sweep import Point, expand
from support import ROOT, base_config, make_point

ENC = [
    "openssl", "enc", "-provider", "legacy", "-provider", "default",
    "-{cipher}", "-e", "-K", "{key}", "-iv", "{iv}", "-in", "{input}", "-out", "{output}",
]  # fmt: skip
DEC = [a if a != "-e" else "-d" for a in ENC]


def test_placeholders_fill_each_argument_alone() -> None:
    got = launch.command_argv(
        ["prog", "-in", "{input}", "--to={output}", "{{literal}}"],
        {"input": "a b;rm -rf x", "output": "$(id)", "key": "", "iv": "", "cipher": ""},
    )
    # a ';', a space or '$(...)' in a path stays part of that one argument
    assert got == ["prog", "-in", "a b;rm -rf x", "--to=$(id)", "{literal}"]


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ([], "empty argument list"),
        (["", "-x"], "no program"),
        (["prog", "{inptu}"], "unknown placeholder {inptu}"),
        (["prog", "{input!r}"], "unknown placeholder"),
        (["prog", "{input"], "literal braces"),
    ],
)
def test_bad_templates(template: list[str], expected: str) -> None:
    msg = launch_checks.placeholder_errors(template)
    assert msg is not None and expected in msg
    with pytest.raises(ValueError):
        launch.command_argv(template, {})


def _cmd_cfg(**prog: Any) -> dict[str, Any]:
    p = {
        "name": "openssl-enc",
        "ciphers": ["aes-128-cbc"],
        "encrypt": ENC,
        "decrypt": DEC,
    }
    p.update(prog)
    return base_config(
        ops=["encrypt", "decrypt"],
        backends={
            "command": {"programs": [p]},
            "pycryptodome": {"ciphers": ["des-cbc"]},
        },
    )


BAD = {
    "unknown placeholder": (
        _cmd_cfg(encrypt=["openssl", "enc", "-out", "{out}"]),
        "backends.command.programs[0].encrypt: [3] '{out}': unknown placeholder",
    ),
    "empty argv": (_cmd_cfg(encrypt=[]), "programs[0].encrypt: empty argument list"),
    "no output": (_cmd_cfg(encrypt=["true"]), "no {output} placeholder"),
    "missing decrypt": (
        _cmd_cfg(decrypt=None),
        "programs[0]: no 'decrypt' argument list",
    ),
    "unknown cipher": (
        _cmd_cfg(ciphers=["serpent-cbc"]),
        "programs[0].ciphers[0]: 'serpent-cbc' is not a cipher",
    ),
    "key bits": (
        {**_cmd_cfg(), "key_bits": {"aes-128-cbc": [64]}},
        "key_bits.aes-128-cbc: aes-128-cbc: a 64-bit key is not allowed (128)",
    ),
    "blowfish key bits": (
        {**_cmd_cfg(), "key_bits": {"bf-cbc": [12]}},
        "key_bits.bf-cbc: bf-cbc: a 12-bit key is not allowed (32..448 in steps of 8)",
    ),
    "container": (
        {**_cmd_cfg(), "platform": {"container": {"runtime": "charliecloud"}}},
        "backends.pycryptodome: runs natively only",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_command_config(case: str, tmp_path: Path) -> None:
    cfg, expected = BAD[case]
    prog = cfg["backends"]["command"]["programs"][0]
    if prog.get("decrypt", 1) is None:
        del prog["decrypt"]
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_config.validate(cfg, root=ROOT, workdir=tmp_path)
    msg = str(exc.value)
    assert "\n" not in msg and expected in msg, msg


def test_points_and_launch_line(tmp_path: Path) -> None:
    cfg = cs_config.validate(
        {**_cmd_cfg(ciphers=["bf-cbc"]), "key_bits": {"bf-cbc": [64]}},
        root=ROOT,
        workdir=tmp_path,
    )
    pts = {p.id: p for p in expand(cfg)}
    p = pts["command-openssl-enc-bf-cbc-k64-dec-1KiB-r1-t1"]
    assert p.command == tuple(DEC)
    assert "pycryptodome-des-cbc-enc-64KiB-r1-t1" in pts
    args = launch.kernel_args(p, input_path="in.bin", json_path="o.json")
    ln = launch.build(p, launch.Platform(), args)
    assert ln.argv[:3] == [sys.executable, "-m", "ciphersweep.job.kernel_command"]
    assert ln.argv[ln.argv.index("--key-bits") + 1] == "64"
    assert ln.argv[ln.argv.index("--") + 1 :] == DEC
    assert "PYTHONPATH" in ln.env


def _run(tmp_path: Path, p: Point) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    data = tmp_path / "in.bin"
    if not data.exists():
        data.write_bytes(bytes((i * 7 + 3) % 256 for i in range(3001)))
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


@pytest.mark.parametrize("op", ["encrypt", "decrypt"])
def test_openssl_enc_point_verified(tmp_path: Path, op: str) -> None:
    cmd = ENC if op == "encrypt" else DEC
    res, recs = _run(
        tmp_path,
        make_point(
            size="in",
            size_bytes=3001,
            reps=2,
            backend="command",
            impl="openssl-enc",
            cipher="aes-128-cbc",
            op=op,
            command=tuple(cmd),
        ),
    )
    assert res["status"] == "ok", res
    assert len(recs) == 2 and all(r["verified"] is True for r in recs)
    r = recs[0]
    assert record_schema.validate_record(r) is None
    assert r["backend"] == "command" and r["impl"] == "openssl-enc"
    assert r["t_total"] > 0 and r["cpu_user_s"] + r["cpu_sys_s"] > 0
    assert (
        r["command_line"].startswith("openssl enc ")
        and "-K 000102" in r["command_line"]
    )
    assert r["out_bytes"] == (3008 if op == "encrypt" else 3001)


def test_legacy_blowfish_through_openssl_enc(tmp_path: Path) -> None:
    res, recs = _run(
        tmp_path,
        make_point(
            size="in",
            size_bytes=3001,
            reps=2,
            backend="command",
            impl="openssl-enc",
            cipher="bf-ofb",
            op="decrypt",
            command=tuple(DEC),
        ),
    )
    assert res["status"] == "ok", res
    assert recs[0]["cipher"] == "bf-ofb" and recs[0]["key_bits"] == 128


@pytest.mark.parametrize(
    ("cipher", "key_bits", "op"),
    [
        ("aes-256-ctr", None, "encrypt"),
        ("des-cbc", None, "decrypt"),
        ("bf-ecb", 64, "encrypt"),
        ("chacha20", None, "decrypt"),
    ],
)
def test_pycryptodome_point_verified(
    tmp_path: Path, cipher: str, key_bits: int | None, op: str
) -> None:
    res, recs = _run(
        tmp_path,
        make_point(
            size="in",
            size_bytes=3001,
            reps=2,
            backend="pycryptodome",
            impl="pycryptodome",
            cipher=cipher,
            op=op,
            key_bits=key_bits,
        ),
    )
    assert res["status"] == "ok", res
    r = recs[0]
    assert record_schema.validate_record(r) is None
    assert r["verified"] is True and r["library_version"].startswith("PyCryptodome ")
    assert r["key_bits"] == (key_bits or ciphers.cipher(cipher).key_bits)
    assert r["t_keyexp"] + r["t_compute"] == pytest.approx(r["t_total"])


def test_blowfish_64_differs_from_128() -> None:
    """The 64-bit Blowfish key is a key of its own, not a zero-padded 128-bit one."""
    data = bytes(64)
    k64 = ciphers.openssl_crypt(ciphers.cipher("bf-ecb", 64), True, data)
    k128 = ciphers.openssl_crypt(ciphers.cipher("bf-ecb"), True, data)
    assert k64 != k128


def test_wrong_output_fails_the_point(tmp_path: Path) -> None:
    copy = ("cp", "{input}", "{output}")  # writes the plaintext, not the ciphertext
    res, recs = _run(
        tmp_path,
        make_point(
            size="in",
            size_bytes=3001,
            reps=2,
            backend="command",
            impl="cp",
            cipher="aes-128-ecb",
            op="encrypt",
            command=copy,
        ),
    )
    assert res["status"] == "failed"
    assert (
        len(recs) == 1 and recs[0]["status"] == "failed" and recs[0]["t_total"] is None
    )
    assert "verification FAILED" in recs[0]["reason"]
    assert "differs from OpenSSL's at byte 0" in recs[0]["reason"]


def test_failing_program_fails_the_point(tmp_path: Path) -> None:
    bad = ("openssl", "enc", "-no-such-cipher", "-in", "{input}", "-out", "{output}")
    res, recs = _run(
        tmp_path,
        make_point(
            size="in",
            size_bytes=3001,
            reps=2,
            backend="command",
            impl="bad",
            cipher="aes-128-cbc",
            op="encrypt",
            command=bad,
        ),
    )
    assert res["status"] == "failed"
    assert "aes-command: openssl exited 1" in recs[0]["reason"]


def test_killed_command_leaves_no_scratch(tmp_path: Path) -> None:
    slow = ("sh", "-c", "sleep 30; :", "{output}")
    p = make_point(
        size="in",
        size_bytes=3001,
        reps=2,
        backend="command",
        impl="slow",
        cipher="aes-128-ecb",
        op="encrypt",
        command=slow,
    )
    data = tmp_path / "in.bin"
    data.write_bytes(bytes(64))
    spec = runner.RunSpec(
        campaign="t",
        input_path=str(data),
        out_path=str(tmp_path / "raw" / f"{p.id}.jsonl"),
        log_path=str(tmp_path / "logs" / f"{p.id}.log"),
        energy="none",
        timeout_s=3,
    )
    res = runner.run_point(p, spec)
    assert res["status"] == "failed" and "timeout after 3 s" in res["reason"]
    assert sorted(f.name for f in (tmp_path / "raw").iterdir()) == [f"{p.id}.jsonl"]
    # the program was killed with the kernel, not left running
    gone = subprocess.run(["pgrep", "-f", f"sleep 30; : {tmp_path}"], check=False)
    assert gone.returncode == 1
