"""The one comparison module: paper values, claims, another campaign, references."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from ciphersweep.analysis.compare import write
from ciphersweep.analysis.compare.campaign import campaign_rows
from ciphersweep.analysis.compare.claims import (
    FAILS,
    HOLDS,
    NO_INTERVAL,
    UNTESTED,
    claim_rows,
)
from ciphersweep.analysis.compare.published import (
    kendall,
    published_rows,
    rank_rows,
    spearman,
)
from ciphersweep.analysis.compare.references import (
    inconclusive,
    reference_rows,
    violations,
)
from ciphersweep.analysis.compare.sources import measured
from ciphersweep.analysis.tables import model as tables
from ciphersweep.analysis.tables import registry
from ciphersweep.plan import config, config_checks
from support import POUSA_SHAPES, ROOT, base_config, make_point
from support import summary_context as _ctx

SEQ = make_point(size="1KiB", backend="seq", impl="ref", cipher="aes-128-ecb")
MPI = make_point(size="1KiB", backend="mpi", impl="ref", cipher="aes-128-ecb", ranks=32)


def _pousa_like() -> tables.Context:
    return _ctx(
        [
            (
                SEQ,
                {
                    "t_total_median": 0.0022,
                    "t_compute_median": 0.0022,
                    "t_total_ci_low": 0.0021,
                    "t_total_ci_high": 0.0023,
                    "t_compute_ci_low": 0.0021,
                    "t_compute_ci_high": 0.0023,
                },
            ),
            # total time swamped by the distribution, compute-only time close to Ts/32
            (
                MPI,
                {
                    "t_total_median": 0.0011,
                    "t_compute_median": 0.00007,
                    "t_total_ci_low": 0.00105,
                    "t_total_ci_high": 0.00115,
                    "t_compute_ci_low": 0.000068,
                    "t_compute_ci_high": 0.000072,
                },
            ),
        ]
    )


PUB = pd.DataFrame(
    [
        {
            "source": "T5.2",
            "row": "Secuencial",
            "column": "1KB",
            "value": "2.221",
            "unit": "ms",
            "measure": "t_total",
            "backend": "seq",
            "size": "1KiB",
        },
        {
            "source": "T5.3",
            "row": "MPI (32 cores)",
            "column": "1KB",
            "value": "31.28",
            "unit": "x",
            "measure": "speedup|speedup_compute",
            "backend": "mpi",
            "ranks": "32",
            "size": "1KiB",
        },
        {
            "source": "T5.3",
            "row": "CUDA",
            "column": "1KB",
            "value": "15.2",
            "unit": "x",
            "measure": "speedup",
            "backend": "cuda",
            "size": "1KiB",
        },
    ]
).fillna("")


def test_published_rows_ratio_units_and_the_closest_quantity() -> None:
    rows = published_rows(_pousa_like(), PUB)
    by = {(r["row"], r["measure"]): r for r in rows}
    seq = by[("Secuencial", "t_total")]
    assert seq["measured"] == pytest.approx(2.2)  # converted to the paper's ms
    assert (seq["ci_low"], seq["ci_high"]) == pytest.approx((2.1, 2.3))
    assert seq["ratio"] == pytest.approx(2.2 / 2.221)
    total = by[("MPI (32 cores)", "speedup")]
    comp = by[("MPI (32 cores)", "speedup_compute")]
    assert total["measured"] == pytest.approx(2.0)
    assert comp["measured"] == pytest.approx(0.0022 / 0.00007)
    assert comp["difference"] == pytest.approx(0.0022 / 0.00007 - 31.28)
    assert comp["closest"] == "closest" and total["closest"] == ""
    cuda = by[("CUDA", "speedup")]
    assert cuda["measured"] is None and "not measured" in cuda["note"]


def test_rank_agreement() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert kendall([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)
    # one swapped pair of five: rho = 1 - 6*2/(5*24) = 0.9
    assert spearman([1, 2, 3, 4, 5], [1, 2, 3, 5, 4]) == pytest.approx(0.9)
    assert kendall([1, 2], [5, 5]) is None
    assert spearman([1, 2], [5, 5]) is None
    # a tie in x: mean ranks 1, 2.5, 2.5, 4 -> rho = 4.5 / sqrt(4.5 * 5); tau-b =
    # (5 concordant - 0) / sqrt((5 + 1 tied in x) * 5)
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / math.sqrt(22.5))
    assert kendall([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(5 / math.sqrt(30))
    rows = rank_rows(
        [
            {"source": "T", "measure": "t_total", "paper": a, "measured": b}
            for a, b in ((1, 0.5), (2, 0.9), (3, 1.1), (9, None))
        ]
    )
    assert rows == [
        {
            "source": "T",
            "measure": "t_total",
            "cells": 3,
            "spearman": 1.0,
            "kendall": 1.0,
        }
    ]


def _ciphers() -> tables.Context:
    rows = []
    for size in (1000, 2000):
        for cipher, t in (
            ("chacha20", 1.0),
            ("aes-128-ecb", 5.0),
            ("aes-256-ecb", 7.0),
        ):
            p = make_point(
                size=f"{size}B",
                backend="openssl",
                mode="ecb",
                impl="evp",
                cipher=cipher,
            )
            v = t * size
            rows.append(
                (
                    p,
                    {
                        "t_total_median": v,
                        "t_total_ci_low": 0.99 * v,
                        "t_total_ci_high": 1.01 * v,
                    },
                )
            )
    return _ctx(rows, baseline={"backend": "seq"})


def test_claims_hold_or_not_with_the_deciding_numbers() -> None:
    ctx = _ciphers()
    claims = [
        {
            "id": "a",
            "text": "ChaCha20 up to 6x",
            "kind": "factor",
            "quantity": "t_total",
            "faster": {"cipher": "chacha20"},
            "slower": {"cipher": "aes-*"},
            "aggregate": "max",
            "expect": 6,
            "tolerance": 0.25,
        },
        {
            "id": "b",
            "text": "AES-128 1.4x AES-256",
            "kind": "factor",
            "quantity": "t_total",
            "faster": {"cipher": "aes-128-*"},
            "slower": {"cipher": "aes-256-*"},
            "expect": 1.4,
            "tolerance": 0.1,
        },
        {
            "id": "c",
            "text": "order",
            "kind": "order",
            "quantity": "t_total",
            "order": [{"cipher": "aes-256-*"}, {"cipher": "chacha20"}],
        },
        {
            "id": "d",
            "text": "throughput",
            "kind": "values",
            "quantity": "throughput",
            "unit": "MB/s",
            "expect": [
                {"where": {"cipher": "chacha20", "size": "1000B"}, "value": 1e-6}
            ],
            "tolerance": 0.05,
        },
        {
            "id": "e",
            "text": "des",
            "kind": "order",
            "quantity": "t_total",
            "order": [{"cipher": "des-*"}, {"cipher": "chacha20"}],
        },
    ]
    out = {r["id"]: r for r in claim_rows(ctx, claims, None)}
    # fastest AES is 5x slower than ChaCha20: within 25% of "up to 6"
    assert out["a"]["verdict"] == HOLDS
    # the deciding factor comes with its interval: 5 x 0.99/1.01 .. 5 x 1.01/0.99
    assert (
        "max factor 5 [4.901, 5.101] at level 90.2% (stated 6 ±25%)"
        in out["a"]["numbers"]
    )
    assert out["b"]["verdict"] == HOLDS  # 7/5 = 1.4
    assert out["c"]["verdict"] == FAILS
    assert "out of order in 2 of 2" in out["c"]["numbers"]
    assert out["d"]["verdict"] == HOLDS  # 1000 B / 1000 s = 1e-6 MB/s
    assert out["e"]["verdict"] == UNTESTED


def test_paper_claim_reports_a_self_contradiction() -> None:
    pub = pd.DataFrame(
        [
            {"source": "5.2", "row": "Ts", "column": "255MB", "value": "577.988805"},
            {"source": "5.2", "row": "CUDA", "column": "255MB", "value": "1.139361"},
            {"source": "C", "row": "total", "column": "255MB", "value": "1.684836"},
            {"source": "5.3", "row": "CUDA", "column": "255MB", "value": "507.292074"},
        ]
    )
    cell = {"source": "5.3", "row": "CUDA", "column": "255MB"}
    ok, bad = claim_rows(
        _ciphers(),
        [
            {
                "id": "row",
                "text": "",
                "kind": "paper",
                "value": cell,
                "ratio": [
                    {"source": "5.2", "row": "Ts", "column": "255MB"},
                    {"source": "5.2", "row": "CUDA", "column": "255MB"},
                ],
            },
            {
                "id": "total",
                "text": "",
                "kind": "paper",
                "value": cell,
                "ratio": [
                    {"source": "5.2", "row": "Ts", "column": "255MB"},
                    {"source": "C", "row": "total", "column": "255MB"},
                ],
            },
        ],
        pub,
    )
    assert ok["verdict"] == "consistent"
    assert bad["verdict"] == "the paper contradicts itself"
    assert "577.989 / 1.68484 = 343.05" in bad["numbers"]


def test_references_flag_cells_outside_bounds() -> None:
    ctx = _pousa_like()
    refs = [
        {
            "where": {"backend": "seq"},
            "value": 2.0,
            "lower": -0.05,
            "upper": 0.04,
            "unit": "ms",
        },
        {
            "where": {"backend": "mpi"},
            "quantity": "speedup",
            "value": 2.0,
            "lower": -0.1,
            "upper": None,
            "unit": "x",
        },
        {"where": {"backend": "cuda"}, "value": 1.0},
    ]
    rows = reference_rows(ctx, refs)
    assert [r["verdict"] for r in rows] == ["above", "within", "no point matches"]
    bad = violations(rows)
    line = f"{SEQ.id}: t_total 2.2 ms [2.1, 2.3] at level 95% is above its reference"
    assert bad == [f"{line} 2 ms (bound 2.08)"]


def test_a_reference_is_judged_on_the_interval_not_the_estimate() -> None:
    """The estimate 2.2 ms lies above 2.15 ms, but its interval [2.1, 2.3] reaches
    both sides of the bound: inconclusive, warned, never a violation; a bound the
    whole interval lies inside holds."""
    ctx = _pousa_like()
    refs = [
        {"where": {"backend": "seq"}, "value": 2.0, "upper": 0.075, "unit": "ms"},
        {"where": {"backend": "seq"}, "value": 2.2, "unit": "ms"},
        {"where": {"backend": "seq"}, "value": 3.0, "unit": "ms"},
    ]
    rows = reference_rows(ctx, refs)
    assert [r["verdict"] for r in rows] == ["inconclusive", "within", "below"]
    assert [r["level"] for r in rows] == [0.95] * 3
    assert len(violations(rows)) == 1
    (line,) = inconclusive(rows)
    assert "[2.1, 2.3] at level 95% is inconclusive of [1.8, 2.15]" in line


def test_another_campaign_cell_by_cell(tmp_path: Path) -> None:
    ctx = _pousa_like()
    other = ctx.summary.copy()
    for k, v in {
        "backend": "seq",
        "cfg_impl": "ref",
        "mode": "ecb",
        "op": "encrypt",
        "cipher": "aes-128-ecb",
        "input_name": "1KiB",
        "ranks": 1,
        "threads": 1,
        "gpus": 0,
    }.items():
        other[k] = v
    other.loc[1, "ranks"] = 32
    other.loc[1, "backend"] = "mpi"
    other["t_total_median"] = [0.0044, 0.0011]
    other["t_total_ci_low"] = [0.0043, None]
    other["t_total_ci_high"] = [0.0045, None]
    mine = ctx.summary.copy()
    for c in (
        "backend",
        "cfg_impl",
        "mode",
        "op",
        "cipher",
        "input_name",
        "ranks",
        "threads",
        "gpus",
    ):
        mine[c] = other[c]
    ctx = tables.Context(ctx.cfg, ctx.points, mine)
    rows = {r["point"]: r for r in campaign_rows(ctx, other)}
    assert rows[SEQ.id]["ratio"] == pytest.approx(0.5)
    assert rows[SEQ.id]["verdict"] == "faster"  # the intervals do not overlap
    assert rows[MPI.id]["ratio"] == pytest.approx(1.0)
    assert rows[MPI.id]["verdict"].startswith("not comparable: ")  # no interval


@pytest.mark.parametrize(
    ("compare_cfg", "message"),
    [
        (
            {"published": "no/such.csv"},
            "invalid config: compare.published: 'no/such.csv': no such file",
        ),
        (
            {"campaign": "results/none"},
            "invalid config: compare.campaign: 'results/none' has no summary.csv",
        ),
        (
            {"on_violation": "explode"},
            "invalid config: compare.on_violation: 'explode' is not allowed (allowed: warn, fail)",
        ),
        (
            {"references": [{"where": {"backend": "seq"}, "value": -1}]},
            "invalid config: compare.references[0].value: -1",
        ),
        (
            {"references": [{"where": {"colour": "red"}, "value": 1}]},
            "invalid config: compare.references[0].where",
        ),
    ],
)
def test_bad_compare_key_one_line(
    compare_cfg: dict, message: str, tmp_path: Path
) -> None:
    with pytest.raises(config.ConfigError) as exc:
        config.validate(
            base_config(compare=compare_cfg), root=tmp_path, workdir=tmp_path
        )
    assert "\n" not in str(exc.value)
    assert str(exc.value).startswith(message), str(exc.value)


def test_bad_claims_file_one_line(tmp_path: Path) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("claims:\n  - {id: x, text: y, kind: guess}\n")
    with pytest.raises(config.ConfigError) as exc:
        config.validate(base_config(compare={"claims": str(f)}))
    assert str(exc.value) == (
        "invalid config: compare.claims: c.yaml: claims[0].kind: 'guess' "
        "(allowed: values, factor, order, paper)"
    )


def test_binary_size_from_the_build_records(tmp_path: Path, monkeypatch) -> None:
    """Cuadro 3-style rows: one object size per impl, whatever the point's size."""
    import json

    monkeypatch.chdir(tmp_path)
    d = tmp_path / "results" / "ag" / "build"
    d.mkdir(parents=True)
    rows = [
        {"part": "object", "name": "ascon_ref", "total": 2000},
        {"part": "object", "name": "ascon_opt64", "total": 9000},
    ]
    (d / "default.sizes.json").write_text(json.dumps({"rows": rows}))
    pts = [
        make_point(
            size=lab, backend="seq", mode="ecb", impl=impl, cipher="ascon-aead128"
        )
        for impl in ("ascon-ref", "ascon-opt64")
        for lab, n in (("20B", 20), ("5KiB", 5120))
    ]
    ctx = _ctx(
        [(p, {"t_total_median": 1.0}) for p in pts],
        campaign="ag",
        build={"variants": {}},
    )
    pub = pd.DataFrame(
        [
            {
                "source": "C3",
                "row": r,
                "column": "size",
                "value": v,
                "unit": "B",
                "measure": "binary_bytes",
                "impl": i,
            }
            for r, v, i in (
                ("ref", "20648", "ascon-ref"),
                ("opt64", "331816", "ascon-opt64"),
            )
        ]
    )
    out = published_rows(ctx, pub)
    assert [r["measured"] for r in out] == [2000.0, 9000.0]
    assert rank_rows(out)[0]["spearman"] == pytest.approx(1.0)


