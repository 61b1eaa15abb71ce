"""The paths a launch writes on a command line, which must be printable ASCII (ADR 0031).

A worker's pane runs `exec '<oms>' worker supervise ... --state-root '<state root>'`, and its
agent's hooks and MCP bridge name the oms executable and its worktree: every word oms writes
there is printable ASCII (`adapters/quoting.py`: a byte outside it is refused, not quoted). A
state root, a worktrees directory or an oms installed under a path with another character was
refused only at delivery, after the advisor had been paid. `problems` names each such path and
its fix; `oms init` refuses with it before it makes anything, `oms doctor` shows it, `oms ticket
lease` refuses it, and the conductor waits for a person before any model call
(`services/conductor/preflight.py`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from oms.domain.config import CONFIG_PATH, Config, worktrees_directory
from oms.errors import OmsError, StateRootError, shown
from oms.process import oms_executable
from oms.store import sandboxes


@dataclass(frozen=True, slots=True)
class PathProblem:
    """A path a launch would refuse: what it is, the path, and what to do."""

    what: str
    path: str
    fix: str

    def line(self) -> str:
        """One line: the path (escaped) and why."""
        return f"the {self.what} {shown(self.path)} has a character that is not printable ASCII"


def printable(path: str) -> bool:
    """Printable ASCII only: what a command line oms writes may hold."""
    return all(0x20 <= ord(c) <= 0x7E for c in path)


def problems(
    state_path: str,
    config_root: str | None,
    config: Config | None,
    env: Mapping[str, str] | None = None,
) -> list[PathProblem]:
    """Every path a launch from this state root and repository would refuse (none: it may run)."""
    env = os.environ if env is None else env
    out: list[PathProblem] = []
    state = os.path.abspath(state_path)
    for path in dict.fromkeys((state, os.path.realpath(state))):
        if not printable(path):
            fix = "make the state root where its path is printable ASCII (`oms init --state-root`)"
            out.append(PathProblem("state root", path, fix))
            break
    chosen = env.get(sandboxes.ENV)
    if chosen and not printable(chosen):
        fix = f"set {sandboxes.ENV} to a path of printable ASCII before the first launch"
        out.append(PathProblem("sandbox directory", chosen, fix))
    if config_root is not None and config is not None:
        directory = worktrees_directory(config, config_root)
        if not printable(directory):
            fix = f'set [worktrees] directory = "<a path of printable ASCII>" in {CONFIG_PATH}'
            out.append(PathProblem("worktrees directory", directory, fix))
    try:
        executable = oms_executable(env)
    except OmsError:
        return out  # none to find: the launch says so itself
    if not printable(executable):
        fix = "install oms where its path is printable ASCII (or set OMS_EXECUTABLE to such a copy)"
        out.append(PathProblem("oms executable", executable, fix))
    return out


def refuse(
    state_path: str,
    config_root: str | None,
    config: Config | None,
    env: Mapping[str, str] | None = None,
) -> None:
    """`StateRootError` naming the first path a launch would refuse, and its fix."""
    found = problems(state_path, config_root, config, env)
    if found:
        raise StateRootError(found[0].line(), hint=found[0].fix)
