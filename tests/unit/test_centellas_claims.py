"""Centellas Claros et al. (2021): the claims file checks what each sentence says and
cites sections the paper has; the power claims are judged in watts, "discrepancies
under 5 W" as a difference against a ±5 W band and "3DES the worst in every field" as
3DES's power above every other cipher's."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from ciphersweep.analysis.compare.claims import FAILS, HOLDS, claim_rows
from ciphersweep.analysis.tables.model import Context
from ciphersweep.plan import config_checks
from ciphersweep.plan.study_files import load_claims
from support import ROOT, make_point, summary_context

CLAIMS = ROOT / "config" / "campaigns" / "published" / "centellas2021.claims.yaml"
CIPHERS = ("aes-128-ecb", "aes-192-ecb", "aes-256-ecb", "des-ede3-ecb", "chacha20")
# the paper's sections (1 .. 9 and their subsections), its abstract and figures
SECTIONS = {
    *(str(n) for n in range(1, 10)),
    "3.1", "3.2", "4.1", "4.1.1", "4.1.2", "4.1.3", "4.2", "4.2.1", "4.2.2",
    "4.2.3", "4.3", "4.3.1", "4.3.2", "5.1", "5.2", "5.3", "5.4", "6.1", "6.2", "6.3",
}  # fmt: skip


def _claim(cid: str) -> dict[str, Any]:
    (c,) = [c for c in load_claims(CLAIMS) if c["id"] == cid]
    return c


def _power(watts: dict[str, float], half: float) -> Context:
    """The NumPy runner's points on two files, encrypting: each cipher at its power
    (W), the energy's 95% interval ``watts ± half`` over 1 s ± 1 %."""
    rows = []
    for f in ("texts.001", "audio.001"):
        for cipher in CIPHERS:
            p = make_point(
                size=f, size_bytes=1000, backend="purepy", impl="numpy", cipher=cipher
            )
            w = watts[cipher]
            rows.append(
                (
                    p,
                    {
                        "t_total_mean": 1.0,
                        "t_total_mean_ci_low": 0.99,
                        "t_total_mean_ci_high": 1.01,
                        "joules_mean": w,
                        "joules_mean_ci_low": w - half,
                        "joules_mean_ci_high": w + half,
                    },
                )
            )
    return summary_context(rows, statistic="mean")


def _verdict(cid: str, ctx: Context) -> dict[str, Any]:
    (row,) = claim_rows(ctx, [_claim(cid)], None)
    return row


AES = {"aes-128-ecb": 21.0, "aes-192-ecb": 21.5, "aes-256-ecb": 22.0}


@pytest.mark.parametrize(
    ("tdes", "half", "verdict"),
    [
        (22.0, 0.5, HOLDS),  # 2 W apart, the interval (about ±1.2 W) inside ±5 W
        (17.0, 0.5, HOLDS),  # 3DES below ChaCha20: 3 W apart the other way
        (30.0, 0.5, FAILS),  # 10 W apart, clear of the band
        (25.0, 1.0, "inconclusive"),  # 5 W apart, the interval reaches both sides
    ],
)
def test_power_discrepancy_is_a_difference_in_watts_against_5_w(
    tdes: float, half: float, verdict: str
) -> None:
    ctx = _power({**AES, "chacha20": 20.0, "des-ede3-ecb": tdes}, half)
    row = _verdict("power-no-difference", ctx)
    assert row["verdict"].startswith(verdict), row
    assert row["numbers"].startswith(f"difference {tdes - 20.0:.4g} [")
    assert "stated 0 ±5 W" in row["numbers"]


def test_a_ratio_within_25_percent_is_no_5_w_band() -> None:
    """30 W against 25 W is a ratio of 1.2 (within the old ±25 %) but 5+ W apart."""
    ctx = _power({**AES, "chacha20": 24.0, "des-ede3-ecb": 30.0}, 0.1)
    assert _verdict("power-no-difference", ctx)["verdict"] == FAILS


@pytest.mark.parametrize(
    ("tdes", "verdict"),
    [(25.0, HOLDS), (20.5, FAILS), (22.3, "inconclusive")],
)
def test_3des_shows_the_highest_power(tdes: float, verdict: str) -> None:
    """§8: 3DES has the worst values in every field measured, power included: above
    each of the other four ciphers (the highest of them 22 W ± about 0.5 W)."""
    ctx = _power({**AES, "chacha20": 20.0, "des-ede3-ecb": tdes}, 0.3)
    row = _verdict("power-3des-highest", ctx)
    assert row["verdict"].startswith(verdict), row


def test_power_claims_are_in_watts_on_the_study_kind_of_code() -> None:
    for cid in ("power-no-difference", "power-3des-highest", "power-chacha-lowest"):
        c = _claim(cid)
        assert (c["quantity"], c["unit"]) == ("watts", "W")
        assert c["where"] == {"backend": "purepy", "impl": "numpy", "kind": "numpy"}
    c = _claim("power-no-difference")
    assert (c["aggregate"], c["expect"], c["tolerance"]) == ("difference", 0, 5)
    top = _claim("power-3des-highest")["order"][-1]
    assert top == {"cipher": "des-ede3-*"}


def test_the_claims_file_validates_and_a_factor_of_0_does_not() -> None:
    raw = yaml.safe_load(CLAIMS.read_text())["claims"]
    config_checks.check_claims(raw, CLAIMS.name)
    bad = {**_claim("aes128-1.4x-aes256"), "expect": 0}
    with pytest.raises(config_checks.Problem, match=r"claims\[0\]\.expect"):
        config_checks.check_claims([bad], CLAIMS.name)


def test_every_claim_cites_sections_the_paper_has() -> None:
    for c in load_claims(CLAIMS):
        src = c["source"]
        cited = re.findall(r"§(\d+(?:\.\d+)*)", src)
        figures = [int(n) for n in re.findall(r"Figur[ae] (\d+)", src)]
        assert cited or figures or src == "Resumen", c["id"]
        assert set(cited) <= SECTIONS, (c["id"], cited)
        assert all(1 <= n <= 5 for n in figures), (c["id"], figures)
    # §6.2 says AES is as low as ChaCha20; only §8 says ChaCha20 is the lowest
    assert _claim("cpu-chacha-least")["source"] == "§8"
    assert _claim("chacha-6x-aes256-pycryptodome")["own"] is True
