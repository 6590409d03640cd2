"""The precision block, reps up to 100,000 and the statistic key: validation messages,
the points they make, the kernel arguments and the admitted repetition counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from ciphersweep.job import launch
from ciphersweep.plan import config as cs_config
from ciphersweep.plan import sweep
from support import ROOT, base_config


def _check(tmp_path: Path, **over) -> str:
    with pytest.raises(cs_config.ConfigError) as exc:
        cs_config.validate(base_config(**over), root=ROOT, workdir=tmp_path)
    msg = str(exc.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


@pytest.mark.parametrize(
    "over,words",
    [
        ({"precision": {"target": 0}}, ["precision.target", "> 0"]),
        ({"precision": {"target": 1.5}}, ["precision.target", "<= 1"]),
        ({"precision": {"target": "2%"}}, ["precision.target", "number"]),
        ({"precision": {"min_reps": 5}}, ["precision", "target"]),
        (
            {"precision": {"target": 0.02, "max_reps": 100_001}},
            ["precision.max_reps", "<= 100000"],
        ),
        (
            {"precision": {"target": 0.02, "max_seconds": 0}},
            ["precision.max_seconds", "> 0"],
        ),
        (
            {"precision": {"target": 0.02, "tries": 3}},
            ["precision", "'tries'", "max_seconds"],
        ),
        (
            {"precision": {"target": 0.02, "min_reps": 50, "max_reps": 10}},
            ["precision.min_reps", "50", "max_reps 10"],
        ),
        (
            {"reps": 20, "precision": {"target": 0.02, "max_reps": 10}},
            ["reps: 20", "max_reps"],
        ),
        ({"reps": 100_001}, ["reps", "<= 100000"]),
        ({"statistic": "mode"}, ["statistic", "median, mean"]),
    ],
)
def test_bad_precision_keys_one_line(
    tmp_path: Path, over: dict, words: list[str]
) -> None:
    msg = _check(tmp_path, **over)
    for w in words:
        assert w in msg, (w, msg)


def test_precision_points_and_kernel_arguments(tmp_path: Path) -> None:
    cfg = cs_config.validate(
        base_config(reps=100_000, warmup=100, statistic="mean"),
        root=ROOT,
        workdir=tmp_path,
    )
    p = sweep.expand(cfg)[0]
    assert (p.reps, p.warmup, p.target) == (100_000, 100, None)
    assert "--target-ci" not in launch.kernel_args(p, input_path="i", json_path="j")
    cfg = cs_config.validate(
        base_config(precision={"target": 0.02, "max_reps": 500, "max_seconds": 1.5}),
        root=ROOT,
        workdir=tmp_path,
    )
    p = sweep.expand(cfg)[0]
    assert (p.reps, p.max_reps, p.target, p.max_seconds) == (3, 500, 0.02, 1.5)
    args = launch.kernel_args(p, input_path="i", json_path="j")
    i = args.index("--target-ci")
    assert args[i : i + 6] == [
        "--target-ci",
        "0.02",
        "--max-reps",
        "500",
        "--max-seconds",
        "1.5",
    ]
    assert args[args.index("--reps") + 1] == "3"  # the fewest


def test_admitted_repetition_counts(tmp_path: Path) -> None:
    fixed = sweep.expand(
        cs_config.validate(base_config(), root=ROOT, workdir=tmp_path)
    )[0]
    assert fixed.reps_problem([{}] * 3) is None
    assert "expected 3 records, got 4" in fixed.reps_problem([{}] * 4)
    cfg = cs_config.validate(
        base_config(precision={"target": 0.02, "min_reps": 5, "max_reps": 50}),
        root=ROOT,
        workdir=tmp_path,
    )
    p = sweep.expand(cfg)[0]
    assert p.reps_problem([{"reps_run": 17}] * 17) is None
    assert "5..50" in p.reps_problem([{"reps_run": 4}] * 4)
    assert "5..50" in p.reps_problem([{"reps_run": 51}] * 51)
    # a file holding fewer records than the kernel says it ran is damaged
    assert "reports 17" in p.reps_problem([{"reps_run": 17}] * 16)
