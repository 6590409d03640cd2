"""Checks of campaign values a schema cannot express, each naming the key at fault:
compiler flags, cipher names and their key lengths, command templates, the members of
input sets, and the files ``compare`` reads (claims, another campaign's summary).

Each check raises :class:`Problem` (the key path and what is allowed);
:mod:`ciphersweep.plan.config` turns it into its one-line error.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema

from ciphersweep import backends as registry
from ciphersweep.plan import inputsets

# the backends whose `ciphers` are named in any case (one spelling) and take key_bits
CIPHER_LISTS = registry.where(cipher_list=True)


class Problem(ValueError):
    """What is wrong (``msg``) and where (``path``, a key path)."""

    def __init__(self, path: Sequence[Any] | str, msg: str) -> None:
        super().__init__(msg)
        self.path = path
        self.msg = msg


# ------------------------------------------------------------------ compiler flags

# One compiler flag of a build variant, by shape: optimisation, target, code
# generation, warnings, debug info, language standard and macros. Nothing that names a
# file (-o, -MF, -specs=, @file, -include, -I, -B, -wrapper, -save-temps, ...) or passes
# options on to another program (-Wl, -Wa, -Wp, -Xlinker) fits one of these shapes.
_FLAG_SHAPES = (
    r"-O(?:[0-3sgz]|fast)?",
    r"-march=[A-Za-z0-9_.+-]+",
    r"-mtune=[A-Za-z0-9_.+-]+",
    r"-m(?:no-)?[a-z0-9][a-z0-9.-]*(?:=[A-Za-z0-9_.+-]+)?",
    r"-f(?:no-)?[a-z][a-z0-9-]*(?:=[A-Za-z0-9_.+-]+)?",
    r"-W(?:no-)?[a-z][a-z0-9+-]*(?:=[a-z0-9-]+)?",
    r"-w",
    r"-g(?:gdb|dwarf(?:-[2-5])?|[0-3])?",
    r"-std=[a-z0-9+]+",
    r"-D[A-Za-z_][A-Za-z0-9_]*(?:=[A-Za-z0-9_.+-]*)?",
    r"-U[A-Za-z_][A-Za-z0-9_]*",
    r"-pipe",
    r"-pthread",
)
_FLAG_RE = re.compile("^(?:" + "|".join(_FLAG_SHAPES) + ")$")
# -f options that write files or load code (they fit the -f shape above)
_FLAG_WRITERS = re.compile(
    r"^-f(?:no-)?(?:plugin|profile|dump|stack-usage|callgraph-info|opt-info|"
    r"record-gcc-switches|save-optimization-record|debug-prefix-map|file-prefix-map|"
    r"macro-prefix-map|auto-profile|lto-|diagnostics-format|sanitize-coverage|"
    r"coverage|test-coverage|instrument|create-profile|use-)"
)
FLAGS_ALLOWED = (
    "compiler flags only: -O0..3/-Os/-Ofast, -march=, -mtune=, -m..., -f..., "
    "-W..., -g, -std=, -DNAME[=VALUE], -UNAME, -pipe, -pthread; nothing that names "
    "a file (-o, -MF, -specs, @file, -I, -include, -Wl, ...)"
)


def flag_problem(flags: str) -> str | None:
    """Why ``flags`` (space-separated, as CMAKE_C_FLAGS takes them) is not a list of
    compiler flags (None: it is)."""
    for word in flags.split():
        if not _FLAG_RE.match(word) or _FLAG_WRITERS.match(word):
            return f"{word!r} in {flags!r} is not allowed ({FLAGS_ALLOWED})"
    return None


def check_flags(build: dict[str, Any]) -> None:
    """build.variants[].cflags and the flags of build.cmake_args' -DCMAKE_*_FLAGS=."""
    for i, v in enumerate(build.get("variants", [])):
        bad = flag_problem(v["cflags"])
        if bad:
            raise Problem(["build", "variants", i, "cflags"], bad)
    for i, arg in enumerate(build.get("cmake_args", [])):
        m = re.match(r"^-DCMAKE_[A-Z_]*FLAGS[A-Z_]*(?::STRING)?=(.*)$", arg, re.DOTALL)
        if m:
            bad = flag_problem(m.group(1))
            if bad:
                raise Problem(["build", "cmake_args", i], bad)


