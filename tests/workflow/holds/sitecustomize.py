"""Holds a workflow stage in progress, for the interruption tests: put on PYTHONPATH
with ``CIPHERSWEEP_TEST_HOLD=KIND:WHAT:STARTED:RELEASE``, it makes the Python
processes started so wait, after creating the file STARTED, until the file RELEASE
exists:

- ``write:SUFFIX``: every set of outputs written through
  ``ciphersweep.core.atomic.replacing`` that names a path ending in SUFFIX, once its
  temporary files are written in full, before they are renamed into place;
- ``call:MODULE.FUNCTION``: each call of that function of a module (ciphersweep's,
  or Snakemake's), before it runs.

Nothing else changes."""

from __future__ import annotations

import functools
import importlib.abc
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any


class _Hold:
    def __init__(self, started: str, release: str) -> None:
        self.started, self.release = started, release

    def __call__(self) -> None:
        open(self.started, "w").close()
        while not os.path.exists(self.release):
            time.sleep(0.02)


def _hold_write(module: ModuleType, suffix: str, hold: _Hold) -> None:
    original = module.replacing

    @contextmanager
    def replacing(paths: Sequence[Any]) -> Iterator[Any]:
        with original(paths) as tmps:
            yield tmps
            if any(str(p).endswith(suffix) for p in paths):
                hold()

    module.replacing = replacing


def _hold_call(module: ModuleType, name: str, hold: _Hold) -> None:
    original: Callable[..., Any] = getattr(module, name)

    @functools.wraps(original)
    def held(*args: Any, **kwargs: Any) -> Any:
        hold()
        return original(*args, **kwargs)

    setattr(module, name, held)


class _Finder(importlib.abc.MetaPathFinder):
    """Patches ``target`` as it is imported."""

    def __init__(self, target: str, patch: Callable[[ModuleType], None]) -> None:
        self.target, self.patch = target, patch

    def find_spec(
        self, name: str, path: Any, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != self.target:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is None or spec.loader is None:
                continue
            run = spec.loader.exec_module

            def exec_module(module: ModuleType, run: Any = run) -> None:
                run(module)
                self.patch(module)

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec
        return None


def _install(setting: str) -> None:
    kind, what, started, release = setting.split(":")
    hold = _Hold(started, release)
    if kind == "write":
        finder = _Finder(
            "ciphersweep.core.atomic", lambda m: _hold_write(m, what, hold)
        )
    else:
        module, name = what.rsplit(".", 1)
        finder = _Finder(module, lambda m: _hold_call(m, name, hold))
    sys.meta_path.insert(0, finder)


if os.environ.get("CIPHERSWEEP_TEST_HOLD"):
    _install(os.environ["CIPHERSWEEP_TEST_HOLD"])
