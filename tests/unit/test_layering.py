"""Mechanical layering rules beyond import-linter (ADR 0001):
files are opened only in oms/fsio, processes started only in oms/process, no shells anywhere."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO

PACKAGE = REPO / "oms"
# Read-only package data is the one allowed exception (importlib.resources, in the schemas loader).


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _calls(tree: ast.AST) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                out.append((node.lineno, func.id))
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                out.append((node.lineno, f"{func.value.id}.{func.attr}"))
    return out


def test_files_are_opened_only_in_fsio() -> None:
    offenders = []
    for path in _modules():
        rel = path.relative_to(REPO).as_posix()
        if rel.startswith("oms/fsio/"):
            continue
        for line, name in _calls(ast.parse(path.read_text())):
            if name in {
                "open",
                "os.open",
                "io.open",
                "os.fdopen",
                "os.mkdir",
                "os.makedirs",
                "os.unlink",
                "os.remove",
                "os.rename",
                "os.replace",
                "os.symlink",
                "os.link",
                "os.chmod",
            }:
                offenders.append(f"{rel}:{line}: {name}")
    assert offenders == []


def test_processes_are_started_only_in_process() -> None:
    offenders = []
    for path in _modules():
        rel = path.relative_to(REPO).as_posix()
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                )
                if any(
                    n.split(".")[0] in {"subprocess", "multiprocessing", "pty"} for n in names
                ) and not rel.startswith("oms/process/"):
                    offenders.append(f"{rel}:{node.lineno}: imports {names}")
        for line, name in _calls(tree):
            if name in {
                "os.system",
                "os.popen",
                "os.execv",
                "os.execvp",
                "os.execve",
                "os.spawnv",
                "os.fork",
                "os.posix_spawn",
            }:
                offenders.append(f"{rel}:{line}: {name}")
    assert offenders == []


def test_no_shell_true_anywhere() -> None:
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.keyword) and node.arg == "shell":
                raise AssertionError(f"{path}: shell= keyword")


def test_nothing_but_the_boundary_exits() -> None:
    offenders = []
    for path in _modules():
        rel = path.relative_to(REPO).as_posix()
        for line, name in _calls(ast.parse(path.read_text())):
            if name in {"sys.exit", "exit", "quit", "os._exit"}:
                offenders.append(f"{rel}:{line}: {name}")
    assert offenders == []
