"""The shipped claims of rondon2025, lombardo2019 and pousa2011 judged on small
synthetic campaigns: each checks what its sentence says (every key length, every cell
where the study says "consistently", the 1 KB exceptions), cites a section the paper
has, and the rank agreement leaves out the cells the paper measured otherwise."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from ciphersweep.analysis.compare.claims import FAILS, HOLDS, INCONCLUSIVE, claim_rows
from ciphersweep.analysis.compare.published import published_rows, rank_rows
from ciphersweep.analysis.tables import model as tables
from ciphersweep.plan import config as cs_config
from ciphersweep.plan.study_files import load_claims, load_published
from support import POUSA_SHAPES, ROOT, base_config, make_point, summary_context

PUB = ROOT / "config" / "campaigns" / "published"
MIB = 2**20


def _claim(study: str, cid: str) -> dict[str, Any]:
    return next(c for c in load_claims(PUB / f"{study}.claims.yaml") if c["id"] == cid)


def _verdict(ctx: tables.Context, study: str, cid: str) -> tuple[str, str]:
    (row,) = claim_rows(ctx, [_claim(study, cid)], None)
    return row["verdict"], row["numbers"]


def _ctx(times: dict[Any, float]) -> tables.Context:
    """A campaign whose points took these (median) times, each with a +-1% interval."""
    return summary_context(
        [
            (p, {"t_total_median": t, "t_total_ci_low": 0.99 * t,
                 "t_total_ci_high": 1.01 * t})
            for p, t in times.items()
        ]
    )  # fmt: skip


# ------------------------------------------------------------------ rondon2025

# MiB/s of each (cipher, impl): AES-NI far beyond the study, the portable code near it
RONDON_RATES = {
    ("aes-128-cbc", "pycryptodome"): 1000.0,
    ("aes-128-cbc", "portable"): 100.0,
    ("aes-256-cbc", "pycryptodome"): 800.0,
    ("aes-256-cbc", "portable"): 82.0,
    ("des-cbc", "pycryptodome"): 22.0,
    ("des-ede3-cbc", "pycryptodome"): 10.0,
}


def _rondon(**rates: float) -> tables.Context:
    """Every cipher and impl at 1 KiB and 1 MiB, both ops; ``rates`` overrides one
    cell's rate, keyed ``<cipher>_<impl>_<size>_<op>``."""
    times = {}
    for (cipher, impl), rate in RONDON_RATES.items():
        for size in ("1KiB", "1MiB"):
            for op in ("encrypt", "decrypt"):
                p = make_point(
                    size=size, backend="pycryptodome", impl=impl, cipher=cipher, op=op
                )
                r = rates.get(f"{cipher}_{impl}_{size}_{op}", rate)
                times[p] = p.size_bytes / MIB / r
    return _ctx(times)


def test_the_aes_des_factor_tells_the_two_aes_codes_apart() -> None:
    ctx = _rondon()
    verdict, numbers = _verdict(ctx, "rondon2025", "aes128-vs-des")
    assert verdict == FAILS and "1KiB encrypt: 45.45" in numbers  # AES-NI: 1000 / 22
    assert _verdict(ctx, "rondon2025", "aes128-vs-des-portable")[0] == HOLDS
    assert _verdict(ctx, "rondon2025", "aes128-vs-3des-portable")[0] == HOLDS
    assert _verdict(ctx, "rondon2025", "aes128-vs-3des")[0] == FAILS


def test_consistently_means_every_cell_not_the_median() -> None:
    # one cell of four at 200 MiB/s: a factor of 9.1, the median still 4.5
    ctx = _rondon(**{"aes-128-cbc_portable_1MiB_decrypt": 200.0})
    verdict, numbers = _verdict(ctx, "rondon2025", "aes128-vs-des-portable")
    assert verdict == FAILS
    assert "1MiB decrypt: 9.091" in numbers and "1KiB encrypt: 4.545" in numbers
    # at the edge of the band (4.5 x 1.2 = 5.4) the interval reaches both sides
    ctx = _rondon(**{"aes-128-cbc_portable_1MiB_decrypt": 5.4 * 22.0})
    verdict, _ = _verdict(ctx, "rondon2025", "aes128-vs-des-portable")
    assert verdict.startswith(f"{INCONCLUSIVE}: ") and "1MiB decrypt" in verdict