def _mean_ctx(**cfg) -> tables.Context:
    """One encrypt/decrypt pair whose means (3 s, 1 s) and medians (1 s, 1 s) differ."""
    row = {
        "t_total_median": 1.0,
        "t_total_ci_low": 0.9,
        "t_total_ci_high": 1.1,
        "t_total_mean": 3.0,
        "t_total_mean_ci_low": 2.9,
        "t_total_mean_ci_high": 3.1,
    }
    dec = make_point(
        size="1KiB", backend="seq", impl="ref", cipher="aes-128-ecb", op="decrypt"
    )
    dec_row = {
        **row,
        "t_total_mean": 1.0,
        "t_total_mean_ci_low": 0.95,
        "t_total_mean_ci_high": 1.05,
    }
    return _ctx([(SEQ, row), (dec, dec_row)], **cfg)


def test_campaign_statistic_reaches_published_rows_and_claims() -> None:
    pub = PUB.iloc[[0]].copy()
    pub["value"] = "3000"
    pub["op"] = "encrypt"
    claim = {
        "id": "v",
        "text": "3 s",
        "kind": "values",
        "quantity": "t_total",
        "unit": "s",
        "expect": [{"where": {"op": "encrypt"}, "value": 3.0}],
    }
    factor = {
        "id": "f",
        "text": "decryption 3x faster",
        "kind": "factor",
        "quantity": "t_total",
        "faster": {"op": "decrypt"},
        "slower": {"op": "encrypt"},
        "pair_by": ["size"],
        "expect": 3,
    }
    for stat, value, verdict in (
        ("mean", 3000.0, HOLDS),
        (None, 1000.0, FAILS),
    ):
        ctx = _mean_ctx(**({"statistic": stat} if stat else {}))
        (row,) = published_rows(ctx, pub)
        assert row["measured"] == pytest.approx(value)
        out = {r["id"]: r["verdict"] for r in claim_rows(ctx, [claim, factor], None)}
        assert out == {"v": verdict, "f": verdict}
    # a claim or a published row may still name its own statistic
    ctx = _mean_ctx(statistic="mean")
    pub["statistic"] = "median"
    assert published_rows(ctx, pub)[0]["measured"] == pytest.approx(1000.0)
    out = claim_rows(ctx, [{**claim, "statistic": "median"}], None)
    assert out[0]["verdict"] == FAILS


