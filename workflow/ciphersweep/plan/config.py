"""Campaign configuration: schema validation, defaults and semantic checks.

Every problem is reported as ONE :class:`ConfigError` whose message names the key path
and what is allowed; the workflow turns it into a one-line error with no traceback.
The schema and its defaults live in :mod:`ciphersweep.plan.schema`, the checks of the
backends in :mod:`ciphersweep.plan.config_backends`, those of the other sections in
:mod:`ciphersweep.plan.config_sections`; :func:`validate` runs them in order.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from ciphersweep.core import yamlfile
from ciphersweep.plan import (
    config_backends,
    config_checks,
    config_sections,
    user_kernels,
)
from ciphersweep.plan import schema as cs_schema
from ciphersweep.plan.config_backends import (
    AEAD_IMPLS,
    BACKENDS,
    CPU_IMPLS,
    CUDA_IMPLS,
    KERNEL_BINARIES,
    PY_BACKENDS,
)
from ciphersweep.plan.config_sections import SHELL_META
from ciphersweep.plan.schema import SCHEMA_PATH, ConfigError, schema
from ciphersweep.plan.schema import fail as _fail

__all__ = [
    "AEAD_IMPLS",
    "BACKENDS",
    "CPU_IMPLS",
    "CUDA_IMPLS",
    "KERNEL_BINARIES",
    "PY_BACKENDS",
    "SCHEMA_PATH",
    "SHELL_META",
    "ConfigError",
    "format_error",
    "load_file",
    "schema",
    "validate",
]


def validate(
    raw: dict[str, Any], root: str | Path = ".", workdir: str | Path = "."
) -> dict[str, Any]:
    """Validate a campaign config and return a normalised copy (defaults filled in).

    ``root`` is the project directory (recipes are looked up there), ``workdir`` the
    directory relative paths (input files) are resolved against.
    """
    cfg = copy.deepcopy(dict(raw))
    cs_schema.check(cfg)
    config_sections.check_strings(cfg, ())
    config_sections.check_finite(cfg, ())
    cs_schema.fill_defaults(cfg, schema())
    # before the names are normalised: it quotes the user's
    config_sections.check_duplicates(cfg)
    _problems(config_checks.normalise_ciphers, cfg)
    _problems(config_checks.check_flags, cfg["build"])
    _fill_backend_defaults(cfg)
    config_sections.check_precision(cfg)
    config_sections.check_batch(cfg)
    config_sections.check_sizes(cfg)
    config_sections.check_inputs(cfg, workdir)
    config_backends.check_python_backends(cfg)
    user_kernels.check(cfg, workdir)
    _problems(config_checks.check_key_bits, cfg)
    config_backends.check_native(cfg)
    config_sections.check_baseline(cfg, "baseline" in raw)
    config_sections.check_nopad(cfg)
    config_sections.check_tables_and_compare(cfg, root, workdir)
    config_sections.check_variants(cfg)
    config_sections.check_build_and_launcher(cfg, root, workdir)
    config_backends.check_aead(cfg["backends"].get("seq"))
    config_sections.check_container(cfg, root)
    config_sections.check_campaign(cfg)
    config_sections.check_history(cfg)
    return cfg


def _problems(check: Any, arg: Any) -> None:
    """Run one of :mod:`ciphersweep.plan.config_checks`; its Problem as a ConfigError."""
    try:
        check(arg)
    except config_checks.Problem as exc:
        raise _fail(exc.path, exc.msg) from None


def _fill_backend_defaults(cfg: dict[str, Any]) -> None:
    """Each enabled backend with its schema defaults; at least one is enabled."""
    backends = cfg["backends"]
    props = schema()["properties"]["backends"]["properties"]
    for name in BACKENDS:
        if backends.get(name) is not None:
            cs_schema.fill_defaults(backends[name], props[name])
    if not any(backends.get(b) is not None for b in BACKENDS):
        raise _fail("backends", f"no backend enabled (allowed: {', '.join(BACKENDS)})")


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
