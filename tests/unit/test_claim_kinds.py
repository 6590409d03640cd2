"""A claim's sides name the kind of implementation the study's was; a side measured
here on another kind is not comparable, with the reason, decided from the kinds
declared for the backends and impls (plan.impl_kinds). Contradictions inside a paper
are found from two of its order claims. The aguado2024 claims name every kind, cite
only sections the study has, and are judged on the campaign's own points."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from ciphersweep.analysis.compare.claims import FAILS, HOLDS, claim_rows
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import schema as cs_schema
from ciphersweep.plan.config_backends import AEAD_IMPLS, CPU_IMPLS, CUDA_IMPLS
from ciphersweep.plan.impl_kinds import KINDS, claim_sides, kind_of
from ciphersweep.plan.study_files import load_claims
from ciphersweep.plan.sweep import Point, expand
from support import ROOT, make_point, summary_context

AGUADO = ROOT / "config" / "campaigns" / "aguado2024.yaml"
AGUADO_CLAIMS = ROOT / "config" / "campaigns" / "published" / "aguado2024.claims.yaml"
# the study's sections, tables and figures (its table of contents)
AGUADO_PARTS = {
    *(f"§{s}" for s in ("1", "2", "3", "3.1", "3.2", "4", "5", "5.1", "5.1.1")),
    *(f"§{s}" for s in ("5.1.2", "5.2", "5.2.1", "5.2.2", "5.3", "6", "6.1")),
    *(f"§{s}" for s in ("6.1.1", "6.1.2", "6.2", "6.2.1", "6.2.2", "7")),
    *(f"Cuadro {i}" for i in range(1, 4)),
    *(f"Figura {i}" for i in range(1, 11)),
}
# seconds per byte and per message of the synthetic times (aes-seq AEAD impls)
SPEED = {
    "ascon-ref": (2e-8, 1e-7),
    "ascon-opt64": (2e-9, 1e-7),
    "ascon-lowsize": (4e-9, 5e-8),
    "gcm-byte": (3e-8, 2e-6),
    "gcm-ref": (8e-9, 5e-7),
    "gcm-aesni": (5e-10, 2e-7),
}


def _gcm(impl: str, op: str = "encrypt", size: str = "1KiB") -> Point:
    return make_point(
        size=size, backend="seq", impl=impl, cipher="aes-128-gcm", mode="gcm", op=op
    )


def _row(t: float) -> dict[str, float]:
    """A summary row of time t (median and mean alike), its intervals +-1%."""
    return {
        "t_total_median": t,
        "t_total_ci_low": 0.99 * t,
        "t_total_ci_high": 1.01 * t,
        "t_total_mean": t,
        "t_total_mean_ci_low": 0.99 * t,
        "t_total_mean_ci_high": 1.01 * t,
    }


def _tinyaes_faster(impl: str | list[str], **where: Any) -> dict[str, Any]:
    """'tinyaes (byte-oriented) encrypts faster than aesni', tinyaes measured as impl."""
    return {
        "id": "t",
        "text": "for encryption, tinyaes is more efficient than aesni",
        "kind": "order",
        "quantity": "t_total",
        "where": where,
        "order": [
            {"impl": impl, "kind": "byte-oriented"},
            {"impl": "gcm-aesni", "kind": "aes-ni"},
        ],
    }


def _three_gcms() -> list[tuple[Point, dict[str, float]]]:
    return [
        (_gcm(i), _row(SPEED[i][1] + 1024 * SPEED[i][0])) for i in SPEED if "gcm" in i
    ]


def test_a_side_of_another_kind_is_not_comparable_with_the_reason() -> None:
    ctx = summary_context(_three_gcms())
    (row,) = claim_rows(ctx, [_tinyaes_faster("gcm-ref")], None)
    assert row["verdict"] == (
        "not comparable: impl=gcm-ref is table (gcm-ref) here, the study's was byte-oriented"
    )
    assert row["numbers"] == ""


def test_a_side_of_the_stated_kind_is_judged() -> None:
    ctx = summary_context(_three_gcms())
    (row,) = claim_rows(ctx, [_tinyaes_faster("gcm-byte")], None)
    assert row["verdict"] == FAILS  # the byte-oriented GCM is the slower here
    assert "out of order in 1 of 1" in row["numbers"]
    swapped = _tinyaes_faster("gcm-byte")
    swapped["order"].reverse()
    swapped["order"][0]["kind"], swapped["order"][1]["kind"] = "aes-ni", "byte-oriented"
    assert claim_rows(ctx, [swapped], None)[0]["verdict"] == HOLDS


def test_the_kind_of_the_where_holds_for_every_side() -> None:
    ctx = summary_context(_three_gcms())
    claim = _tinyaes_faster("gcm-*", kind=["byte-oriented", "aes-ni"])
    for side in claim["order"]:
        del side["kind"]
    claim["order"][1]["impl"] = "gcm-aesni"
    (row,) = claim_rows(ctx, [claim], None)
    # gcm-* picks gcm-ref too, a table AES the study did not measure
    assert row["verdict"].startswith("not comparable: impl=gcm-* is ")
    assert "table (gcm-ref)" in row["verdict"]
    assert row["verdict"].endswith("the study's was byte-oriented or aes-ni")
    claim["order"][0]["impl"] = ["gcm-byte", "gcm-aesni"]
    assert not claim_rows(ctx, [claim], None)[0]["verdict"].startswith("not comparable")


def test_an_impl_chosen_at_run_time_has_no_kind_to_compare() -> None:
    ctx = summary_context([*_three_gcms(), (_gcm("auto", size="2KiB"), _row(1e-6))])
    (row,) = claim_rows(ctx, [_tinyaes_faster(["gcm-byte", "auto"])], None)
    assert row["verdict"] == (
        "not comparable: impl=['gcm-byte', 'auto'] is byte-oriented (gcm-byte), "
        "chosen at run time (auto) here, the study's was byte-oriented"
    )


def _schema_impls(backend: str) -> list[str]:
    sections = cs_schema.schema()["properties"]["backends"]["properties"]
    impls = sections[backend]["properties"]
    return list(impls.get("impls", {}).get("items", {}).get("enum", []))


def test_every_impl_the_campaigns_accept_has_a_declared_kind() -> None:
    native = [i for i in CPU_IMPLS if i != "auto"]
    aead = [i for impls in AEAD_IMPLS.values() for i in impls if i != "auto"]
    for impl in native + aead:
        for backend in ("seq", "omp", "mpi"):
            assert kind_of(backend, impl) in KINDS, (backend, impl)
    for impl in CUDA_IMPLS:
        assert kind_of("cuda", impl) == "gpu"
    for backend in ("purepy", "pycryptodome"):
        for impl in _schema_impls(backend) or [backend]:
            assert kind_of(backend, impl) in KINDS, (backend, impl)
    assert kind_of("openssl", "evp") == "library"
    assert kind_of("command", "any-program-name") == "cli"
    assert kind_of("seq", "auto") is None
    assert kind_of("seq", "gcm-byte") == kind_of("seq", "ref") == "byte-oriented"
    assert kind_of("seq", "gcm-ref") == kind_of("seq", "ttable") == "table"


def _write(tmp_path: Path, claims: list[dict[str, Any]]) -> Path:
    path = tmp_path / "x.claims.yaml"
    path.write_text(yaml.safe_dump({"study": "x", "claims": claims}))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda c: c["order"][0].update(kind="bytewise"),
            "claims[0]: kind of implementation 'bytewise' (allowed: byte-oriented, ",
        ),
        (
            lambda c: c.update(where={"kind": ["aes-ni", "fast"]}),
            "claims[0]: kind of implementation 'fast' (allowed: ",
        ),
    ],
)
def test_an_unknown_kind_is_refused_in_one_line(
    tmp_path: Path, change: Any, message: str
) -> None:
    claim = _tinyaes_faster("gcm-byte")
    change(claim)
    with pytest.raises(ValueError) as err:
        load_claims(_write(tmp_path, [claim]))
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def _contradiction(*ids: str) -> dict[str, Any]:
    return {"id": "c", "text": "", "kind": "paper", "contradicts": list(ids)}


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        (_contradiction("t", "nope"), "'nope' is not an order claim of this file"),
        (_contradiction("t"), "(allowed: on a claim of kind paper, the ids of two"),
        (
            {**_contradiction("t", "t"), "kind": "order", "quantity": "t_total"},
            "(allowed: on a claim of kind paper",
        ),
    ],
)
def test_a_contradiction_names_two_order_claims(
    tmp_path: Path, claim: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError) as err:
        load_claims(_write(tmp_path, [_tinyaes_faster("gcm-byte"), claim]))
    assert message in str(err.value)


def test_two_orders_stated_both_ways_round_are_a_contradiction() -> None:
    ctx = summary_context(_three_gcms())
    other = _tinyaes_faster("gcm-byte")
    other["id"] = "u"
    other["order"].reverse()
    rows = claim_rows(
        ctx,
        [_tinyaes_faster("gcm-byte"), other, _contradiction("t", "u")],
        None,
    )
    assert rows[2]["verdict"] == "the paper contradicts itself"
    assert rows[2]["numbers"] == (
        "t puts impl=gcm-byte ahead of impl=gcm-aesni; "
        "u puts impl=gcm-aesni ahead of impl=gcm-byte"
    )
    # the same order under another where states other cells: no contradiction
    other["where"] = {"op": "decrypt"}
    rows = claim_rows(
        ctx, [_tinyaes_faster("gcm-byte"), other, _contradiction("t", "u")], None
    )
    assert rows[2]["verdict"] == "consistent"


def test_aguado_claims_name_kinds_and_cite_the_study() -> None:
    claims = load_claims(AGUADO_CLAIMS)
    for c in claims:
        for part in str(c["source"]).split(", "):
            assert part in AGUADO_PARTS, (c["id"], part)
        if c["kind"] == "paper":
            continue
        where = c.get("where", {})
        for side in claim_sides(c):
            assert side.get("kind", where.get("kind")), (c["id"], side)
    by_id = {c["id"]: c for c in claims}
    # each operation its own claim where the paper's sections differ about them
    assert by_id["o2-without-native-best-encryption"]["where"]["op"] == "encrypt"
    assert by_id["o2-without-native-best-decryption"]["where"]["op"] == "decrypt"
    # "-o2 the fastest of the levels evaluated": no order among the slower levels
    assert by_id["o2-native-fastest-native"]["order"][1] == [
        {"variant": "O1-native"},
        {"variant": "O0-native"},
    ]


def _aguado_context() -> Any:
    raw = yaml.safe_load(AGUADO.read_text())
    cfg = cs_config.validate(raw, root=ROOT, workdir=ROOT)
    flags = {"O0-native": 3.0, "O1-native": 1.2, "O2-native": 1.0, "O2": 0.95}
    rows = []
    for p in expand(cfg):
        per_byte, per_msg = SPEED[p.impl]
        t = flags[p.variant] * (per_msg + per_byte * p.size_bytes)
        rows.append((p, _row(t)))
    return summary_context(rows, **cfg)


def test_aguado_claims_are_judged_on_the_campaign_stand_ins() -> None:
    ctx = _aguado_context()
    rows = {r["id"]: r for r in claim_rows(ctx, load_claims(AGUADO_CLAIMS), None)}
    for r in rows.values():
        assert not r["verdict"].startswith("not comparable"), r
    assert rows["decryption-flags-contradiction"]["verdict"] == (
        "the paper contradicts itself"
    )
    assert rows["decryption-flags-contradiction"]["numbers"].startswith(
        "o2-slowest-decryption (§5.2.2) puts variant=O0-native ahead of variant=O2; "
        "o2-without-native-best-decryption (§6.2.2, §7) puts variant=O2 ahead of "
        "variant=O0-native (and 1 more pair)"
    )
    assert rows["binary-sizes-contradiction"]["verdict"] == (
        "the paper contradicts itself"
    )
    # with these times the byte-oriented GCM encrypts slower than the AES-NI one
    assert rows["tinyaes-faster-encryption"]["verdict"] == FAILS
    assert rows["o2-without-native-best-encryption"]["verdict"] == HOLDS
    # gcm-ref, the T-table GCM the campaign also measures, is no tiny-AES stand-in
    claims = load_claims(AGUADO_CLAIMS)
    tiny = next(c for c in claims if c["id"] == "tinyaes-faster-encryption")
    tiny["order"][0]["impl"] = "gcm-ref"
    (row,) = claim_rows(ctx, [tiny], None)
    assert row["verdict"] == (
        "not comparable: impl=gcm-ref is table (gcm-ref) here, "
        "the study's was byte-oriented"
    )