def _write_compare_files(tmp_path: Path) -> dict:
    """A published row (encryption time, 3 s printed) and two claims, as files."""
    pub = PUB.iloc[[0]].assign(value="3", unit="s", op="encrypt")
    pub.to_csv(tmp_path / "pub.csv", index=False)
    claims = [
        {
            "id": "v",
            "text": "encryption takes 3 s",
            "kind": "values",
            "quantity": "t_total",
            "unit": "s",
            "expect": [{"where": {"op": "encrypt"}, "value": 3.0}],
        },
        {
            "id": "f",
            "text": "decryption 3x faster",
            "kind": "factor",
            "quantity": "t_total",
            "faster": {"op": "decrypt"},
            "slower": {"op": "encrypt"},
            "pair_by": ["size"],
            "expect": 3,
        },
    ]
    (tmp_path / "claims.yaml").write_text(yaml.safe_dump({"claims": claims}))
    return {
        "published": str(tmp_path / "pub.csv"),
        "claims": str(tmp_path / "claims.yaml"),
    }


@pytest.mark.parametrize(
    ("statistic", "enc", "numbers"),
    [
        # the means: encryption 3 s [2.9, 3.1], decryption 1 s [0.95, 1.05]
        ("mean", 3.0, ("3 [2.9, 3.1]", "median factor 3 [2.762, 3.263]")),
        # the medians: both 1 s [0.9, 1.1] (factor 1)
        ("median", 1.0, ("1 [0.9, 1.1]", "median factor 1 [0.8182, 1.222]")),
    ],
)
def test_statistic_reaches_the_compare_files_and_the_report_tables(
    tmp_path: Path, statistic: str, enc: float, numbers: tuple[str, str]
) -> None:
    """The campaign's ``statistic`` is the one every published row and claim shows:
    in the ``compare`` rule's files and in the report's ``published`` and ``claims``
    tables, values and intervals alike."""
    ctx = _mean_ctx(statistic=statistic, compare=_write_compare_files(tmp_path))
    ctx.summary.to_csv(tmp_path / "summary.csv", index=False)
    write(ctx.cfg, ctx.points, str(tmp_path / "summary.csv"), str(tmp_path / "out"))
    pub = pd.read_csv(tmp_path / "out" / "published.csv")
    assert pub["measured"].tolist() == pytest.approx([enc])
    claims = pd.read_csv(tmp_path / "out" / "claims.csv").set_index("id")
    assert numbers[0] in claims.loc["v", "numbers"], claims.loc["v", "numbers"]
    assert numbers[1] in claims.loc["f", "numbers"], claims.loc["f", "numbers"]
    tables = {b.name: b.build(ctx) for b in registry.builders(ctx.cfg, ctx.points)}
    label = "T5.2 | Secuencial | 1KB"
    assert tables["published"].value(label, "measured") == pytest.approx(enc)
    low, high = tables["published"].intervals[(label, "measured")]
    assert (low, high) == pytest.approx((2.9, 3.1) if enc == 3.0 else (0.9, 1.1))
    assert numbers[0] in tables["claims"].value("v", "numbers")
    assert numbers[1] in tables["claims"].value("f", "numbers")


