"""Campaign configuration: schema validation, defaults and semantic checks.

Every problem is reported as ONE :class:`ConfigError` whose message names the key path
and what is allowed; the workflow turns it into a one-line error with no traceback.
"""

from __future__ import annotations

import copy
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ciphersweep.core import paths, yamlfile
from ciphersweep.core.units import parse_size, size_label
from ciphersweep.job import build, launch
from ciphersweep.plan import config_checks

SCHEMA_PATH = paths.SCHEMAS / "config.schema.yaml"

BACKENDS = ("seq", "omp", "mpi", "openssl", "cuda", "pycryptodome", "purepy", "command")
PY_BACKENDS = (
    "pycryptodome",
    "purepy",
    "command",
)  # Python-side kernels: native runs only
CPU_IMPLS = ("auto", "ref", "ttable", "aesni", "vaes256", "vaes")
# The AEADs aes-seq runs (backends.seq.aead): cipher -> its impls (docs/kernels.md).
AEAD_IMPLS = {
    "ascon-aead128": ("auto", "ascon-ref", "ascon-opt64", "ascon-lowsize"),
    "aes-128-gcm": ("auto", "gcm-ref", "gcm-aesni"),
}
CUDA_IMPLS = ("auto", "gpu-lanes", "gpu-ttable", "gpu-ref")  # what aes-cuda accepts
# Characters that would let a string do something in a shell (or in Snakemake's shell
# formatting) if it ever reached one.
SHELL_META = set(";&|`$<>()\\'\"{}\n\r\t*?!#~")
# glob patterns of debug.inject_fault never reach a shell
_GLOB_KEYS = {("debug", "inject_fault")}
# table layouts and comparison settings are text and paths that no shell ever sees
_TEXT_KEYS = {("tables",), ("compare",)}
_CIPHER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{1,40}$")


class ConfigError(ValueError):
    """A configuration mistake; the message is meant for the user as is."""


def _is_integer(_: Any, instance: Any) -> bool:
    """An integer is an int: ``3.0`` or ``1e20`` is refused where a count, a seed or
    a limit is asked for (a float there ends as a crash inside a job)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", _is_integer
    ),
)


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    with open(SCHEMA_PATH) as fh:
        return yaml.safe_load(fh)


def _path_str(path: list[Any] | tuple[Any, ...]) -> str:
    out = ""
    for p in path:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or "(top level)"


def _fail(path: list[Any] | tuple[Any, ...] | str, msg: str) -> ConfigError:
    where = path if isinstance(path, str) else _path_str(path)
    return ConfigError(f"invalid config: {where}: {msg}")


def _schema_at(path: list[Any]) -> dict[str, Any]:
    node = _deref(schema())
    for p in path:
        if isinstance(p, int):
            node = _deref(node.get("items", {}))
        else:
            node = _deref(node.get("properties", {}).get(p, {}))
    return node


def _deref(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local ``$ref`` (``#/$defs/NAME``) of the schema."""
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return schema()["$defs"].get(ref.removeprefix("#/$defs/"), {})
    return node


def _describe(err: jsonschema.ValidationError) -> ConfigError:
    path = list(err.absolute_path)
    v = err.validator
    inst = err.instance
    if v == "additionalProperties":
        allowed = sorted(_schema_at(path).get("properties", {}))
        extra = sorted(set(inst) - set(allowed)) if isinstance(inst, dict) else []
        return _fail(
            path,
            f"unknown key {', '.join(map(repr, extra))} (allowed: {', '.join(allowed)})",
        )
    if v == "enum":
        return _fail(
            path,
            f"{inst!r} is not allowed (allowed: {', '.join(map(str, err.validator_value))})",
        )
    if v == "type":
        want = err.validator_value
        want = " or ".join(want) if isinstance(want, list) else want
        return _fail(path, f"{inst!r} has the wrong type (expected {want})")
    if v == "minimum":
        return _fail(path, f"{inst!r} is too small (allowed: >= {err.validator_value})")
    if v == "exclusiveMinimum":
        return _fail(path, f"{inst!r} is too small (allowed: > {err.validator_value})")
    if v == "maximum":
        return _fail(path, f"{inst!r} is too large (allowed: <= {err.validator_value})")
    if v == "pattern":
        return _fail(
            path, f"{inst!r} is not allowed (must match {err.validator_value})"
        )
    if v == "required":
        return _fail(path, err.message)
    if v in ("minItems", "minProperties"):
        return _fail(path, "must not be empty")
    if v == "const":
        return _fail(
            path, f"{inst!r} is not allowed (allowed: {err.validator_value!r})"
        )
    return _fail(path, err.message)