def test_consistent_across_sizes_is_the_order_in_every_cell() -> None:
    assert _verdict(_rondon(), "rondon2025", "consistent-across-sizes")[0] == HOLDS
    # DES overtakes AES-256 (the library's choice) at 1 MiB encryption only
    ctx = _rondon(**{"des-cbc_pycryptodome_1MiB_encrypt": 900.0})
    verdict, numbers = _verdict(ctx, "rondon2025", "consistent-across-sizes")
    assert verdict == FAILS and "out of order in 1 of 4: 1MiB encrypt" in numbers


def test_orders_of_magnitude_is_checked_on_both_aes_key_lengths() -> None:
    # AES-128 45 times DES, AES-256 only 6.8 times: "128 and 256" does not hold for 256
    slow256 = {
        f"aes-256-cbc_pycryptodome_{s}_{o}": 150.0
        for s in ("1KiB", "1MiB")
        for o in ("encrypt", "decrypt")
    }
    ctx = _rondon(**slow256)
    assert _verdict(ctx, "rondon2025", "aes128-orders-of-magnitude")[0] == HOLDS
    assert _verdict(ctx, "rondon2025", "aes256-orders-of-magnitude")[0] == FAILS


def test_the_published_aes_figures_mark_the_nearer_code() -> None:
    pub = load_published(PUB / "rondon2025.csv")
    row = pub[
        (pub["row"] == "AES-128 CBC")
        & (pub["column"] == "Throughput Cifrar (MB/s)")
        & (pub["size"] == "1MiB")
    ]
    rows = published_rows(_rondon(), row)
    by = {r["impl"]: r for r in rows}
    assert set(by) == {"pycryptodome", "portable"}
    assert (
        by["portable"]["closest"] == "closest" and by["pycryptodome"]["closest"] == ""
    )
    assert by["portable"]["measured"] == pytest.approx(100.0)
    assert by["portable"]["alternative"] == "portable"
    des = pub[(pub["row"] == "DES CBC") & (pub["size"] == "1MiB")]
    assert {r["impl"] for r in published_rows(_rondon(), des)} == {""}


# ------------------------------------------------------------------ pousa2011


def _pousa(at_1kib: dict[str, float], at_1mib: dict[str, float]) -> tables.Context:
    times = {}
    for size, ts in (("1KiB", at_1kib), ("1MiB", at_1mib)):
        for name, t in ts.items():
            shape = {"impl": "ref", **POUSA_SHAPES[name]}
            times[make_point(size=size, cipher="aes-128-ecb", **shape)] = t
    return _ctx(times)


# the study's Tabla 5.2 (s): at 1 KB MPI 8 beats OpenMP and MPI 16/32 beat CUDA
POUSA_1KB = {
    "seq": 0.002221,
    "omp": 0.00054,
    "mpi8": 0.00028,
    "mpi16": 0.000141,
    "mpi32": 0.000071,
    "cuda": 0.000146,
}
POUSA_1MB = {
    "seq": 2.266,
    "omp": 0.299,
    "mpi8": 0.286,
    "mpi16": 0.1436,
    "mpi32": 0.0713,
    "cuda": 0.005,
}