def test_campaign_statistic_reaches_another_campaign() -> None:
    ctx = _mean_ctx(statistic="mean")
    other = ctx.summary.copy()
    other["t_total_mean"] = 6.0
    other["op"] = mine_op = [p.op for p in ctx.points]
    ctx = tables.Context(ctx.cfg, ctx.points, ctx.summary.assign(op=mine_op))
    rows = campaign_rows(ctx, other)
    assert len(rows) == 2 and all(r["reference"] == pytest.approx(6.0) for r in rows)
    assert {r["measured"] for r in rows} == {3.0, 1.0}  # this campaign's means


def test_a_verdict_needs_the_interval_of_the_measured_side() -> None:
    ctx = _ciphers()
    claim = {
        "id": "b",
        "text": "AES-128 1.4x AES-256",
        "kind": "factor",
        "quantity": "t_total",
        "faster": {"cipher": "aes-128-*"},
        "slower": {"cipher": "aes-256-*"},
        "expect": 1.4,
    }
    (row,) = claim_rows(ctx, [claim], None)
    assert row["verdict"] == HOLDS and "[" in row["numbers"]
    bare = ctx.summary.drop(columns=["t_total_ci_low", "t_total_ci_high"])
    ctx = tables.Context(ctx.cfg, ctx.points, bare)
    (row,) = claim_rows(ctx, [claim], None)
    assert row["verdict"].startswith("not comparable: ")
    assert "no finite interval" in row["verdict"] and "[no interval]" in row["numbers"]


