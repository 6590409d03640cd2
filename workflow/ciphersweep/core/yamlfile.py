"""Reading the YAML files the tool is given (campaigns, claims): a key given twice in
one mapping is refused with the file and line, never silently replaced by the last."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class YamlFileError(ValueError):
    """A YAML file that cannot be used; the message names the file (and line)."""


# libyaml's parser where PyYAML has it (its PyPI wheels do): the same documents, read
# about ten times faster than by the pure-Python parser, which every Snakemake process
# of a campaign would spend on the config schema alone
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SafeLoader):  # type: ignore[misc,valid-type]
    """SafeLoader whose mappings refuse a repeated key."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue  # `<<: *anchor`: keys given here may override the merged ones
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key that is not a scalar", key_node.start_mark
            ) from None
        line = key_node.start_mark.line + 1
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"key {key!r} given twice (first on line {seen[key]}; allowed: each key once)",
                key_node.start_mark,
            )
        seen[key] = line
    loader.flatten_mapping(node)
    return loader.construct_mapping(node, deep=True)


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _mapping,  # type: ignore[arg-type]
)


def safe_load(stream: Any) -> Any:
    """yaml.safe_load, with libyaml's parser where there is one (the project's own
    files: schemas, study claims)."""
    return yaml.load(stream, Loader=_SafeLoader)


def loads(text: str, name: str = "<string>") -> Any:
    """Parse YAML text; YamlFileError ``name:line: what`` on a mistake."""
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        what = getattr(exc, "problem", None) or "not valid YAML"
        if isinstance(exc, yaml.constructor.ConstructorError):
            raise YamlFileError(f"{where}: {what}") from None
        raise YamlFileError(f"{where}: YAML syntax error: {what}") from None


def load(path: str | Path) -> Any:
    """Parse a YAML file; YamlFileError names the file (and line) on a mistake."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise YamlFileError(
            f"{path}: cannot be read ({why}; allowed: a readable YAML file)"
        ) from None
    return loads(text, str(path))