def test_pousa_1kb_exceptions_are_claims_of_their_own() -> None:
    ctx = _pousa(POUSA_1KB, POUSA_1MB)
    for cid in ("omp-mpi8-similar", "mpi8-faster-at-1kb", "cuda-fastest"):
        assert _verdict(ctx, "pousa2011", cid)[0] == HOLDS, cid
    assert _verdict(ctx, "pousa2011", "cuda-1kb-exception")[0] == HOLDS
    # OpenMP as fast as MPI at 1 KB: the exception no longer holds, the rule still does
    ctx = _pousa({**POUSA_1KB, "omp": 0.00014, "cuda": 0.00005}, POUSA_1MB)
    assert _verdict(ctx, "pousa2011", "mpi8-faster-at-1kb")[0] == FAILS
    assert _verdict(ctx, "pousa2011", "cuda-1kb-exception")[0] == FAILS
    assert _verdict(ctx, "pousa2011", "omp-mpi8-similar")[0] == HOLDS


def test_a_claim_of_the_projects_own_says_so() -> None:
    ctx = _pousa(POUSA_1KB, POUSA_1MB)
    own = claim_rows(ctx, [_claim("pousa2011", "mpi-linear-compute")], None)[0]
    study = claim_rows(ctx, [_claim("pousa2011", "mpi-linear")], None)[0]
    assert own["source"].startswith("the project's own, after §5.2")
    assert not study["source"].startswith("the project's own")
    ids = {c["id"] for c in load_claims(PUB / "pousa2011.claims.yaml")}
    assert "cuda-500x" not in ids  # a printed number, compared in the published table


@pytest.mark.parametrize(("value", "ok"), [(True, True), ("yes", False)])
def test_own_must_be_a_boolean(tmp_path: Path, value: Any, ok: bool) -> None:
    claim = {"id": "x", "text": "t", "kind": "order", "quantity": "t_total"}
    claim.update(order=[{"backend": "seq"}, {"backend": "omp"}], own=value)
    path = tmp_path / "c.claims.yaml"
    path.write_text(json.dumps({"claims": [claim]}))
    cfg = base_config(compare={"claims": str(path)})
    if ok:
        cs_config.validate(cfg, root=ROOT, workdir=tmp_path)
        return
    with pytest.raises(ValueError, match=r"claims\[0\]\.own: 'yes' is not allowed"):
        cs_config.validate(cfg, root=ROOT, workdir=tmp_path)


# ------------------------------------------------------------------ lombardo2019

LOMBARDO_CIPHERS = [
    f"aes-{k}-{m}" for k in (128, 192, 256) for m in ("cbc", "ofb", "ctr", "ecb")
] + [f"{c}-{m}" for c in ("des", "bf") for m in ("cbc", "ofb", "ecb")]


def _lombardo(sizes: tuple[str, ...], slower: dict[str, float]) -> tables.Context:
    """Every configuration of the study: AES 1 s, Blowfish 2 s, DES 3 s (x the size in
    100 MB), except ``slower``'s ciphers."""
    times = {}
    for size in sizes:
        scale = {"10KB": 1e-4, "100MB": 1.0}[size]
        for c in LOMBARDO_CIPHERS:
            base = {"aes": 1.0, "bf": 2.0, "des": 3.0}[c.split("-")[0]]
            impl = "openssl-enc" if c.startswith("aes") else "openssl-enc-legacy"
            for op in ("encrypt", "decrypt"):
                p = make_point(size=size, backend="command", impl=impl, cipher=c, op=op)
                times[p] = slower.get(c, base) * scale
    return _ctx(times)


def test_aes_best_checks_every_aes_key_length() -> None:
    ctx = _lombardo(("100MB",), {})
    assert _verdict(ctx, "lombardo2019", "aes-best-des-worst")[0] == HOLDS
    # AES-192-CBC behind Blowfish: the fastest AES length alone would have hidden it
    ctx = _lombardo(("100MB",), {"aes-192-cbc": 2.5})
    verdict, numbers = _verdict(ctx, "lombardo2019", "aes-best-des-worst")
    assert verdict == FAILS and "out of order in 2 of 6" in numbers
    assert "100MB decrypt cbc" in numbers and "100MB encrypt cbc" in numbers


