"""The campaign schema (workflow/schemas/config.schema.yaml): validation with the
schema's own rules, its defaults filled in, and each violation described as ONE
:class:`ConfigError` naming the key path and what is allowed."""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ciphersweep import backends
from ciphersweep.core import paths, yamlfile

if TYPE_CHECKING:
    import jsonschema

SCHEMA_PATH = paths.SCHEMAS / "config.schema.yaml"


class ConfigError(ValueError):
    """A configuration mistake; the message is meant for the user as is."""


def _is_integer(_: Any, instance: Any) -> bool:
    """An integer is an int: ``3.0`` or ``1e20`` is refused where a count, a seed or
    a limit is asked for (a float there ends as a crash inside a job)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@lru_cache(maxsize=1)
def _validator() -> Any:
    """The schema's validator class: Draft 2020-12 with integers that are ints.
    jsonschema is imported here, where a configuration is checked: the processes
    that only read the plan's modules (the drawing process) never load it."""
    import jsonschema

    return jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
            "integer", _is_integer
        ),
    )


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The campaign schema: config.schema.yaml with each backend's section as its
    registry module declares it (ciphersweep.backends, ``Backend.config``)."""
    with open(SCHEMA_PATH) as fh:
        loaded = yamlfile.safe_load(fh)
    sections = loaded["properties"]["backends"]["properties"]
    sections.update({b.name: copy.deepcopy(dict(b.config)) for b in backends.ALL})
    return loaded


def _path_str(path: list[Any] | tuple[Any, ...]) -> str:
    out = ""
    for p in path:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or "(top level)"


def fail(path: list[Any] | tuple[Any, ...] | str, msg: str) -> ConfigError:
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
        return fail(
            path,
            f"unknown key {', '.join(map(repr, extra))} (allowed: {', '.join(allowed)})",
        )
    if v == "enum":
        return fail(
            path,
            f"{inst!r} is not allowed (allowed: {', '.join(map(str, err.validator_value))})",
        )
    if v == "type":
        want = err.validator_value
        want = " or ".join(want) if isinstance(want, list) else want
        return fail(path, f"{inst!r} has the wrong type (expected {want})")
    if v == "minimum":
        return fail(path, f"{inst!r} is too small (allowed: >= {err.validator_value})")
    if v == "exclusiveMinimum":
        return fail(path, f"{inst!r} is too small (allowed: > {err.validator_value})")
    if v == "maximum":
        return fail(path, f"{inst!r} is too large (allowed: <= {err.validator_value})")
    if v == "pattern":
        return fail(path, f"{inst!r} is not allowed (must match {err.validator_value})")
    if v == "required":
        return fail(path, err.message)
    if v in ("minItems", "minProperties"):
        return fail(path, "must not be empty")
    if v == "const":
        return fail(path, f"{inst!r} is not allowed (allowed: {err.validator_value!r})")
    return fail(path, err.message)


def fill_defaults(node: dict[str, Any], sch: dict[str, Any]) -> None:
    props = sch.get("properties", {})
    for key, sub in props.items():
        if key not in node and "default" in sub:
            node[key] = copy.deepcopy(sub["default"])
        val = node.get(key)
        if isinstance(val, dict) and "properties" in sub:
            fill_defaults(val, sub)


def check(cfg: dict[str, Any]) -> None:
    """The schema's own rules; the deepest problem of the first failing branch is
    reported (it names the exact key)."""
    errors = sorted(
        _validator()(schema()).iter_errors(cfg),
        key=lambda e: (len(list(e.absolute_path)), str(e.message)),
    )
    if errors:
        from jsonschema.exceptions import best_match  # loaded by _validator()

        raise _describe(best_match(errors))


def layout_defaults() -> dict[str, Any]:
    """THE defaults of a table layout (config key ``tables``): the ``default`` of each
    key of the schema's ``$defs.layout``, a fresh copy each time."""
    props = schema()["$defs"]["layout"]["properties"]
    return {k: copy.deepcopy(v["default"]) for k, v in props.items() if "default" in v}