def _fill_defaults(node: dict[str, Any], sch: dict[str, Any]) -> None:
    props = sch.get("properties", {})
    for key, sub in props.items():
        if key not in node and "default" in sub:
            node[key] = copy.deepcopy(sub["default"])
        val = node.get(key)
        if isinstance(val, dict) and "properties" in sub:
            _fill_defaults(val, sub)


def _no_shell(path: tuple[Any, ...]) -> bool:
    """Strings that never reach a shell: debug globs, free text, and the command
    backend's argument lists (started without a shell; their placeholders are checked
    on their own)."""
    if path[:2] in _GLOB_KEYS or path[:1] in _TEXT_KEYS:
        return True
    return (
        path[:3] == ("backends", "command", "programs")
        and len(path) > 4
        and (path[4] in ("encrypt", "decrypt"))
    )


def _check_strings(node: Any, path: tuple[Any, ...]) -> None:
    if _no_shell(path):
        return
    if isinstance(node, dict):
        for k, v in node.items():
            _check_strings(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _check_strings(v, path + (i,))
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


def _check_finite(node: Any, path: tuple[Any, ...]) -> None:
    """No number is infinite or NaN (``.inf``, ``.nan`` pass every bound of a schema)."""
    if isinstance(node, dict):
        for k, v in node.items():
            _check_finite(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _check_finite(v, path + (i,))
    elif isinstance(node, float) and not math.isfinite(node):
        raise _fail(list(path), f"{node!r} is not allowed (allowed: a finite number)")


def validate(
    raw: dict[str, Any], root: str | Path = ".", workdir: str | Path = "."
) -> dict[str, Any]:
    """Validate a campaign config and return a normalised copy (defaults filled in).

    ``root`` is the project directory (recipes are looked up there), ``workdir`` the
    directory relative paths (input files) are resolved against.
    """
    cfg = copy.deepcopy(dict(raw))
    validator = _Validator(schema())
    errors = sorted(
        validator.iter_errors(cfg),
        key=lambda e: (len(list(e.absolute_path)), str(e.message)),
    )
    if errors:
        # report the deepest problem of the first failing branch: it names the exact key
        best = jsonschema.exceptions.best_match(errors)
        raise _describe(best)
    _check_strings(cfg, ())
    _check_finite(cfg, ())
    _fill_defaults(cfg, schema())
    _check_duplicates(cfg)  # before the names are normalised: it quotes the user's
    try:
        _check_values(cfg, workdir)
    except config_checks.Problem as exc:
        raise _fail(exc.path, exc.msg) from None
    backends = cfg["backends"]
    for name in BACKENDS:
        if name in backends and backends[name] is not None:
            _fill_defaults(
                backends[name], schema()["properties"]["backends"]["properties"][name]
            )
    enabled = [b for b in BACKENDS if backends.get(b) is not None]
    if not enabled:
        raise _fail("backends", f"no backend enabled (allowed: {', '.join(BACKENDS)})")

    _check_precision(cfg)
    _check_batch(cfg)
    cluster = cfg["cluster"]
    # sizes
    seen: dict[int, str] = {}
    for i, s in enumerate(cfg["sizes"]):
        try:
            n = parse_size(s)
        except (ValueError, TypeError) as exc:
            raise _fail(["sizes", i], str(exc)) from None
        if n in seen:
            raise _fail(["sizes", i], f"{s!r} repeats {seen[n]!r} ({n} bytes)")
        seen[n] = str(s)
    # inputs
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

    _check_python_backends(cfg, backends)
    try:
        config_checks.check_key_bits(cfg)
    except config_checks.Problem as exc:
        raise _fail(exc.path, exc.msg) from None
    # backends
    for name in ("seq", "omp", "mpi"):
        b = backends.get(name)
        if b is None:
            continue
        for i, impl in enumerate(b["impls"]):
            if impl not in CPU_IMPLS:
                raise _fail(
                    ["backends", name, "impls", i],
                    f"{impl!r} is not allowed (allowed: {', '.join(CPU_IMPLS)})",
                )
    if backends.get("omp") is not None:
        for i, t in enumerate(backends["omp"]["threads"]):
            if not 1 <= t <= cluster["cores_per_node"]:
                raise _fail(
                    ["backends", "omp", "threads", i],
                    f"{t} is out of range (allowed: 1..{cluster['cores_per_node']}, cluster.cores_per_node)",
                )
    if backends.get("mpi") is not None:
        for i, r in enumerate(backends["mpi"]["ranks"]):
            if not 1 <= r <= cluster["max_ranks"]:
                raise _fail(
                    ["backends", "mpi", "ranks", i],
                    f"{r} is out of range (allowed: 1..{cluster['max_ranks']}, cluster.max_ranks)",
                )
    if backends.get("openssl") is not None:
        for i, c in enumerate(backends["openssl"]["ciphers"]):
            if not _CIPHER_RE.match(c):
                raise _fail(
                    ["backends", "openssl", "ciphers", i],
                    f"{c!r} is not an EVP cipher name (e.g. aes-128-ctr)",
                )
    if backends.get("cuda") is not None:
        cu = backends["cuda"]
        for i, impl in enumerate(cu["impls"]):
            if impl not in CUDA_IMPLS:
                raise _fail(
                    ["backends", "cuda", "impls", i],
                    f"{impl!r} is not allowed (allowed: {', '.join(CUDA_IMPLS)})",
                )
        for i, bt in enumerate(cu["block_threads"]):
            if bt < 32 or bt > 1024 or bt % 32:
                raise _fail(
                    ["backends", "cuda", "block_threads", i],
                    f"{bt} is not allowed (allowed: multiples of 32 in 32..1024)",
                )
        for i, s in enumerate(cu["streams"]):
            if not 1 <= s <= 64 or s in cu["streams"][:i]:
                raise _fail(
                    ["backends", "cuda", "streams", i],
                    f"{s} is not allowed (allowed: distinct integers in 1..64; 1 = serial copies)",
                )
        for i, g in enumerate(cu["gpus"]):
            if not 1 <= g <= max(cluster["gpus_per_node"], 0):
                raise _fail(
                    ["backends", "cuda", "gpus", i],
                    f"{g} is out of range (allowed: 1..{cluster['gpus_per_node']}, cluster.gpus_per_node)",
                )
    _check_baseline(cfg, "baseline" in raw)
    _check_nopad(cfg)
    from ciphersweep.analysis import (
        compare,  # the layout and comparison keys check themselves
    )
    from ciphersweep.analysis.tables import (
        layouts,  # the layout and comparison keys check themselves
    )

    try:
        layouts.check_config(cfg)
        compare.check_config(cfg, root, workdir)
    except ValueError as exc:
        raise ConfigError(f"invalid config: {exc}") from None
    try:
        _check_compare_files(cfg)
    except config_checks.Problem as exc:
        raise _fail(exc.path, exc.msg) from None
    _check_variants(cfg)
    _check_build_and_launcher(cfg, root, workdir)
    _check_aead(backends.get("seq"))
    # platform
    cont = cfg["platform"]["container"]
    if cont["runtime"] != "none":
        recipe = Path(root) / "containers" / f"{cont['recipe']}.def"
        if not recipe.is_file():
            raise _fail(
                "platform.container.recipe",
                f"{cont['recipe']!r}: containers/{cont['recipe']}.def does not exist",
            )
        if backends.get("cuda") is not None and cont["recipe"] == "cpu":
            raise _fail(
                "platform.container.recipe",
                "'cpu' has no aes-cuda (allowed with a cuda backend: a CUDA recipe, e.g. cuda)",
            )
    return cfg


def _check_values(cfg: dict[str, Any], workdir: str | Path) -> None:
    """Cipher names in one spelling and compiler flags that are flags
    (ciphersweep.plan.config_checks)."""
    config_checks.normalise_ciphers(cfg)
    config_checks.check_flags(cfg["build"])


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


def _check_duplicates(cfg: dict[str, Any]) -> None:
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


def _check_baseline(cfg: dict[str, Any], explicit: bool) -> None:
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


def _check_nopad(cfg: dict[str, Any]) -> None:
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


def _check_input(item: dict[str, Any], i: int, workdir: str | Path) -> None:
    """One ``inputs`` item: a readable file, a set that matches files, or a valid
    generated set."""
    from ciphersweep.plan import inputsets

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


def _check_python_backends(cfg: dict[str, Any], backends: dict[str, Any]) -> None:
    """Ciphers, key lengths and command templates of the Python-side kernels."""
    from ciphersweep.core import ciphers as cs_ciphers
    from ciphersweep.job import launch as cs_launch

    def cipher_ok(path: list[Any], name: str) -> None:
        try:
            cs_ciphers.cipher(name)
            for kb in cfg["key_bits"].get(name, []):
                cs_ciphers.cipher(name, kb)
        except ValueError as exc:
            raise _fail(path, str(exc)) from None

    for name, bits in cfg["key_bits"].items():
        try:
            for kb in bits:
                cs_ciphers.cipher(name, kb)
        except ValueError as exc:
            raise _fail(["key_bits", name], str(exc)) from None
    for lib in ("pycryptodome", "purepy"):
        for i, c in enumerate((backends.get(lib) or {}).get("ciphers", [])):
            cipher_ok(["backends", lib, "ciphers", i], c)
    named = [x["name"] for x in cfg.get("inputs") or []]
    for i, name in enumerate((backends.get("purepy") or {}).get("sets", [])):
        if name not in named:
            allowed = ", ".join(named) or "no inputs named"
            raise _fail(
                ["backends", "purepy", "sets", i],
                f"{name!r} is not an input (allowed: {allowed})",
            )
    if backends.get("command") is not None:
        names: set[str] = set()
        for i, prog in enumerate(backends["command"]["programs"]):
            at = ["backends", "command", "programs", i]
            if prog["name"] in names:
                raise _fail(
                    at + ["name"],
                    f"{prog['name']!r} is used twice (names must be unique)",
                )
            names.add(prog["name"])
            for j, c in enumerate(prog["ciphers"]):
                cipher_ok(at + ["ciphers", j], c)
            for op in ("encrypt", "decrypt"):
                if op not in prog:
                    if op in cfg["ops"]:
                        raise _fail(at, f"no {op!r} argument list, but ops has {op}")
                    continue
                bad = cs_launch.placeholder_errors(
                    prog[op]
                ) or config_checks.template_problem(prog[op])
                if bad:
                    raise _fail(at + [op], bad)
    runtime = cfg["platform"]["container"]["runtime"]
    for name in PY_BACKENDS:
        if backends.get(name) is not None and runtime != "none":
            raise _fail(
                ["backends", name],
                f"runs natively only (allowed with platform.container.runtime: none, not {runtime})",
            )


def _check_aead(seq: dict[str, Any] | None) -> None:
    """backends.seq.aead: each cipher's impls are its own; seq runs something."""
    if seq is None:
        return
    for cipher, impls in seq["aead"].items():
        allowed = AEAD_IMPLS[cipher]
        for i, impl in enumerate(impls):
            if impl not in allowed:
                raise _fail(
                    ["backends", "seq", "aead", cipher, i],
                    f"{impl!r} is not an impl of {cipher} (allowed: {', '.join(allowed)})",
                )
    if not seq["impls"] and not seq["aead"]:
        raise _fail(
            "backends.seq.impls",
            "empty, and no backends.seq.aead (allowed: at least one AES impl or AEAD)",
        )


def _check_variants(cfg: dict[str, Any]) -> None:
    """build.variants: unique names; native builds only (an image carries one build)."""
    seen: set[str] = set()
    for i, v in enumerate(cfg["build"]["variants"]):
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


def _check_build_and_launcher(
    cfg: dict[str, Any], root: str | Path, workdir: str | Path
) -> None:
    """build.dir below build/; no launcher option that would set the planned shape."""
    bdir = cfg["build"]["dir"]
    bad = build.dir_problem(bdir, root, workdir)
    if bad:
        raise _fail(
            "build.dir",
            f"{bdir!r} {bad} (allowed: a directory below build/, e.g. build/kernels)",
        )
    opt = launch.shape_option(cfg["cluster"]["mpirun_args"])
    if opt is not None:
        raise _fail(
            "cluster.mpirun_args",
            f"{opt!r} sets the launch shape, which the campaign's ranks and threads "
            "decide (allowed: options that do not set ranks, hosts, placement or threads)",
        )


def _check_batch(cfg: dict[str, Any]) -> None:
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


def _check_precision(cfg: dict[str, Any]) -> None:
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


def load_file(path: str | Path) -> dict[str, Any]:
    """A campaign file as a dict; a YAML mistake is one line with the file and line."""
    try:
        data = yamlfile.load(path)
    except yamlfile.YamlFileError as exc:
        raise ConfigError(str(exc)) from None
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}: not a mapping of keys (allowed: campaign: ..., ...)"
        )
    return data


def format_error(exc: ConfigError) -> str:
    return f"ciphersweep: {exc}"
