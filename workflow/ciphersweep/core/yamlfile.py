"""Reading the YAML files the tool is given (campaigns, claims): a key given twice in
one mapping is refused with the file and line, never silently replaced by the last; so
are an alias inside its own anchor (a structure that contains itself, which every
reader after the parser would walk forever), aliases that expand to more than
MAX_VALUES values (an alias bomb, "billion laughs"), a tab where YAML wants spaces and
bytes that are not UTF-8."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class YamlFileError(ValueError):
    """A YAML file that cannot be used; the message names the file (and line)."""


# values a file's aliases may expand to: campaigns and claims have hundreds; nine
# levels of ten aliases each (the "billion laughs") have 10^9
MAX_VALUES = 100_000


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


class _PureStrictLoader(yaml.SafeLoader):
    """The same, on PyYAML's own Python parser: Snakemake's, which reads some flow
    forms libyaml refuses (``{a:{b: 1}}``, read as ``{a: {b: 1}}``)."""


for _loader in (_StrictLoader, _PureStrictLoader):
    _loader.add_constructor(
        yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
        _mapping,  # type: ignore[arg-type]
    )


def safe_load(stream: Any) -> Any:
    """yaml.safe_load, with libyaml's parser where there is one (the project's own
    files: schemas, study claims)."""
    return yaml.load(stream, Loader=_SafeLoader)


def _check_aliases(text: str, name: str, loader: Any = _SafeLoader) -> None:
    """Refuse an alias used inside its own anchor and aliases that expand to more than
    MAX_VALUES values, from the parser's events (nothing is built)."""
    open_: list[list[Any]] = [[None, 0]]  # (anchor, values so far) per open collection
    sizes: dict[str, int] = {}  # anchor -> values its node expands to
    for ev in yaml.parse(text, Loader=loader):
        line = ev.start_mark.line + 1
        if isinstance(ev, yaml.CollectionStartEvent):
            open_.append([ev.anchor, 0])
        elif isinstance(ev, yaml.CollectionEndEvent):
            anchor, count = open_.pop()
            if anchor is not None:
                sizes[anchor] = count + 1
            open_[-1][1] += count + 1
        elif isinstance(ev, yaml.ScalarEvent):
            if ev.anchor is not None:
                sizes[ev.anchor] = 1
            open_[-1][1] += 1
        elif isinstance(ev, yaml.AliasEvent):
            if ev.anchor in (a for a, _ in open_):
                raise YamlFileError(
                    f"{name}:{line}: alias *{ev.anchor} is used inside its own anchor "
                    f"&{ev.anchor}: a structure that contains itself (allowed: an "
                    "alias of a node that ends before it)"
                )
            open_[-1][1] += sizes.get(ev.anchor, 1)
        if sum(count for _, count in open_) > MAX_VALUES:
            raise YamlFileError(
                f"{name}:{line}: the aliases expand to more than {MAX_VALUES:,} values "
                f"(an alias bomb; allowed: at most {MAX_VALUES:,})"
            )


def _tab(text: str, mark: Any) -> str:
    """`` (a tab: YAML indents with spaces)`` where ``mark`` points at a tab."""
    lines = text.splitlines()
    if mark is None or mark.line >= len(lines):
        return ""
    line = lines[mark.line]
    at = line[mark.column : mark.column + 1]
    return " (a tab: YAML indents with spaces)" if "\t" in (at or line[:1]) else ""


def loads(text: str, name: str = "<string>", pure: bool = False) -> Any:
    """Parse YAML text; YamlFileError ``name:line: what`` on a mistake. ``pure``: with
    PyYAML's own Python parser (Snakemake's), not libyaml's."""
    loader = _PureStrictLoader if pure else _StrictLoader
    try:
        _check_aliases(text, name, yaml.SafeLoader if pure else _SafeLoader)
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        what = getattr(exc, "problem", None) or "not valid YAML"
        if isinstance(exc, yaml.constructor.ConstructorError):
            raise YamlFileError(f"{where}: {what}") from None
        raise YamlFileError(
            f"{where}: YAML syntax error: {what}{_tab(text, mark)}"
        ) from None


def load(path: str | Path) -> Any:
    """Parse a YAML file; YamlFileError names the file (and line) on a mistake."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise YamlFileError(
            f"{path}: cannot be read ({exc.strerror}; allowed: a readable YAML file)"
        ) from None
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise YamlFileError(
            f"{path}:{line}: not UTF-8 text (byte {exc.start} is "
            f"0x{data[exc.start]:02x}; allowed: a UTF-8 YAML file)"
        ) from None
    return loads(text, str(path))
