"""A session fixture has one home: a conftest, never a test module's import.

pytest gives each module that binds a fixture's function its own definition of that fixture, so a
session fixture imported into seventeen test modules is set up seventeen times in one pytest
process, and each instance lives to the end of the session. With `etcd_cluster` that was a
3-member etcd cluster per module, idle but beating: some 58 members at once in one CI run on two
busy cores. The walk finds each session (or package) fixture the tests define and fails on any
module but a conftest that imports one."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _scope(decorator: ast.expr) -> str | None:
    """The scope a `@pytest.fixture(scope=...)` decorator names; None for anything else."""
    if not isinstance(decorator, ast.Call):
        return None
    func = decorator.func
    if not (isinstance(func, ast.Attribute) and func.attr == "fixture"):
        return None
    for keyword in decorator.keywords:
        if keyword.arg == "scope" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    return "function"


def _wide_fixtures(trees: dict[Path, ast.Module]) -> set[str]:
    return {
        node.name
        for tree in trees.values()
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(_scope(d) in ("session", "package") for d in node.decorator_list)
    }


def imports_of_wide_fixtures(root: Path) -> list[str]:
    """Each `module: name` where a module other than a conftest imports a session fixture."""
    trees = {p: ast.parse(p.read_text(), str(p)) for p in sorted(root.rglob("*.py"))}
    wide = _wide_fixtures(trees)
    found: list[str] = []
    for path, tree in trees.items():
        if path.name == "conftest.py":
            continue
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                found.extend(
                    f"{path.relative_to(root)}: {alias.asname or alias.name}"
                    for alias in node.names
                    if alias.name in wide
                )
    return found


def test_the_walk_finds_a_session_fixture_imported_into_a_module(tmp_path: Path) -> None:
    (tmp_path / "rig.py").write_text(
        "import pytest\n\n@pytest.fixture(scope='session')\ndef big() -> None: ...\n"
    )
    (tmp_path / "conftest.py").write_text("from rig import big\n")
    (tmp_path / "test_a.py").write_text("from rig import big\n")
    assert imports_of_wide_fixtures(tmp_path) == ["test_a.py: big"]


def test_no_test_module_imports_a_session_fixture() -> None:
    assert imports_of_wide_fixtures(TESTS) == []
