"""Every study campaign validates, names its reduced variant for CI in its header, and
that variant validates and plans fewer points than the campaign."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from ciphersweep.plan import config as cs_config
from ciphersweep.plan.sweep import expand
from support import ROOT

CAMPAIGNS = sorted((ROOT / "config" / "campaigns").glob("*.yaml"))


def _reduced(path: Path) -> dict:
    """The ``--config`` overrides of the header's ``# Reduced (CI):`` line."""
    m = re.search(
        r"^# Reduced \(CI\): (?:add )?--config (.+)$", path.read_text(), re.MULTILINE
    )
    assert m, f"{path.name}: no '# Reduced (CI): --config ...' line"
    out = {}
    for item in shlex.split(m.group(1)):
        key, _, value = item.partition("=")
        out[key] = yaml.safe_load(value)
    return out


@pytest.mark.parametrize("path", CAMPAIGNS, ids=lambda p: p.stem)
def test_reduced_variant_plans_fewer_points(path: Path, tmp_path: Path) -> None:
    raw = yaml.safe_load(path.read_text())
    full = cs_config.validate(raw, root=ROOT, workdir=ROOT)
    small = cs_config.validate({**raw, **_reduced(path)}, root=ROOT, workdir=ROOT)
    assert full["statistic"] == small["statistic"] == "mean"  # the studies' means
    runs_small = sum(p.reps + p.warmup for p in expand(small))
    runs_full = sum(p.reps + p.warmup for p in expand(full))
    assert 0 < runs_small < runs_full
