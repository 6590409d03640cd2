"""The registry of backends is the one place a backend is declared: every backend of
the campaign schema and the record schema has its module, and a built-in Python
backend is named nowhere else under workflow/ but in its kernel and the two schemas."""

from __future__ import annotations

import pytest
import yaml
from ciphersweep import backends
from ciphersweep.backends.base import KINDS
from ciphersweep.plan import config_backends, schema, sweep
from support import ROOT

WORKFLOW = ROOT / "workflow"
SCHEMAS = WORKFLOW / "schemas"


def test_every_backend_is_declared_once_in_order() -> None:
    names = [b.name for b in backends.ALL]
    assert len(set(names)) == len(names) and names[0] == "seq"
    assert [b.order for b in backends.ALL] == sorted(b.order for b in backends.ALL)
    assert all(b.kind in KINDS for b in backends.ALL)
    for b in backends.ALL:  # its module is named after it
        assert type(b).__module__ == "ciphersweep.backends.base"
        assert (WORKFLOW / "ciphersweep" / "backends" / f"{b.name}.py").is_file()
    assert config_backends.BACKENDS == backends.NAMES


def test_the_schemas_name_the_registrys_backends() -> None:
    """The campaign schema's backend sections are the registry's own (each module's
    ``config``; the YAML file names none), the record schema names every backend."""
    config = yaml.safe_load((SCHEMAS / "config.schema.yaml").read_text())
    assert config["properties"]["backends"]["properties"] == {}
    loaded = schema.schema()["properties"]["backends"]["properties"]
    assert loaded == {b.name: dict(b.config) for b in backends.ALL}
    assert all(b.config.get("type") == ["object", "null"] for b in backends.ALL)
    record = yaml.safe_load((SCHEMAS / "record.schema.yaml").read_text())
    assert set(record["properties"]["backend"]["enum"]) == set(backends.NAMES)


def test_kernels_that_are_modules_exist() -> None:
    for b in backends.ALL:
        if b.kernel_module is not None:
            path = WORKFLOW / "ciphersweep" / "job" / f"{b.kernel_module}.py"
            assert path.is_file(), b.name
        assert (b.kernel_module is None) == (b.kind == "native"), b.name


@pytest.mark.parametrize("name", backends.names("python"))
def test_a_python_backend_is_named_in_three_files(name: str) -> None:
    """Its registry module (with its campaign section), its kernel and the record
    schema."""
    found = sorted(
        str(f.relative_to(WORKFLOW))
        for f in WORKFLOW.rglob("*")
        if f.suffix in (".py", ".smk", ".yaml", ".json")
        and "__pycache__" not in f.parts
        and name in f.read_text(errors="replace").lower()
    )
    assert found == sorted(
        [
            f"ciphersweep/backends/{name}.py",
            f"ciphersweep/job/kernel_{name}.py",
            "schemas/record.schema.yaml",
        ]
    )


def test_point_ids_and_launch_needs_come_from_the_registry() -> None:
    own = {b.name: b.own_impl for b in backends.ALL if b.kind == "python"}
    for name, impl in own.items():
        pid = sweep.point_id(
            name, impl, "ecb", "encrypt", "aes-128-ecb", "1KiB", 1, 1, 0, None
        )
        assert pid == f"{name}-aes-128-ecb-enc-1KiB-r1-t1"
        other = sweep.point_id(
            name, "x", "ecb", "encrypt", "aes-128-ecb", "1KiB", 1, 1, 0, None
        )
        assert other == f"{name}-x-aes-128-ecb-enc-1KiB-r1-t1"
    assert backends.get("mpi").mpi == "always" and backends.get("user").mpi == "ranks"
    assert backends.where(mpi="never") == tuple(
        n for n in backends.NAMES if n not in ("mpi", "user")
    )
