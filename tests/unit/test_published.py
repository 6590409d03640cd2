"""The studies' published numbers as shipped: typed in once, checked against the
papers' own arithmetic, and mapped onto the cells of their campaigns."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml
from ciphersweep.analysis import compare
from ciphersweep.plan import config, sweep
from support import ROOT

PUB = ROOT / "config" / "campaigns" / "published"


def _pub(name: str) -> pd.DataFrame:
    frame = compare.load_published(PUB / f"{name}.csv")
    frame["v"] = frame["value"].astype(float)
    return frame


def _cell(frame: pd.DataFrame, source: str, row: str, column: str) -> float:
    hit = frame[
        (frame.source == source) & (frame.row == row) & (frame.column == column)
    ]
    assert len(hit) == 1, (source, row, column)
    return float(hit.v.iloc[0])


def test_pousa_speedups_are_ts_over_tp_of_its_time_table() -> None:
    pub = _pub("pousa2011")
    sizes = ["1KB", "512KB", "1MB", "15MB", "128MB", "255MB"]
    rows = [
        "OMP (8 cores)",
        "MPI (8 cores)",
        "MPI (16 cores)",
        "MPI (32 cores)",
        "CUDA",
    ]
    for size in sizes:
        ts = _cell(pub, "Tabla 5.2", "Secuencial (Intel)", size)
        for row in rows:
            tp = _cell(pub, "Tabla 5.2", row, size)
            s = _cell(pub, "Tabla 5.3", row, size)
            assert s == pytest.approx(ts / tp, rel=2e-3), (row, size)


def test_pousa_cuda_table_adds_up_but_is_not_the_time_tables_cuda_row() -> None:
    pub = _pub("pousa2011")
    src = "Tabla 5.2 (CUDA copias)"
    for size in ["1KB", "512KB", "1MB", "15MB", "128MB", "255MB"]:
        parts = sum(
            _cell(pub, src, r, size)
            for r in ("Copia host-device", "Copia device-host", "Tiempo de Cifrado")
        )
        total = _cell(pub, src, "Tiempo total", size)
        assert parts == pytest.approx(total, rel=2e-3, abs=2e-6)
        if size != "1KB":  # the self-contradiction the comparison reports
            row = _cell(pub, "Tabla 5.2", "CUDA", size)
            assert abs(row / total - 1) > 0.1
            assert abs(row / _cell(pub, src, "Tiempo de Cifrado", size) - 1) > 0.1
    # 507.29 = 577.99 / 1.139: neither the kernel (740.6) nor the total (343.1)
    ts = _cell(pub, "Tabla 5.2", "Secuencial (Intel)", "255MB")
    assert ts / _cell(pub, src, "Tiempo total", "255MB") == pytest.approx(
        343.1, abs=0.1
    )
    assert ts / _cell(pub, src, "Tiempo de Cifrado", "255MB") == pytest.approx(
        740.6, abs=0.1
    )


def test_pousa_sizes_are_binary() -> None:
    pub = _pub("pousa2011")
    t = {c: _cell(pub, "Tabla 5.2", "Secuencial (Intel)", c) for c in ("512KB", "1MB")}
    assert t["512KB"] / t["1MB"] == pytest.approx(0.5, abs=1e-4)  # 512 KiB / 1 MiB
    assert t["512KB"] / t["1MB"] != pytest.approx(0.512, abs=1e-3)  # not 512 kB / 1 MB


def test_rondon_throughput_is_size_over_time_except_at_1kb() -> None:
    pub = _pub("rondon2025")
    tables = {
        "1KiB": ("3.1 Resultados para Arquivo de 1 KB", 1 / 1024),
        "1MiB": ("3.2 Resultados para Arquivo de 1 MB", 1.0),
        "10MiB": ("3.3 Resultados para Arquivo de 10 MB", 10.0),
    }
    for size, (src, mib) in tables.items():
        for row in ("AES-128 CBC", "AES-256 CBC", "3DES 3K CBC", "DES CBC"):
            for op, tcol, rcol in (
                ("enc", "Tempo de Cifragem (ms)", "Throughput Cifrar (MB/s)"),
                ("dec", "Tempo de Decifragem (ms)", "Throughput Decifrar (MB/s)"),
            ):
                t_ms = _cell(pub, src, row, tcol)
                printed = _cell(pub, src, row, rcol)
                derived = mib / (t_ms / 1000)  # MiB/s: the printed "MB/s" are MiB/s
                if size == "1KiB":  # the paper's 1 KB throughputs run ~2% high
                    assert printed / derived == pytest.approx(1.02, abs=0.012), (
                        row,
                        op,
                    )
                else:
                    assert printed == pytest.approx(derived, rel=5e-3), (row, op, size)


def test_lombardo_ratio_is_encryption_over_decryption() -> None:
    pub = _pub("lombardo2019")
    wide = pub.pivot_table(index=["source", "row"], columns="column", values="v")
    assert len(wide) == 72 + 18 + 18
    ratio = wide["Speed Encryption"] / wide["Speed Decryption"]
    assert ((ratio / wide["Ratio Speed"] - 1).abs() < 1e-4).all()


def test_aguado_binary_sizes() -> None:
    pub = _pub("aguado2024")
    sizes = dict(zip(pub.impl, pub.v))
    assert sizes["ascon-ref"] < sizes["ascon-lowsize"] < sizes["gcm-aesni"]
    assert sizes["gcm-aesni"] < sizes["gcm-byte"] < sizes["ascon-opt64"]


CAMPAIGNS = ["pousa2011", "lombardo2019", "rondon2025", "centellas2021"]


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_published_rows_map_to_at_most_one_cell(name: str) -> None:
    """Every published row names one measured cell of its campaign, or none where the
    campaign does not (yet) run that cipher or backend."""
    raw = yaml.safe_load((ROOT / "config" / "campaigns" / f"{name}.yaml").read_text())
    cfg = config.validate(raw, root=ROOT, workdir=ROOT)
    points = sweep.expand(cfg)
    comp = cfg["compare"]
    compare.load_claims(comp["claims"])
    if "published" not in comp:
        return
    pub = compare.load_published(comp["published"])
    mapped = 0
    for r in pub.to_dict("records"):
        for impl in str(r.get("impl") or "").split("|"):  # each alternative impl
            hits = compare.matching(points, compare.selector({**r, "impl": impl}))
            if r["measure"] == "enc_dec_ratio":
                hits = [p for p in hits if p.op == "encrypt"]
            assert len(hits) <= 1, (
                r["source"],
                r["row"],
                r["column"],
                [p.id for p in hits],
            )
            mapped += len(hits)
    assert mapped > 0
    if name == "pousa2011":
        assert mapped == len(pub)
    if name == "rondon2025":  # the AES rows once per AES code, the others once
        aes = pub["impl"] == "pycryptodome|portable"
        assert aes.sum() == 24 and mapped == 2 * aes.sum() + (~aes).sum()


def test_every_published_file_loads() -> None:
    for f in sorted(PUB.glob("*.csv")):
        assert len(compare.load_published(f)) > 0, f
    for f in sorted(PUB.glob("*.claims.yaml")):
        assert compare.load_claims(f), f


def test_bad_published_row_names_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "x.csv"
    f.write_text(
        "source,row,column,value,unit,measure\nT,a,b,1.5,s,t_total\nT,a,c,2,furlongs,t_total\n"
    )
    with pytest.raises(ValueError, match=r"^x.csv:3: unit 'furlongs' \(allowed: "):
        compare.load_published(f)
