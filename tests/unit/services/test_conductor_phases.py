"""A tick's phases are named in one list, `services/conductor/tick.py` `PHASES`, and every place
that names them agrees with it (docs/architecture.md "How to add a conductor phase"): the `run`
calls of `_phases`, the module's numbered list of what each phase does, `oms conductor tick --help`
and README's tour. A newcomer who adds a phase is sent here by the first of them they forget; the
fleet tests and the tick bench read `PHASES` itself."""

from __future__ import annotations

import ast
import inspect
import re

from oms.cli import conductor_cmds
from oms.services.conductor import tick as conductor
from tests.helpers import REPO


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.replace("\n", " ").split(",")]


def test_the_tick_runs_its_phases_in_the_order_phases_names() -> None:
    (function,) = ast.parse(inspect.getsource(conductor._phases)).body  # (the tick's phases)
    assert isinstance(function, ast.FunctionDef)
    runs = [
        statement.value.args[0].value
        for statement in function.body  # tick's own statements, in the order they run
        if isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Name)
        and statement.value.func.id == "run"
        and isinstance(statement.value.args[0], ast.Constant)
    ]
    assert runs == list(conductor.PHASES)


def test_the_module_docstring_numbers_every_phase_in_order() -> None:
    doc = conductor.__doc__ or ""
    listed = re.findall(r"^(\d+)\. ([a-z-]+) —", doc, re.MULTILINE)
    assert [int(n) for n, _ in listed] == list(range(1, len(listed) + 1))
    assert [name for _, name in listed] == list(conductor.PHASES)


def test_the_tick_help_names_every_phase_in_order() -> None:
    doc = inspect.getdoc(conductor_cmds.tick) or ""
    said = re.search(r"Phases, in order: ([^.]*)\.", doc)
    assert said is not None, doc
    assert _names(said.group(1)) == list(conductor.PHASES)


def test_the_readme_tour_names_every_phase_in_order() -> None:
    readme = (REPO / "README.md").read_text()
    said = re.search(r"# one idempotent pass: ((?:[a-z-]+,\s*(?:#\s*)?)*[a-z-]+)\n", readme)
    assert said is not None
    assert _names(said.group(1).replace("#", "")) == list(conductor.PHASES)
