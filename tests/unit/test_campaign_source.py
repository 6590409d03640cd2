"""Where a run's campaign comes from (plan/campaign_source.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ciphersweep.plan import campaign_source as src
from ciphersweep.plan.config import ConfigError


@pytest.mark.parametrize(
    ("argv", "files"),
    [
        (["-n"], []),
        (["--configfile", "a.yaml", "-n"], ["a.yaml"]),
        (["--configfile=a.yaml", "--config", "reps=2"], ["a.yaml"]),
        (["--configfiles", "a.yaml", "b.yaml", "--cores", "2"], ["a.yaml", "b.yaml"]),
        (["--configfile", "a.yaml", "--configfile", "b.yaml"], ["a.yaml", "b.yaml"]),
        (["--config", "reps=2", "--profile", "profiles/local"], []),
        (["--profile", "profiles/local", "--configfile", "c.yaml", "results/x"], None),
    ],
)
def test_campaign_files_read_from_the_command_line(
    argv: list[str], files: list[str] | None
) -> None:
    got = src.campaign_files(argv)
    if files is None:  # like Snakemake, a target right after the files is one of them
        assert got == ["c.yaml", "results/x"]
    else:
        assert got == files


def test_no_file_merges_the_overrides_into_the_default(tmp_path: Path) -> None:
    default = tmp_path / "config.yaml"
    default.write_text("campaign: d\nreps: 3\ncluster: {pack: true, pack_size: 4}\n")
    raw = src.campaign({"reps": 2, "cluster": {"pack_size": 8}}, [], default=default)
    assert raw == {
        "campaign": "d",
        "reps": 2,
        "cluster": {"pack": True, "pack_size": 8},
    }
    assert src.campaign({}, [], default=default)["reps"] == 3


def test_a_file_replaces_the_default(tmp_path: Path) -> None:
    default = tmp_path / "config.yaml"
    default.write_text("campaign: d\nreps: 3\nsizes: [1KiB]\n")
    mine = tmp_path / "mine.yaml"
    mine.write_text("campaign: m\n")
    given = {"campaign": "m", "reps": 5}  # the file, then --config reps=5
    assert src.campaign(given, [str(mine)], default=default) == given


def test_a_key_given_twice_in_a_file_is_refused_with_file_and_line(
    tmp_path: Path,
) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text("campaign: m\nreps: 3\nreps: 5\n")
    with pytest.raises(ConfigError, match=f"^{mine}:3: .*given twice"):
        src.campaign({"campaign": "m", "reps": 5}, [str(mine)])
