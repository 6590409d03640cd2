"""What a campaign needs (the README's table): GPU, ranks, threads, memory, time."""

from __future__ import annotations

import yaml
from ciphersweep.plan import config, needs, sweep
from support import ROOT


def _needs(path: str) -> needs.Needs:
    cfg = config.validate(
        yaml.safe_load((ROOT / path).read_text()), root=ROOT, workdir=ROOT
    )
    return needs.campaign_needs(cfg, sweep.expand(cfg))


def test_default_and_reference_campaign() -> None:
    small = _needs("config/config.yaml")
    assert not small.gpu and small.max_ranks == 2 and small.max_threads == 2
    big = _needs("config/campaigns/pousa2011.yaml")
    assert big.gpu and big.max_ranks == 32
    assert big.max_mem_mb > small.max_mem_mb and big.minutes > small.minutes
    row = big.row("pousa2011")
    assert row.startswith("| `pousa2011` | ") and "| yes (CUDA) | 32 |" in row


def test_command_line_prints_the_table(capsys) -> None:
    assert needs.main(["config/config.yaml"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("| campaign | points | GPU |") and len(out) == 3
    assert out[2].startswith("| `config/config.yaml` |")