# ------------------------------------------------------------------ ciphers


def normalise_ciphers(cfg: dict[str, Any]) -> None:
    """Cipher names in lower case wherever they are given (OpenSSL and the Python-side
    kernels take them in any case), so ``key_bits: {BF-CBC: ...}`` and a cipher
    ``bf-cbc`` are the same; a key given twice in two spellings is refused."""
    be = cfg["backends"]
    for name in CIPHER_LISTS:
        if be.get(name) is not None:
            be[name]["ciphers"] = [str(c).lower() for c in be[name]["ciphers"]]
    if be.get("command") is not None:
        for prog in be["command"]["programs"]:
            prog["ciphers"] = [str(c).lower() for c in prog["ciphers"]]
    for kernel in (be.get("user") or {}).get("kernels", []):
        kernel["ciphers"] = [str(c).lower() for c in kernel["ciphers"]]
    out: dict[str, Any] = {}
    for name, bits in cfg["key_bits"].items():
        low = str(name).lower()
        if low in out:
            raise Problem(
                ["key_bits", name],
                f"{low!r} is given twice (allowed: each cipher once, in any case)",
            )
        out[low] = bits
    cfg["key_bits"] = out


def campaign_ciphers(cfg: dict[str, Any]) -> set[str]:
    """Every cipher a point of the campaign is named by (lower case)."""
    be = cfg["backends"]
    out: set[str] = set()
    for name in CIPHER_LISTS:
        if be.get(name) is not None:
            out.update(be[name]["ciphers"])
    if be.get("command") is not None:
        for prog in be["command"]["programs"]:
            out.update(prog["ciphers"])
    return out


def check_key_bits(cfg: dict[str, Any]) -> None:
    """key_bits: for ciphers of this campaign only, each length once."""
    ciphers = campaign_ciphers(cfg)
    for name, bits in cfg["key_bits"].items():
        if name not in ciphers:
            raise Problem(
                ["key_bits", name],
                f"{name!r} is not a cipher of this campaign, so the key length would "
                f"not be used (allowed: {', '.join(sorted(ciphers)) or 'none here'})",
            )
        for i, kb in enumerate(bits):
            if kb in bits[:i]:
                raise Problem(
                    ["key_bits", name, i],
                    f"{kb} is listed twice (allowed: each key length once)",
                )


# ------------------------------------------------------------------ command templates


def template_problem(template: Sequence[str]) -> str | None:
    """A command template as its expansion will read it (the same formatter): the
    output file is a real {output} placeholder, no literal brace reaches an argument,
    the input is named once."""
    fields: list[str] = []
    for i, item in enumerate(template):
        for literal, name, _, _ in string.Formatter().parse(str(item)):
            if "{" in literal or "}" in literal:
                return (
                    f"[{i}] {item!r}: literal braces (allowed: the placeholders "
                    "{input} {output} {key} {iv} {cipher}, no other braces)"
                )
            if name is not None:
                fields.append(name)
    if "output" not in fields:
        return "no {output} placeholder (the output is verified)"
    if fields.count("input") > 1:
        return (
            "{input} given twice (allowed: once; a program must not write over "
            "the point's input)"
        )
    return None


# ------------------------------------------------------------------ inputs


def check_input_names(cfg: dict[str, Any], workdir: str | Path) -> None:
    """Every input (a size, a file, each member of a set) has a name of its own: a
    file ``a.001`` beside a set ``a`` would be two inputs with one name."""
    seen: dict[str, str] = {}
    for f in inputsets.expand(cfg, workdir):
        if f.name in seen:
            idx = next(
                i
                for i, it in enumerate(cfg["inputs"])
                if it["name"] in (f.name, f.set_name)
            )
            raise Problem(
                ["inputs", idx, "name"],
                f"{f.name!r} is also the name of {seen[f.name]} (allowed: names that "
                "no set member <set>.<nnn> takes)",
            )
        seen[f.name] = f"a member of set {f.set_name!r}" if f.set_name else "an input"