def test_a_claim_that_cannot_be_compared_says_why() -> None:
    claim = {
        "id": "x",
        "text": "ratio",
        "kind": "values",
        "quantity": "enc_dec_ratio",
        "expect": [{"where": {}, "value": 2}],
        "not_comparable": "the study's times include typing a password",
    }
    (row,) = claim_rows(_ciphers(), [claim], None)
    assert row["verdict"] == (
        "not comparable: the study's times include typing a password"
    )


def test_ratio_of_means_and_order_on_average() -> None:
    ctx = _ciphers()  # sizes 1000 and 2000: times t x size
    mean_ratio = {
        "id": "m",
        "text": "ChaCha20 about 6 times faster than AES in any of its versions",
        "kind": "factor",
        "quantity": "throughput",
        "unit": "MB/s",
        "faster": {"cipher": "chacha20"},
        "slower": {"cipher": "aes-256-*"},
        "pair_by": ["op"],
        "aggregate": "ratio_of_means",
        "expect": 7,
        "tolerance": 0.05,
    }
    (row,) = claim_rows(ctx, [mean_ratio], None)
    # the best cell per group (op): 2000 B and 1000 B give equal speeds, ratio 7
    assert row["verdict"] == HOLDS, row["numbers"]
    order = {
        "id": "o",
        "text": "on average",
        "kind": "order",
        "quantity": "t_total",
        "order": [{"cipher": "chacha20"}, {"cipher": "aes-128-*"}],
        "aggregate": "mean",
    }
    (row,) = claim_rows(ctx, [order], None)
    assert row["verdict"] == HOLDS
    assert "mean over 2 cells" in row["numbers"]


def test_an_interval_reaching_zero_is_valid() -> None:
    p = make_point(
        size="1000B", backend="openssl", mode="ecb", impl="evp", cipher="chacha20"
    )
    row = {
        "t_total_mean": 1.0,
        "t_total_mean_ci_low": -2.0,  # two repetitions: Student's t reaches below 0
        "t_total_mean_ci_high": 4.0,
        "t_total_median": 1.0,
    }
    ctx = _ctx([(p, row)], statistic="mean")
    got = measured(ctx, p, "throughput", "MB/s")
    assert got.value == pytest.approx(1e-3)
    assert got.low == pytest.approx(1000 / 4.0 / 1e6) and got.high == float("inf")
    # repetitions that all took the same time: width 0 at 95%, exact, still valid
    flat = {**row, "t_total_mean_ci_low": 1.0, "t_total_mean_ci_high": 1.0}
    flat["t_total_mean_ci_level"] = 0.95
    got = measured(_ctx([(p, flat)], statistic="mean"), p, "throughput", "MB/s")
    assert got.low == got.high == pytest.approx(1e-3)


def test_a_published_cell_that_cannot_be_compared_has_no_ratio() -> None:
    pub = PUB.iloc[[0]].copy()
    pub["not_comparable"] = "the study timed a person typing a password"
    (row,) = published_rows(_pousa_like(), pub)
    assert row["measured"] == pytest.approx(2.2)  # shown, with its interval ...
    assert row["ratio"] is None and row["difference"] is None  # ... but not judged
    assert row["note"] == "not comparable: the study timed a person typing a password"


