"""Checks of the campaign's sections other than ``backends`` that a schema cannot
express: strings that could reach a shell, finite numbers, repeated values, sizes and
input files, the baseline, batches and precision targets, build variants and the
build directory, the launcher's options, the container recipe, and the table layouts
and study files (:mod:`ciphersweep.plan.layout_checks`,
:mod:`ciphersweep.plan.study_files`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ciphersweep.core import yamlfile
from ciphersweep.core.units import parse_size, size_label
from ciphersweep.plan import (
    config_checks,
    inputsets,
    launch_checks,
    layout_checks,
    study_files,
)
from ciphersweep.plan.config_backends import PY_BACKENDS
from ciphersweep.plan.schema import ConfigError
from ciphersweep.plan.schema import fail as _fail

# Characters that would let a string do something in a shell (or in Snakemake's shell
# formatting) if it ever reached one.
SHELL_META = set(";&|`$<>()\\'\"{}\n\r\t*?!#~")
# glob patterns of debug.inject_fault never reach a shell
_GLOB_KEYS = {("debug", "inject_fault")}
# table layouts and comparison settings are text and paths that no shell ever sees
_TEXT_KEYS = {("tables",), ("compare",)}


def _no_shell(path: tuple[Any, ...]) -> bool:
    """Strings that never reach a shell: debug globs, free text, the command
    backend's argument lists (started without a shell; their placeholders are checked
    on their own) and a user kernel's arguments (one argument each, no shell)."""
    if path[:2] in _GLOB_KEYS or path[:1] in _TEXT_KEYS:
        return True
    return (
        path[:3] == ("backends", "command", "programs")
        and len(path) > 4
        and (path[4] in ("encrypt", "decrypt"))
    ) or (path[:3] == ("backends", "user", "kernels") and path[4:5] == ("args",))