# ------------------------------------------------------------------ compare files


def check_summary(campaign: str | Path) -> None:
    """Another campaign's summary.csv: readable, with a header and at least one row."""
    path = Path(campaign) / "summary.csv"
    try:
        with open(path, encoding="utf-8") as fh:
            lines = [ln for ln in fh.read().splitlines() if ln.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise Problem(
            "compare.campaign", f"{str(path)!r} cannot be read ({why})"
        ) from None
    if len(lines) < 2 or "point" not in lines[0].split(","):
        raise Problem(
            "compare.campaign",
            f"{str(path)!r} holds no results (allowed: the results directory of a "
            "finished campaign)",
        )


_NUM = {"type": "number", "minimum": 0}
_SEL = {"type": "object"}
CLAIM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "text": {"type": "string"},
        "source": {"type": "string"},
        "kind": {"type": "string"},
        "note": {"type": "string"},
        "quantity": {"type": "string"},
        "unit": {"type": "string"},
        "where": _SEL,
        "faster": _SEL,
        "slower": _SEL,
        "order": {
            "type": "array",
            "minItems": 2,
            "items": {"anyOf": [_SEL, {"type": "array", "minItems": 1, "items": _SEL}]},
        },
        "pair_by": {"type": "array", "items": {"type": "string"}},
        "aggregate": {
            "enum": [
                "median",
                "min",
                "max",
                "ratio_of_means",
                "difference",
                "mean",
                "each",  # a factor stated of every cell ("consistently")
            ]
        },
        "statistic": {"enum": ["median", "mean"]},
        "not_comparable": {"type": "string", "minLength": 1},
        "at_least": {"type": "boolean"},
        "own": {"type": "boolean"},  # a check the project adds, not the study's finding
        "tolerance": _NUM,
        "ratio": {"type": "array", "minItems": 2, "maxItems": 2},
        # kind paper: the ids of two order claims that state a pair both ways round
        "contradicts": {
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "items": {"type": "string"},
        },
    },
    "allOf": [
        {  # a factor is positive; a difference may be stated as 0 (tolerance: a
            # band of +-tolerance in the claim's unit, "under 5 W")
            "if": {
                "properties": {
                    "kind": {"const": "factor"},
                    "aggregate": {"not": {"const": "difference"}},
                }
            },
            "then": {
                "properties": {"expect": {"type": "number", "exclusiveMinimum": 0}}
            },
        },
        {
            "if": {
                "properties": {
                    "kind": {"const": "factor"},
                    "aggregate": {"const": "difference"},
                },
                "required": ["aggregate"],
            },
            "then": {"properties": {"expect": {"type": "number", "minimum": 0}}},
        },
        {
            "if": {"properties": {"kind": {"const": "values"}}},
            "then": {
                "properties": {
                    "expect": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["where", "value"],
                            "properties": {"where": _SEL, "value": {"type": "number"}},
                        },
                    }
                }
            },
        },
    ],
}


def check_claims(claims: Any, name: str) -> None:
    """The value types of a claims file's claims (``expect: "four"``, ``tolerance:
    "10%"`` would otherwise fail the comparison after the whole campaign ran)."""
    if not isinstance(claims, list):
        return
    validator = jsonschema.Draft202012Validator(CLAIM_SCHEMA)
    for i, c in enumerate(claims):
        err = jsonschema.exceptions.best_match(validator.iter_errors(c))
        if err is None:
            continue
        key = ".".join(str(p) for p in err.absolute_path)
        where = f"{name}: claims[{i}]" + (f".{key}" if key else "")
        raise Problem(
            "compare.claims",
            f"{where}: {err.instance!r} is not allowed ({_claim_want(err)})",
        )


def _claim_want(err: jsonschema.ValidationError) -> str:
    v = err.validator
    if v == "type":
        return f"expected {err.validator_value}"
    if v in ("minimum", "exclusiveMinimum"):
        return (
            f"allowed: a number {'>=' if v == 'minimum' else '>'} {err.validator_value}"
        )
    if v == "enum":
        return "allowed: " + ", ".join(map(str, err.validator_value))
    return err.message