def test_power_in_watts_with_its_interval_or_the_reason() -> None:
    p = make_point(
        size="1000B", backend="openssl", mode="ecb", impl="evp", cipher="chacha20"
    )
    row = {
        "t_total_mean": 2.0,
        "t_total_mean_ci_low": 1.0,
        "t_total_mean_ci_high": 4.0,
        "joules_mean": 10.0,
        "joules_mean_ci_low": 8.0,
        "joules_mean_ci_high": 12.0,
    }
    got = measured(_ctx([(p, row)], statistic="mean"), p, "watts", "W")
    assert got.value == pytest.approx(5.0)
    assert (got.low, got.high) == pytest.approx((8.0 / 4.0, 12.0 / 1.0))
    # a joules cell carries its own interval, not its time's
    j = measured(_ctx([(p, row)], statistic="mean"), p, "joules", "J")
    assert (j.low, j.high) == pytest.approx((8.0, 12.0))
    bare = {k: v for k, v in row.items() if not k.startswith("joules")}
    got = measured(_ctx([(p, bare)], statistic="mean"), p, "watts", "W")
    assert got.value is None and "no energy measured" in got.why


def test_a_stated_difference_of_times_with_its_interval() -> None:
    claim = {
        "id": "gap",
        "text": "AES-256 takes 2 ms more than AES-128 at 1000 B",
        "kind": "factor",
        "quantity": "t_total",
        "unit": "ms",
        "where": {"size": "1000B"},
        "faster": {"cipher": "aes-128-*"},
        "slower": {"cipher": "aes-256-*"},
        "aggregate": "difference",
        "expect": 2000,
        "tolerance": 0.01,
    }
    (row,) = claim_rows(_ciphers(), [claim], None)
    # 7000 s - 5000 s = 2000 s = 2e6 ms: far from 2000 ms
    assert row["verdict"] == FAILS
    assert row["numbers"].startswith("difference 2e+06 [")
    # its interval 1.88e6 .. 2.12e6 ms lies within 2e6 ±10%, not within ±1%
    (row,) = claim_rows(_ciphers(), [{**claim, "expect": 2e6, "tolerance": 0.1}], None)
    assert row["verdict"] == HOLDS
    (row,) = claim_rows(_ciphers(), [{**claim, "expect": 2e6}], None)
    assert row["verdict"].startswith("inconclusive: ")


def test_an_unbounded_interval_gives_no_verdict() -> None:
    p = make_point(
        size="1000B", backend="openssl", mode="ecb", impl="evp", cipher="chacha20"
    )
    q = make_point(
        size="1000B", backend="openssl", mode="ecb", impl="evp", cipher="aes-128-ecb"
    )
    row = {
        "t_total_mean": 1.0,
        "t_total_mean_ci_low": -1.0,
        "t_total_mean_ci_high": 3.0,
    }
    ctx = _ctx([(p, row), (q, {**row, "t_total_mean": 2.0})], statistic="mean")
    claim = {
        "id": "u",
        "text": "ChaCha20 twice as fast",
        "kind": "factor",
        "quantity": "t_total",
        "faster": {"cipher": "chacha20"},
        "slower": {"cipher": "aes-*"},
        "expect": 2,
    }
    (r,) = claim_rows(ctx, [claim], None)
    assert r["verdict"] == NO_INTERVAL and "inf]" in r["numbers"]
    nowatt = {**claim, "quantity": "watts", "unit": "W"}
    (r,) = claim_rows(ctx, [nowatt], None)
    assert r["verdict"] == UNTESTED and "no energy measured" in r["numbers"]


def _close_pair(spread: float) -> tables.Context:
    """ChaCha20 1.0 s and AES 1.1 s per cell, each with a +-``spread`` interval."""
    rows = []
    for cipher, t in (("chacha20", 1.0), ("aes-128-ecb", 1.1)):
        p = make_point(size="1000B", backend="openssl", impl="evp", cipher=cipher)
        row = {
            "t_total_median": t,
            "t_total_ci_low": t * (1 - spread),
            "t_total_ci_high": t * (1 + spread),
        }
        rows.append((p, row))
    return _ctx(rows)


CLOSE_CLAIMS = [
    {
        "id": "order",
        "text": "ChaCha20 faster than AES",
        "kind": "order",
        "quantity": "t_total",
        "order": [{"cipher": "chacha20"}, {"cipher": "aes-*"}],
    },
    {
        "id": "factor",
        "text": "ChaCha20 1.1x AES",
        "kind": "factor",
        "quantity": "t_total",
        "faster": {"cipher": "chacha20"},
        "slower": {"cipher": "aes-*"},
        "expect": 1.1,
        "tolerance": 0.05,
    },
    {
        "id": "values",
        "text": "ChaCha20 takes 1 s",
        "kind": "values",
        "quantity": "t_total",
        "unit": "s",
        "expect": [{"where": {"cipher": "chacha20"}, "value": 1.0}],
        "tolerance": 0.05,
    },
]


