"""Attacks on the exec gate (`adapters/sandbox.exec_marked`, `supervisor/supervise._asked`,
`_release`, `_shut`): the sandbox's command waits behind `/bin/sh -c 'printf s >&9 && read -r go
<&9 && exec 9>&- && exec "$0" "$@"; exit 125'` for the `go` its supervisor sends once it recorded
the sandbox's init. Claim: the agent never runs unless its supervisor recorded the init, and never
once the supervisor is gone; the gate passes any argv on exactly; the agent inherits no end of it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oms.adapters.sandbox import exec_marked
from oms.canonical import now
from oms.store import StateRoot
from tests.integration.test_supervise import ON_NINE, _ended, _spec, _supervise

ECHO = "import json, sys; sys.stdout.write(json.dumps(sys.argv[1:]))"
ARG = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters="\0"), max_size=12
)  # anything an argv holds: quotes, newlines, `$`, a leading `-`


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state"
    StateRoot.create(str(path), now())[0].close()
    return path


def _through_gate(command: list[str], env: dict[str, str] | None = None) -> bytes:
    """Run `command` behind a real gate on descriptor 9, released at once: what it wrote."""
    ours, theirs = socket.socketpair()
    argv = exec_marked(tuple(command), 9)
    with theirs:
        proc = subprocess.Popen(
            [sys.executable, "-c", ON_NINE, str(theirs.fileno()), *argv],
            pass_fds=(theirs.fileno(),),
            stdout=subprocess.PIPE,
            env=env,
        )
    with ours:
        assert ours.recv(1) == b"s"
        ours.sendall(b"go\n")
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    return out


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(args=st.lists(ARG, max_size=5))
def test_the_gate_passes_any_argv_on_exactly(args: list[str]) -> None:
    """Arguments are arguments, never shell text: quotes, newlines, `$(...)`, a leading `-`."""
    out = _through_gate([sys.executable, "-c", ECHO, *args])
    assert json.loads(out) == args


@pytest.mark.parametrize("name", ["-x", "-c", "--", "+e", "-"])
def test_a_command_whose_name_starts_with_a_dash_still_runs(tmp_path: Path, name: str) -> None:
    """`exec "$0"` with a `$0` that looks like an option: dash takes it as the command."""
    tool = tmp_path / name
    tool.write_text('#!/bin/sh\nprintf \'%s|\' "$0" "$@"\n')
    tool.chmod(0o755)
    env = {"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    out = _through_gate([name, "-c", "a b"], env)
    assert out.endswith(b"|-c|a b|"), out


def test_the_agent_inherits_no_end_of_the_gate(state: Path, tmp_path: Path) -> None:
    """A real supervisor and sandbox: the agent's descriptors are its stdio and nothing else (the
    gate's end closed before its exec; bubblewrap's init keeps none of what it was passed)."""
    worktree = tmp_path / "wt"
    worktree.mkdir()
    probe = (
        "ls -l /proc/self/fd/ /proc/1/fd/ > fds.txt 2>&1; "
        "(printf x >&9) 2>/dev/null && echo on9 >> fds.txt; true"
    )
    _spec(state, worktree, ["/bin/sh", "-c", probe])
    assert _supervise(state) == 0
    seen = (worktree / "fds.txt").read_text()
    assert "socket:" not in seen, seen
    assert "on9" not in seen, seen


def test_an_init_its_supervisor_could_not_record_starts_no_agent(
    state: Path, tmp_path: Path
) -> None:
    """The record of the sandbox's init cannot be written (here a directory holds its name; a full
    disk or no descriptor left does the same): `observe` and `stop` could not find that init
    should the supervisor die, so the gate must not let the agent start (it did: the failure was
    logged and `go` sent anyway)."""
    worktree = tmp_path / "wt"
    worktree.mkdir()
    _spec(state, worktree, ["/bin/sh", "-c", "echo ran > ran.txt"])
    (state / "panes" / "dsp-1.init.json").mkdir()
    _supervise(state)
    assert not (worktree / "ran.txt").exists(), "the agent ran with no record of its init"
    assert _ended(state)["status"] != 0
