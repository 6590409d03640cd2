"""What the rest of the package asks about a backend, declared once per backend (one
module of :mod:`ciphersweep.backends` each): its kind, the impls it accepts, how its
points are made and named, what its launch needs, what its fingerprint holds, how its
rows are labelled, what its runs cost.

The registry sits between ``core`` and ``plan``: it declares facts and imports only
``core``, so the plan, the jobs, the verdicts and the analysis all ask it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# kinds of backends: an aes-<name> binary built by scripts/build-kernels.sh, a module of
# this package run by the workflow's Python, a program timed as a whole process, a
# user's own kernel (docs/kernel-contract.md)
KINDS = ("native", "python", "command", "user")
# the AES impls of the C kernels' dispatch (kernels/src/aes.h)
CPU_IMPLS = ("auto", "ref", "ttable", "aesni", "vaes256", "vaes")


@dataclass(frozen=True)
class Backend:
    """One backend (built-in or the user's kernels) as the package sees it."""

    name: str
    kind: str
    order: int  # its place in the campaign's backends, the sweep and the tables
    impls: tuple[str, ...] = ()  # what its --impl accepts (empty: not checked here)
    # a module of ciphersweep.job run as `python -m` (kind python, command, user)
    kernel_module: str | None = None
    # its rows are named by their cipher (openssl aes-128-ctr), not by an AES kernel's
    # impl family and shape; it has no speedup against the sequential kernel
    named: bool = False
    # its config section holds `ciphers` (lower-cased, key_bits apply)
    cipher_list: bool = False
    # its records name the cipher's mode as its library does (not checked)
    library_mode: bool = False
    # its kernel takes --cipher (and --key-bits); --impl too when impl_flag
    cipher_flag: bool = False
    impl_flag: bool = False
    # the impl named after the backend, left out of its point ids and labels
    own_impl: str | None = None
    # start-up seconds of its kernel: once per point, or per run (start_per_run)
    start_s: float = 0.0
    start_per_run: bool = False
    # impl -> conservative single-core bytes/s for the time estimates
    rates: Mapping[str, float] = field(default_factory=dict)
    # impl -> the kind of implementation (plan.impl_kinds); "" -> every impl
    impl_kinds: Mapping[str, str] = field(default_factory=dict)
    # the code-path traits of its kernels (backends.codepath): impl -> traits; ""
    # every impl; None: unknown (a user's kernel reads every switch)
    traits: Mapping[str, tuple[str, ...]] | None = field(default_factory=dict)
    # the libraries doing its work: impl ("" = every impl) -> (name, module)
    libraries: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # a native backend whose work a shared library does, loaded at run time: its name
    native_library: str | None = None
    # runs natively only (not in a container image)
    native_only: bool = False
    # when its kernel starts under the MPI launcher: never, always, or with ranks > 1
    mpi: str = "never"
    # the impls its points are made of for one cipher (None: the config's impls)
    impls_for: Callable[[str, Mapping[str, Any]], list[str]] | None = None
    # the row label of a point before the distinguishing extras (None: the default)
    label: Callable[[Any, bool], str] | None = None
    # its kernel's own flags for a point: of its shape (before --energy), and last
    shape_args: Callable[[Any], list[str]] | None = None
    tail_args: Callable[[Any], list[str]] | None = None
    # its section of the campaign file (``backends.<name>``): a JSON Schema fragment,
    # put into workflow/schemas/config.schema.yaml when the schema is loaded
    config: Mapping[str, Any] = field(default_factory=dict)

    def traits_of(self, impl: str) -> tuple[str, ...] | None:
        """The code-path traits of its ``impl`` (None: every switch)."""
        if self.traits is None:
            return None
        return (*self.traits.get("", ()), *self.traits.get(impl, ()))

    def libraries_of(self, impl: str) -> tuple[tuple[str, str], ...]:
        """(name, module) of the libraries its ``impl`` works with."""
        return self.libraries.get(impl) or self.libraries.get("", ())

    def kind_of(self, impl: str) -> str | None:
        """The kind of implementation ``impl`` is (None: not declared here)."""
        return self.impl_kinds.get(impl) or self.impl_kinds.get("")


def count(n: int, word: str) -> str:
    """``1 rank``, ``16 ranks``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def section(properties: Mapping[str, Any], **more: Any) -> dict[str, Any]:
    """A backend's section of the campaign file (``backends.<name>``, JSON Schema): an
    object of ``properties`` and nothing else, or null (the backend's defaults)."""
    return {
        "type": ["object", "null"],
        "additionalProperties": False,
        **more,
        "properties": dict(properties),
    }


def axis(
    kind: str | Mapping[str, Any], default: list[Any] | None = None, **more: Any
) -> dict[str, Any]:
    """A list the sweep runs over (impls, threads, ranks, ...): at least one item of
    ``kind`` (``string``, ``integer``, or the schema of an item, e.g. an enum),
    ``default`` (if any) when the section leaves it out."""
    items = {"type": kind} if isinstance(kind, str) else dict(kind)
    found: dict[str, Any] = {"type": "array", "minItems": 1, "items": items}
    if default is not None:
        found["default"] = default
    return {**found, **more}