def test_an_interval_too_wide_to_decide_gives_no_verdict() -> None:
    """A claim whose measured intervals reach both a holding and a failing value is
    inconclusive, with the reason, whatever its point estimates say."""
    tight = {r["id"]: r for r in claim_rows(_close_pair(0.01), CLOSE_CLAIMS, None)}
    assert {k: r["verdict"] for k, r in tight.items()} == {
        "order": HOLDS,
        "factor": HOLDS,
        "values": HOLDS,
    }
    wide = {r["id"]: r for r in claim_rows(_close_pair(0.2), CLOSE_CLAIMS, None)}
    assert (
        wide["order"]["verdict"]
        == "inconclusive: the intervals overlap in 1 of 1 cells"
    )
    assert "1 [0.8, 1.2] / 1.1 [0.88, 1.32]" in wide["order"]["numbers"]
    assert wide["factor"]["verdict"] == (
        "inconclusive: its interval reaches both sides of 1.1 ±5%"
    )
    assert "median factor 1.1 [0.7333, 1.65]" in wide["factor"]["numbers"]
    assert wide["values"]["verdict"] == (
        "inconclusive: the interval reaches both within and beyond ±5% in cipher=chacha20"
    )
    # clear of the stated range or order the wrong way round: does not hold
    wrong = [
        {**CLOSE_CLAIMS[0], "order": CLOSE_CLAIMS[0]["order"][::-1]},
        {**CLOSE_CLAIMS[1], "expect": 3},
        {**CLOSE_CLAIMS[2], "expect": [{"where": {"cipher": "chacha20"}, "value": 2}]},
    ]
    out = claim_rows(_close_pair(0.01), wrong, None)
    assert [r["verdict"] for r in out] == [FAILS, FAILS, FAILS]
    # at_least: inconclusive while the interval reaches below the stated minimum
    least = {**CLOSE_CLAIMS[1], "at_least": True}
    (row,) = claim_rows(_close_pair(0.2), [least], None)
    assert row["verdict"] == "inconclusive: its interval reaches both sides of >= 1.1"


def test_the_closest_quantity_needs_intervals_that_tell_it() -> None:
    """Which quantity a printed number is nearest to is said only when the measured
    intervals tell it; otherwise the row says why not."""
    mpi = PUB.iloc[[1]]
    ctx = _pousa_like()
    wide = ctx.summary.copy()
    wide.loc[1, "t_compute_ci_low"] = 0.00001  # compute speedup 31 [1.05, 230]
    wide.loc[1, "t_compute_ci_high"] = 0.002
    rows = published_rows(tables.Context(ctx.cfg, ctx.points, wide), mpi)
    by = {r["measure"]: r["closest"] for r in rows}
    assert by == {
        "speedup": "",
        "speedup_compute": "inconclusive: the intervals of speedup_compute and speedup "
        "reach equally near the printed number",
    }
    bare = ctx.summary.drop(columns=["t_compute_ci_low", "t_compute_ci_high"])
    rows = published_rows(tables.Context(ctx.cfg, ctx.points, bare), mpi)
    assert rows[1]["closest"] == "inconclusive: no finite interval for speedup_compute"


def test_a_single_value_gives_no_interval_and_no_verdict() -> None:
    """One sample (one kernel process's CPU peak, a point of one repetition) is written
    with coverage 0 and low = high = the value: that is no interval, so the measured
    side has none and a claim on it gets no verdict."""
    one = {"cpu_peak_pct_median": 90.0, "cpu_peak_pct_ci_low": 90.0}
    one |= {"cpu_peak_pct_ci_high": 90.0, "cpu_peak_pct_ci_level": 0.0}
    two = {"cpu_peak_pct_median": 80.0, "cpu_peak_pct_ci_low": 70.0}
    two |= {"cpu_peak_pct_ci_high": 90.0, "cpu_peak_pct_ci_level": 0.5}
    ctx = _ctx([(SEQ, one), (MPI, two)])
    single = measured(ctx, SEQ, "cpu_peak_pct", "%")
    assert single.value == 90.0 and single.low is None and single.high is None
    both = measured(ctx, MPI, "cpu_peak_pct", "%")
    assert (both.low, both.high) == (70.0, 90.0)
    claim = {
        "id": "c",
        "text": "t",
        "kind": "order",
        "where": {"size": "1KiB"},
        "pair_by": ["size"],
        "quantity": "cpu_peak_pct",
        "order": [{"backend": "mpi"}, {"backend": "seq"}],
    }
    rows = claim_rows(ctx, [claim], None)
    assert rows[0]["verdict"] == NO_INTERVAL, rows


def _tiered(order: list[Any]) -> dict[str, Any]:
    return {
        "id": "t",
        "text": "x",
        "kind": "order",
        "quantity": "t_total",
        "order": order,
    }


