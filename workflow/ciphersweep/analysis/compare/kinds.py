"""Is each side of a claim measured on the kind of implementation the study's was? A
side (``faster``, ``slower``, an item of ``order``, the ``where`` of a stated value)
names the study's kind with ``kind:`` (one kind or a list), or the claim's ``where``
does for every side; the points the side selects here have the kinds
:mod:`ciphersweep.plan.impl_kinds` declares for their backend and impl. A side whose
points include another kind is not comparable, with the reason."""

from __future__ import annotations

from typing import Any

from ciphersweep.analysis.compare.sources import matching, selector
from ciphersweep.analysis.tables.model import Context
from ciphersweep.plan.impl_kinds import claim_sides, kind_of, stated_kinds


def _label(side: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in selector(side).items()) or "every point"


def mismatch(ctx: Context, c: dict[str, Any]) -> str | None:
    """'not comparable: <side> is <kinds measured> here, the study's was <kind>' for the
    first side whose points include a kind it does not name; None when every side's
    do (or names none)."""
    where = c.get("where", {})
    for side in claim_sides(c):
        want = stated_kinds(side, where)
        if not want:
            continue
        impls: dict[str, set[str]] = {}
        for p in matching(ctx.points, {**selector(where), **selector(side)}):
            kind = kind_of(p.backend, p.impl) or "chosen at run time"
            impls.setdefault(kind, set()).add(p.impl)
        if set(impls) <= set(want):
            continue
        got = ", ".join(
            f"{k} ({', '.join(sorted(v))})" for k, v in sorted(impls.items())
        )
        return (
            f"not comparable: {_label(side)} is {got} here, "
            f"the study's was {' or '.join(want)}"
        )
    return None