def test_ecb_ctr_fastest_in_each_cipher_and_key_length() -> None:
    ctx = _lombardo(("100MB",), {c: 0.9 for c in LOMBARDO_CIPHERS if "ecb" in c})
    assert _verdict(ctx, "lombardo2019", "ecb-ctr-fastest")[0] == HOLDS
    # DES's ECB the slowest of its modes: DES alone breaks it
    slow = {**{c: 0.9 for c in LOMBARDO_CIPHERS if "ecb" in c}, "des-ecb": 3.5}
    verdict, numbers = _verdict(
        _lombardo(("100MB",), slow), "lombardo2019", "ecb-ctr-fastest"
    )
    assert verdict == FAILS and "100MB encrypt des 64" in numbers


def test_rank_agreement_leaves_out_the_prompt_dominated_cells() -> None:
    pub = load_published(PUB / "lombardo2019.csv")
    small = pub[(pub["measure"] == "t_total") & (pub["size"] != "100MB")]
    small = small[small["size"] != "1GB"]
    assert (small["not_comparable"].str.len() > 0).all()
    big = pub[(pub["measure"] == "t_total") & pub["size"].isin(["100MB", "1GB"])]
    assert (big["not_comparable"] == "").all()
    rows = published_rows(_lombardo(("10KB", "100MB"), {}), pub)
    ranks = {(r["source"], r["measure"]): r["cells"] for r in rank_rows(rows)}
    # 100 MB only: AES 12 configurations x 2 ops, DES and Blowfish 3 x 2 each
    assert ranks == {
        ("4.1 AES", "t_total"): 24,
        ("4.2 DES", "t_total"): 6,
        ("4.3 Blowfish", "t_total"): 6,
    }
    # shown but not ranked: the 36 times at 10 kB, the 36 ratios at both sizes
    shown = [r for r in rows if r["measured"] is not None and not r["comparable"]]
    assert len(shown) == 36 + 36


def test_rank_agreement_per_implementation_where_the_paper_does_not_say() -> None:
    rows = [
        {"source": "T", "measure": "m", "paper": p, "measured": m, "impl_choice": c}
        for p, m, c in (
            (1.0, 1.0, ""),
            (2.0, 2.0, ""),
            (3.0, 3.0, "a"),
            (3.0, 0.5, "b"),
            (9.0, 9.0, ""),
        )
    ] + [
        {
            "source": "T",
            "measure": "m",
            "paper": 5.0,
            "measured": 1.0,
            "comparable": False,
        }
    ]
    got = {r["source"]: (r["cells"], r["spearman"]) for r in rank_rows(rows)}
    assert got == {"T [a]": (4, pytest.approx(1.0)), "T [b]": (4, pytest.approx(0.4))}


# ------------------------------------------------------------------ citations

# the numbered sections of each paper (its table of contents)
SECTIONS = {
    "rondon2025": {"§1", "§2", "§2.1", "§2.2", "§2.3", "§3", "§3.1", "§3.2", "§3.3",
                   "§4", "§4.1", "§4.2", "§4.3", "§5", "§5.1", "§6"},
    "lombardo2019": {"§1", "§2", "§2.1", "§2.2", "§2.3", "§2.4", "§3", "§3.1", "§4",
                     "§4.1", "§4.2", "§4.3", "§4.4", "§5"},
    "pousa2011": {"§4.1", "§4.2", "§4.3", "§4.3.1", "§4.3.2", "§4.3.3", "§5.1",
                  "§5.2", "§5.3", "§6.1", "§6.2"},
}  # fmt: skip


@pytest.mark.parametrize("study", sorted(SECTIONS))
def test_every_cited_section_exists(study: str, tmp_path: Path) -> None:
    path = PUB / f"{study}.claims.yaml"
    cs_config.validate(
        base_config(compare={"claims": str(path)}), root=ROOT, workdir=tmp_path
    )
    for c in load_claims(path):
        cited = re.findall(r"§\d+(?:\.\d+)*", c.get("source", ""))
        assert cited or c["kind"] == "paper", c["id"]
        missing = set(cited) - SECTIONS[study]
        assert not missing, (c["id"], missing)