def test_a_tier_is_beyond_each_member_of_the_tier_before() -> None:
    """ "3DES consumes the most": the slowest cipher lies beyond each of the others,
    which one selector for all of them (the best of several) cannot say."""
    ctx = _ciphers()  # times: chacha20 1, aes-128 5, aes-256 7 (x size)
    most = _tiered(
        [[{"cipher": "chacha20"}, {"cipher": "aes-128-*"}], {"cipher": "aes-256-*"}]
    )
    (row,) = claim_rows(ctx, [most], None)
    assert row["verdict"] == HOLDS, row["numbers"]
    assert "{" in row["numbers"]  # a tier shows each member's number
    wrong = _tiered(
        [[{"cipher": "chacha20"}, {"cipher": "aes-256-*"}], {"cipher": "aes-128-*"}]
    )
    (row,) = claim_rows(ctx, [wrong], None)
    assert row["verdict"] == FAILS, row["numbers"]
    # the old encoding, one selector for "the others", took the best of them and
    # held for a cipher that is not the slowest
    trap = _tiered([{"cipher": ["chacha20", "aes-256-*"]}, {"cipher": "aes-128-*"}])
    (row,) = claim_rows(ctx, [trap], None)
    assert row["verdict"] == HOLDS
    # a tier in the middle: each member beyond the first tier, before the last
    mid = _tiered(
        [{"cipher": "chacha20"}, [{"cipher": "aes-128-*"}], {"cipher": "aes-256-*"}]
    )
    (row,) = claim_rows(ctx, [mid], None)
    assert row["verdict"] == HOLDS


def test_a_tier_without_intervals_is_checked_on_its_points() -> None:
    ctx = _ciphers()
    bare = ctx.summary.drop(columns=["t_total_ci_low", "t_total_ci_high"])
    ctx = tables.Context(ctx.cfg, ctx.points, bare)
    wrong = _tiered(
        [[{"cipher": "chacha20"}, {"cipher": "aes-256-*"}], {"cipher": "aes-128-*"}]
    )
    (row,) = claim_rows(ctx, [wrong], None)
    assert row["verdict"] == NO_INTERVAL and "out of order in 2 of 2" in row["numbers"]


@pytest.mark.parametrize(
    ("order", "ok"),
    [
        ([[{"cipher": "aes-*"}, {"cipher": "bf-*"}], {"cipher": "des-*"}], True),
        ([[], {"cipher": "des-*"}], False),
        (["aes-*", {"cipher": "des-*"}], False),
    ],
)
def test_an_order_item_is_a_selector_or_a_tier_of_them(
    order: list[Any], ok: bool
) -> None:
    claims = [_tiered(order)]
    if ok:
        config_checks.check_claims(claims, "c.claims.yaml")
        return
    with pytest.raises(config_checks.Problem, match=r"claims\[0\]\.order"):
        config_checks.check_claims(claims, "c.claims.yaml")


def test_centellas_3des_is_set_above_every_other_cipher_in_each_operation() -> None:
    """§6.2: "en ambos casos el algoritmo 3DES es el que consume más recursos"."""
    cfg = yaml.safe_load((ROOT / "config/campaigns/centellas2021.yaml").read_text())
    study = yaml.safe_load(
        (ROOT / "config/campaigns/published/centellas2021.claims.yaml").read_text()
    )
    ciphers = {x for b in cfg["backends"].values() for x in b.get("ciphers", [])}
    most = [c for c in study["claims"] if c["id"].startswith("cpu-3des-most")]
    assert sorted(c["where"]["op"] for c in most) == ["decrypt", "encrypt"]
    for c in most:
        below, top = c["order"]
        assert top == {"cipher": "des-ede3-*"}
        named = {s["cipher"].removesuffix("-*") for s in below}
        others = {x.removesuffix("-ecb") for x in ciphers if not x.startswith("des")}
        assert named == others == {"aes-128", "aes-192", "aes-256", "chacha20"}


def _pousa_shapes(times: dict[str, float]) -> tables.Context:
    """One 255MiB cell per pousa2011 program, t_total with a ±1% interval."""
    rows = []
    for name, shape in POUSA_SHAPES.items():
        t = times[name]
        shape = {"impl": "ref", **shape}
        point = make_point(size="255MiB", cipher="aes-128-ecb", **shape)
        rows.append((point, {"t_total_mean": t, "t_total_mean_ci_low": 0.99 * t,
                             "t_total_mean_ci_high": 1.01 * t}))  # fmt: skip
    return _ctx(rows, statistic="mean")


def test_pousa_cuda_fastest_orders_cuda_before_each_other_program_only() -> None:
    """§5.2 "CUDA is faster than every other implementation": on an H100 node with 16
    cores, 32 ranks (oversubscribed) were slower than 16; the claim is about CUDA, and
    it held. It fails when one other program beats CUDA."""
    study = yaml.safe_load(
        (ROOT / "config/campaigns/published/pousa2011.claims.yaml").read_text()
    )
    (claim,) = [c for c in study["claims"] if c["id"] == "cuda-fastest"]
    measured = {"cuda": 0.0297, "seq": 3.2, "omp": 0.72, "mpi8": 0.83,
                "mpi16": 0.50, "mpi32": 0.72}  # fmt: skip
    (row,) = claim_rows(_pousa_shapes(measured), [claim], None)
    assert row["verdict"] == HOLDS, row["numbers"]
    (row,) = claim_rows(_pousa_shapes({**measured, "omp": 0.02}), [claim], None)
    assert row["verdict"] == FAILS, row["numbers"]