def check_strings(node: Any, path: tuple[Any, ...]) -> None:
    if _no_shell(path):
        return
    if isinstance(node, dict):
        for k, v in node.items():
            check_strings(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            check_strings(v, path + (i,))
    elif isinstance(node, str):
        if len(path) == 3 and path[0] == "inputs" and path[2] == "glob":
            node = node.replace("*", "").replace("?", "")  # the glob's own wildcards
        bad = sorted(set(node) & SHELL_META)
        if bad:
            shown = " ".join(repr(c) for c in bad)
            raise _fail(
                list(path),
                f"{node!r} contains shell metacharacters ({shown}); "
                "allowed: letters, digits, space and . _ - + = : , / @ % ^",
            )


def check_finite(node: Any, path: tuple[Any, ...]) -> None:
    """No number is infinite or NaN (``.inf``, ``.nan`` pass every bound of a schema)."""
    if isinstance(node, dict):
        for k, v in node.items():
            check_finite(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            check_finite(v, path + (i,))
    elif isinstance(node, float) and not math.isfinite(node):
        raise _fail(list(path), f"{node!r} is not allowed (allowed: a finite number)")


def check_duplicates(cfg: dict[str, Any]) -> None:
    """Every list of values names each value once (a repeat would be the same point
    twice): modes, ops and every list under backends (names of ciphers in any case)."""
    lists: list[tuple[list[Any], list[Any]]] = [
        (["modes"], cfg["modes"]),
        (["ops"], cfg["ops"]),
    ]
    for name, b in cfg["backends"].items():
        for key, vals in (b or {}).items():
            if isinstance(vals, list) and all(isinstance(v, (str, int)) for v in vals):
                lists.append((["backends", name, key], vals))
    for path, vals in lists:
        seen: set[Any] = set()
        for i, v in enumerate(vals):
            norm = v.lower() if isinstance(v, str) else v
            if norm in seen:
                raise _fail(
                    path + [i], f"{v!r} is listed twice (allowed: each value once)"
                )
            seen.add(norm)


def check_sizes(cfg: dict[str, Any]) -> None:
    """sizes: each a size, none the same number of bytes as another."""
    seen: dict[int, str] = {}
    for i, s in enumerate(cfg["sizes"]):
        try:
            n = parse_size(s)
        except (ValueError, TypeError) as exc:
            raise _fail(["sizes", i], str(exc)) from None
        if n in seen:
            raise _fail(["sizes", i], f"{s!r} repeats {seen[n]!r} ({n} bytes)")
        seen[n] = str(s)


def check_inputs(cfg: dict[str, Any], workdir: str | Path) -> None:
    """inputs: names of their own (not a size's), each a file, set or generated set;
    at least one size or input."""
    names: set[str] = {size_label(s) for s in cfg["sizes"]}
    for i, item in enumerate(cfg["inputs"]):
        if item["name"] in names:
            raise _fail(
                ["inputs", i, "name"],
                f"{item['name']!r} is used twice (names must be unique)",
            )
        names.add(item["name"])
        _check_input(item, i, workdir)
    try:
        config_checks.check_input_names(cfg, workdir)
    except config_checks.Problem as exc:
        raise _fail(exc.path, exc.msg) from None
    if not cfg["sizes"] and not cfg["inputs"]:
        raise _fail(
            "sizes", "no sizes and no inputs (allowed: at least one size or input file)"
        )


def _check_input(item: dict[str, Any], i: int, workdir: str | Path) -> None:
    """One ``inputs`` item: a readable file, a set that matches files, or a valid
    generated set."""
    if "path" not in item:
        bad = inputsets.check(item, workdir)
        if bad is not None:
            key, msg = bad
            raise _fail(["inputs", i] + ([key] if key else []), msg)
        return
    if any(k in item for k in ("glob", "dir", "generate")):
        raise _fail(["inputs", i], "give exactly one of path, glob, dir, generate")
    p = Path(item["path"])
    if not p.is_absolute():
        p = Path(workdir) / p
    if not p.is_file():
        raise _fail(
            ["inputs", i, "path"],
            f"{item['path']!r}: no such file (allowed: an existing, readable file)",
        )
    if p.stat().st_size < 1:
        raise _fail(
            ["inputs", i, "path"],
            f"{item['path']!r} is empty (allowed: a file of at least 1 byte)",
        )
    try:
        with open(p, "rb") as fh:
            fh.read(1)
    except OSError as exc:
        raise _fail(
            ["inputs", i, "path"],
            f"{item['path']!r} cannot be read ({exc.strerror}; allowed: an existing, "
            "readable file)",
        ) from None


def check_baseline(cfg: dict[str, Any], explicit: bool) -> None:
    base = cfg["baseline"]
    if explicit and cfg["backends"].get(base["backend"]) is None:
        raise _fail(
            "baseline.backend",
            f"{base['backend']!r} is not in this campaign's backends, so no speedup "
            f"or efficiency could be computed (allowed: add backends.{base['backend']}, "
            "or leave baseline out)",
        )
    impl = base.get("impl")
    if impl is None:
        return
    b = cfg["backends"].get(base["backend"])
    impls = (b or {}).get("impls", [])
    if impl not in impls:
        raise _fail(
            "baseline.impl",
            f"{impl!r} is not run by backends.{base['backend']} "
            f"(allowed: {', '.join(impls) or 'enable that backend first'})",
        )


def check_nopad(cfg: dict[str, Any]) -> None:
    if not cfg["nopad"]:
        return
    for i, s in enumerate(cfg["sizes"]):
        n = parse_size(s)
        if n % 16:
            raise _fail(
                ["sizes", i],
                f"{s!r} is {n} bytes, not a multiple of 16 "
                "(allowed with nopad: true: whole 16-byte blocks, e.g. 1KiB)",
            )


# The name of the one default build (no build.variants) in file names and records
# (ciphersweep.job.build): no variant may take it.
DEFAULT_BUILD = "default"


def check_variants(cfg: dict[str, Any]) -> None:
    """build.variants: unique names, none the default build's; native builds only
    (an image carries one build)."""
    seen: set[str] = set()
    for i, v in enumerate(cfg["build"]["variants"]):
        if v["name"] == DEFAULT_BUILD:
            raise _fail(
                ["build", "variants", i, "name"],
                f"{DEFAULT_BUILD!r} names the build without variants (its size file and "
                "records); allowed: any other name, e.g. O3",
            )
        if v["name"] in seen:
            raise _fail(
                ["build", "variants", i, "name"],
                f"{v['name']!r} is used twice (variant names must be unique)",
            )
        seen.add(v["name"])
    runtime = cfg["platform"]["container"]["runtime"]
    if seen and runtime != "none":
        raise _fail(
            "build.variants",
            f"a {runtime} image carries one build of the kernels (allowed with "
            "variants: platform.container.runtime none)",
        )


def check_build_and_launcher(
    cfg: dict[str, Any], root: str | Path, workdir: str | Path
) -> None:
    """build.dir below build/; no launcher option that would set the planned shape."""
    bdir = cfg["build"]["dir"]
    bad = launch_checks.dir_problem(bdir, root, workdir)
    if bad:
        raise _fail(
            "build.dir",
            f"{bdir!r} {bad} (allowed: a directory below build/, e.g. build/kernels)",
        )
    opt = launch_checks.shape_option(cfg["cluster"]["mpirun_args"])
    if opt is not None:
        raise _fail(
            "cluster.mpirun_args",
            f"{opt!r} sets the launch shape, which the campaign's ranks and threads "
            "decide (allowed: options that do not set ranks, hosts, placement or threads)",
        )


def check_batch(cfg: dict[str, Any]) -> None:
    """batch: whole batches of the native kernels' fixed repetition count."""
    k = cfg["batch"]
    if k == 1:
        return
    if cfg["reps"] % k:
        raise _fail(
            "batch",
            f"{k} does not divide reps {cfg['reps']} (allowed: a divisor of reps)",
        )
    if cfg.get("precision") is not None:
        raise _fail(
            "batch",
            f"{k} with a precision target (allowed with precision: 1; the kernels "
            "then stop after any repetition)",
        )
    for name in PY_BACKENDS:
        if cfg["backends"].get(name) is not None:
            raise _fail(
                "batch",
                f"{k} with backends.{name} (allowed with the Python-side kernels: 1)",
            )


def check_precision(cfg: dict[str, Any]) -> None:
    """precision: min_reps (default: reps) <= max_reps; reps and warmup fit max_reps."""
    prec = cfg.get("precision")
    if prec is None:
        return
    where = "precision.min_reps"
    if prec.get("min_reps") is None:
        prec["min_reps"], where = cfg["reps"], "reps"
    if prec["min_reps"] > prec["max_reps"]:
        raise _fail(
            where,
            f"{prec['min_reps']} is more than precision.max_reps "
            f"{prec['max_reps']} (allowed: 1..precision.max_reps)",
        )


# How a history store's files end: history.path's suffixes (its schema pattern) and
# the files SQLite keeps beside it. A campaign whose results/<campaign>/ directory took
# one of these names would stand where a store (results/history.sqlite by default)
# keeps its write-ahead log, and every campaign's append and export would fail.
STORE_ENDINGS = (".sqlite", ".sqlite3", ".db", "-wal", "-shm", "-journal")


def campaign_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a campaign (None: it can)."""
    if name.lower().endswith(STORE_ENDINGS):
        return (
            f"{name!r} ends like a history store's file, so results/{name}/ could "
            "stand where the store keeps its files (allowed: a name not ending in "
            + ", ".join(STORE_ENDINGS)
            + ")"
        )
    return None


def check_campaign(cfg: dict[str, Any]) -> None:
    """The campaign's name cannot collide with a history store's files."""
    problem = campaign_name_problem(str(cfg["campaign"]))
    if problem:
        raise _fail("campaign", problem)


def check_history(cfg: dict[str, Any]) -> None:
    """The gate's settings together: a gate needs the history it reads."""
    hist = cfg["history"]
    if not hist["enabled"]:
        for key, off in (("fail_on_regression", False), ("inconclusive", "warn")):
            if hist[key] != off:
                raise _fail(
                    f"history.{key}",
                    f"{hist[key]!r} needs history.enabled: true (the gate reads the "
                    f"history; allowed with history.enabled: false: {off!r})",
                )


def check_container(cfg: dict[str, Any], root: str | Path) -> None:
    """platform.container: a recipe of the project; one with aes-cuda for cuda."""
    cont = cfg["platform"]["container"]
    if cont["runtime"] == "none":
        return
    recipe = Path(root) / "containers" / f"{cont['recipe']}.def"
    if not recipe.is_file():
        raise _fail(
            "platform.container.recipe",
            f"{cont['recipe']!r}: containers/{cont['recipe']}.def does not exist",
        )
    if cfg["backends"].get("cuda") is not None and cont["recipe"] == "cpu":
        raise _fail(
            "platform.container.recipe",
            "'cpu' has no aes-cuda (allowed with a cuda backend: a CUDA recipe, e.g. cuda)",
        )


def check_tables_and_compare(
    cfg: dict[str, Any], root: str | Path, workdir: str | Path
) -> None:
    """The table layouts and the study files under ``compare`` (read now, not after
    the campaign ran)."""
    try:
        layout_checks.check_config(cfg)
        study_files.check_config(cfg, root, workdir)
    except ValueError as exc:
        raise ConfigError(f"invalid config: {exc}") from None
    try:
        _check_compare_files(cfg)
    except config_checks.Problem as exc:
        raise _fail(exc.path, exc.msg) from None


def _check_compare_files(cfg: dict[str, Any]) -> None:
    """Another campaign's summary.csv holds results; a claims file's values have
    their types (both read now, not after the campaign ran)."""
    comp = cfg["compare"]
    if "campaign" in comp:
        config_checks.check_summary(comp["campaign"])
    if "claims" in comp:
        try:
            data = yamlfile.load(comp["claims"])
        except yamlfile.YamlFileError as exc:
            raise config_checks.Problem("compare.claims", str(exc)) from None
        if isinstance(data, dict):
            config_checks.check_claims(data.get("claims"), Path(comp["claims"]).name)
