"""Checks of a campaign's table layouts (config key ``tables``) that the schema cannot
express: unique names and labels, units of the value shown, axes used once, ratios of
earlier measures. Each problem is a ValueError naming the key."""

from __future__ import annotations

from typing import Any

from ciphersweep.plan.catalogue import LAYOUT_UNITS
from ciphersweep.plan.schema import layout_defaults


def check_config(cfg: dict[str, Any]) -> None:
    """Semantic checks the schema cannot express; ValueError names the key."""
    names: set[str] = set()
    for i, raw in enumerate(cfg.get("tables") or []):
        where = f"tables[{i}]"
        spec = {**layout_defaults(), **raw}
        if spec["name"] in names:
            raise ValueError(f"{where}.name: {spec['name']!r} is used twice")
        names.add(spec["name"])
        _check_unit(f"{where}.unit", spec["value"], raw.get("unit"))
        if "measures" in raw and "columns" in raw:
            raise ValueError(
                f"{where}: give either columns (axes) or measures, not both"
            )
        axes = spec["rows"] + ([] if "measures" in raw else spec["columns"])
        if len(set(axes)) != len(axes):
            raise ValueError(f"{where}: an axis is used twice in rows/columns")
        if spec.get("per") in axes:
            raise ValueError(
                f"{where}.per: {spec['per']!r} is already a row or column axis"
            )
        _check_measures(where, raw.get("measures", []))


def _check_measures(where: str, measures: list[dict[str, Any]]) -> None:
    labels: list[str] = []
    for j, m in enumerate(measures):
        mw = f"{where}.measures[{j}]"
        if m["label"] in labels:
            raise ValueError(f"{mw}.label: {m['label']!r} is used twice")
        if ("value" in m) == ("ratio" in m):
            raise ValueError(f"{mw}: give exactly one of value or ratio")
        if "value" in m:
            _check_unit(f"{mw}.unit", m["value"], m.get("unit"))
        for ref in m.get("ratio", []):
            if ref not in labels:
                raise ValueError(
                    f"{mw}.ratio: {ref!r} is not an earlier measure "
                    f"(allowed: {', '.join(labels) or 'none yet'})"
                )
        labels.append(m["label"])


def _check_unit(where: str, value: str, unit: str | None) -> None:
    if unit is not None and unit not in LAYOUT_UNITS[value]:
        raise ValueError(
            f"{where}: {unit!r} is not a unit of {value} "
            f"(allowed: {', '.join(repr(u) for u in LAYOUT_UNITS[value])})"
        )
