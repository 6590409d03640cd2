"""The package's stages import only downward: core < backends < plan < job < verdict <
analysis < campaign (the registry of backends declares facts every stage above asks
about, and imports only core); a module imports from its own stage or a lower one, at module level (an
import inside a function would hide a circle). Each import inside a function is
named in DEFERRED with its reason: it loads a heavy library late, it closes no circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "workflow" / "ciphersweep"
FLOORS = ("core", "backends", "plan", "job", "verdict", "analysis", "campaign")
CHECKED = FLOORS
# (module, import inside a function) -> why it waits
DEFERRED = {
    ("analysis/plots/trend.py", "ciphersweep.analysis.plots.style"): (
        "matplotlib (about a second) is imported in the process that draws the trend "
        "plot, not at every parse (the workflow imports the history package, which "
        "names the trend's figure)"
    ),
    ("plan/sweep.py", "ciphersweep.plan.user_kernels"): (
        "the user kernels' schema, YAML and build fingerprints are imported where the "
        "sweep is expanded, not in a process that only reads points (the drawing "
        "process unpickles them: a fortieth of a second of every run's drawing)"
    ),
}


def _modules(stage: str) -> list[Path]:
    return sorted((PACKAGE / stage).rglob("*.py"))


def _imports(tree: ast.AST) -> list[tuple[str, bool]]:
    """(imported ciphersweep module, whether the import sits inside a function)."""
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            if isinstance(child, ast.ImportFrom) and child.module:
                names = [child.module] + [
                    f"{child.module}.{a.name}" for a in child.names
                ]
                found.extend((n, inner) for n in names if n.startswith("ciphersweep."))
            elif isinstance(child, ast.Import):
                found.extend(
                    (a.name, inner)
                    for a in child.names
                    if a.name.startswith("ciphersweep.")
                )
            visit(child, inner)

    visit(tree, False)
    return found


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in FLOORS else None


def _deferred(where: str, module: str) -> bool:
    """An import named in DEFERRED (``from a.b import c`` names both ``a.b`` and
    ``a.b.c``)."""
    return any(w == where and d.startswith(module) for w, d in DEFERRED)


@pytest.mark.parametrize("stage", CHECKED)
def test_stage_imports_only_downward_at_module_level(stage: str) -> None:
    assert _modules(stage), f"no modules under {stage}/"
    bad = []
    for path in _modules(stage):
        for module, nested in _imports(ast.parse(path.read_text())):
            target = _stage(module)
            where = path.relative_to(PACKAGE)
            if nested and not _deferred(str(where), module):
                bad.append(f"{where}: imports {module} inside a function")
            if target and FLOORS.index(target) > FLOORS.index(stage):
                bad.append(f"{where}: imports {module} from a higher stage")
    assert bad == []


def test_the_checker_sees_an_upward_and_a_nested_import() -> None:
    src = "import ciphersweep.analysis.plots\ndef f():\n    from ciphersweep.core import paths\n"
    assert _imports(ast.parse(src)) == [
        ("ciphersweep.analysis.plots", False),
        ("ciphersweep.core", True),
        ("ciphersweep.core.paths", True),
    ]
    assert _stage("ciphersweep.analysis.plots") == "analysis"


def test_the_deferred_import_is_the_drawing_module_and_draw_imports_no_higher() -> None:
    """The deferred import names a module that exists, and what it loads late is only
    the drawing (it imports nothing from a stage above analysis)."""
    for where, module in DEFERRED:
        assert (PACKAGE / where).is_file()
        target = PACKAGE.parent / Path(*module.split("."))
        assert target.with_suffix(".py").is_file() or target.is_dir(), module
    assert not _deferred("analysis/plots/__init__.py", "ciphersweep.campaign")
