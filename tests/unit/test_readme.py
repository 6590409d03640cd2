"""The README stays true: its table of what each shipped campaign needs is what
ciphersweep.plan.needs prints for the shipped configs."""

from __future__ import annotations

import os
import subprocess
import sys

from support import ROOT


def test_readme_campaign_needs_table_is_current() -> None:
    configs = [ROOT / "config" / "config.yaml"]
    configs += sorted((ROOT / "config" / "campaigns").glob("*.yaml"))
    out = subprocess.run(
        [sys.executable, "-m", "ciphersweep.plan.needs"]
        + [str(c.relative_to(ROOT)) for c in configs],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "workflow")},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    readme = (ROOT / "README.md").read_text()
    assert out.splitlines()[0].startswith("| campaign |")
    assert out in readme, (
        "README's campaign table is stale; paste ciphersweep.plan.needs' output"
    )
