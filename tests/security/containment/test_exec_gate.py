"""Attacks on the exec gate (`adapters/sandbox.exec_marked`, `supervisor/supervise._asked`,
`_release`, `_shut`): the sandbox's command waits behind `/bin/sh -c 'printf s >&9 && read -r go
<&9 && exec 9>&- && exec "$0" "$@"; exit 125'` for the `go` its supervisor sends once it recorded
the sandbox's init. Claim: the agent never runs unless its supervisor recorded the init, and never
once the supervisor is gone; the gate passes any argv on exactly; the agent inherits no end of it.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oms.adapters.sandbox import exec_marked
from oms.canonical import now
from oms.store import StateRoot
from tests.helpers import eventually, oms_command, stays
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


def _with_token(token: bytes) -> list[int]:
    """The live processes whose command line holds `token` (this round's bubblewrap, gate and
    agent: the script names it)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = f.read()
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if token in argv and state not in (b"Z", b"X"):
            found.append(int(name))
    return found


def _children(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return bool(f.read().split())
    except OSError:
        return False


def test_a_supervisor_killed_anywhere_in_its_launch_never_leaves_an_agent(
    tmp_path: Path,
) -> None:
    """A real supervisor SIGKILLed at a random point from the moment it starts bubblewrap to well
    after its agent started (before, during and after bubblewrap's set-up, between the gate's byte
    and `go`): an agent that ran had its init recorded first, and no agent outlives its
    supervisor. (A would-be init orphaned by bubblewrap's own race may stay, blocked: `oms worker
    stop` ends it, `test_kill_anywhere.py`; this test kills it by PID.)"""
    rng = random.Random("exec-gate-kill")
    ran_rounds = 0
    for n in range(24):
        base = tmp_path / f"r{n}"
        worktree = base / "wt"
        worktree.mkdir(parents=True)
        state = base / "state"
        StateRoot.create(str(state), now())[0].close()
        token = f"600.{n}{rng.randrange(10**6)}"
        _spec(state, worktree, ["/bin/sh", "-c", f"echo ran > ran.txt; exec sleep {token}"])
        argv = [*oms_command().argv, "worker", "supervise", "--dispatch-id", "dsp-1"]
        proc = subprocess.Popen(
            [*argv, "--state-root", str(state)], stdin=subprocess.DEVNULL, start_new_session=True
        )
        try:
            eventually(lambda: _children(proc.pid), timeout=60, what="bubblewrap starts")  # noqa: B023
            until = time.monotonic() + rng.uniform(0, 0.004 if n % 2 else 0.04)
            while time.monotonic() < until:  # the kill point (a spin, not a synchronisation)
                pass
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            ran = (worktree / "ran.txt").exists()
            recorded = (state / "panes" / "dsp-1.init.json").exists()
            assert recorded or not ran, f"round {n}: the agent ran, its init unrecorded"
            ran_rounds += ran

            def agent_gone() -> bool:
                return not any(
                    b"sleep" in Path(f"/proc/{pid}/comm").read_bytes()
                    for pid in _with_token(token.encode())  # noqa: B023
                    if Path(f"/proc/{pid}").exists()
                )

            eventually(agent_gone, timeout=10, what=f"round {n}: the agent ends with it")
        finally:
            for pid in _with_token(token.encode()):  # an orphan of bubblewrap#633, by PID
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
    print(f"{ran_rounds} of 24 agents started before their supervisor was killed")


@pytest.mark.parametrize("then", [signal.SIGKILL, signal.SIGCONT])
def test_a_supervisor_stopped_as_its_sandbox_starts_holds_its_agent_back(
    state: Path, tmp_path: Path, then: signal.Signals
) -> None:
    """SIGSTOP the supervisor the moment it has started bubblewrap: the sandbox sets itself up,
    but its agent waits at the gate while the supervisor cannot record the init (before the gate
    it ran at once, its init unrecorded). Killed then, it never starts; continued, it starts."""
    worktree = tmp_path / "wt"
    worktree.mkdir()
    token = f"600.{os.getpid()}{then.value}"
    _spec(state, worktree, ["/bin/sh", "-c", f"echo ran > ran.txt; exec sleep {token}"])
    argv = [*oms_command().argv, "worker", "supervise", "--dispatch-id", "dsp-1"]
    proc = subprocess.Popen(
        [*argv, "--state-root", str(state)], stdin=subprocess.DEVNULL, start_new_session=True
    )
    try:
        while not _children(proc.pid):  # spin: stop it within its first moments of bubblewrap
            if proc.poll() is not None:
                raise AssertionError("the supervisor ended before it started bubblewrap")
        os.kill(proc.pid, signal.SIGSTOP)
        eventually(
            lambda: len(_with_token(token.encode())) >= 2, timeout=30, what="the sandbox is up"
        )
        stays(lambda: not (worktree / "ran.txt").exists(), seconds=1.0, what="the agent waits")
        os.kill(proc.pid, then)
        if then == signal.SIGKILL:
            proc.wait(timeout=30)
            eventually(
                lambda: not [p for p in _with_token(token.encode()) if _comm(p) != "bwrap"],
                timeout=10,
                what="the gate ends with its supervisor",
            )
            assert not (worktree / "ran.txt").exists()
        else:
            eventually((worktree / "ran.txt").exists, timeout=30, what="it starts")
            assert (state / "panes" / "dsp-1.init.json").exists()  # recorded first
    finally:
        for pid in _with_token(token.encode()):  # by PID: this test's own sandbox
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
