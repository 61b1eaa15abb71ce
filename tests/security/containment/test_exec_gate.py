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

from oms.adapters import cgroups
from oms.adapters.sandbox import exec_marked
from oms.canonical import now
from oms.domain.cgroups import identity
from oms.store import StateRoot
from tests.helpers import eventually, oms_command, stays
from tests.integration.test_supervise import ON_NINE, _ended, _spec, _supervise

KILLED = "dsp-gate-killed"  # (a dispatch id of its own: its sandbox's cgroup is named by it)
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
    _spec(state, worktree, ["/bin/sh", "-c", probe], dispatch_id="dsp-gate-fds")
    assert _supervise(state, "dsp-gate-fds") == 0
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
    _spec(state, worktree, ["/bin/sh", "-c", "echo ran > ran.txt"], dispatch_id="dsp-gate-rec")
    (state / "panes" / "dsp-gate-rec.init.json").mkdir()
    _supervise(state, "dsp-gate-rec")
    assert not (worktree / "ran.txt").exists(), "the agent ran with no record of its init"
    assert _ended(state, "dsp-gate-rec")["status"] != 0


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


def _end_all(token: str, dispatch_id: str) -> None:
    """SIGKILL, by PID, every process of this sandbox until none is left (a would-be init orphaned
    by bubblewrap#633 may show only after a first pass), then remove its cgroup, as `oms worker
    stop` does for a supervisor killed outright."""

    def gone() -> bool:
        left = _with_token(token.encode())
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return not left

    eventually(gone, timeout=10, what=f"the sandbox of {token} is gone")
    assert cgroups.remove_left(identity("worker", dispatch_id), 10.0)


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
    ran_rounds = orphans = 0
    for n in range(24):
        base = tmp_path / f"r{n}"
        worktree = base / "wt"
        worktree.mkdir(parents=True)
        state = base / "state"
        StateRoot.create(str(state), now())[0].close()
        token = f"600.{n}{rng.randrange(10**6)}"
        script = f"echo ran > ran.txt; exec sleep {token}"
        killed = f"{KILLED}-{n}"
        _spec(state, worktree, ["/bin/sh", "-c", script], dispatch_id=killed)
        argv = [*oms_command().argv, "worker", "supervise", "--dispatch-id", killed]
        proc = subprocess.Popen(
            [*argv, "--state-root", str(state)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            while not _children(proc.pid):  # spin: the window is bubblewrap's first moments
                assert proc.poll() is None, f"{n}: the supervisor ended: {_log(state, killed)}"
            until = time.monotonic() + rng.uniform(0, 0.004 if n % 2 else 0.04)
            while time.monotonic() < until:  # the kill point (a spin, not a synchronisation)
                pass
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            eventually(
                lambda: "sleep" not in map(_comm, _with_token(token.encode())),  # noqa: B023
                timeout=10,
                what=f"round {n}: the agent ends with its supervisor",
            )
            ran = (worktree / "ran.txt").exists()
            recorded = (state / "panes" / f"{killed}.init.json").exists()
            assert recorded or not ran, f"round {n}: the agent ran, its init unrecorded"
            ran_rounds += ran
            orphans += bool(_with_token(token.encode()))  # bubblewrap#633's would-be init
        finally:
            _end_all(token, killed)
    print(f"of 24 launches: {ran_rounds} agents started, {orphans} left an orphan that waited")


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
    dispatch_id = f"dsp-gate-{then.name.lower()}"
    script = f"echo ran > ran.txt; exec sleep {token}"
    _spec(state, worktree, ["/bin/sh", "-c", script], dispatch_id=dispatch_id)
    argv = [*oms_command().argv, "worker", "supervise", "--dispatch-id", dispatch_id]
    proc = subprocess.Popen(
        [*argv, "--state-root", str(state)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
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
            assert (state / "panes" / f"{dispatch_id}.init.json").exists()  # recorded first
    finally:
        _end_all(token, dispatch_id)
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _log(state: Path, dispatch_id: str) -> str:
    """What the supervisor logged, and the end it recorded."""
    found = [p.read_text(errors="replace")[-2000:] for p in sorted(state.rglob("*.log"))]
    exit_doc = state / "panes" / f"{dispatch_id}.exit.json"
    return " | ".join([*found, exit_doc.read_text() if exit_doc.exists() else "no end"])


def test_a_supervisor_with_no_one_digit_descriptor_free_starts_no_ungated_agent(
    state: Path, tmp_path: Path
) -> None:
    """The gate needs a descriptor below 10 (all a `/bin/sh` redirection takes). A supervisor
    started holding 3-9 (a launcher that leaks descriptors) started its agent ungated, so a kill
    during bubblewrap's set-up could leave an agent running again. Now it starts nothing, and says
    why."""
    worktree = tmp_path / "wt"
    worktree.mkdir()
    _spec(state, worktree, ["/bin/sh", "-c", "echo ran > ran.txt"], dispatch_id="dsp-gate-fd10")
    argv = [*oms_command().argv, "worker", "supervise", "--dispatch-id", "dsp-gate-fd10"]
    leaky = (
        "exec 3</dev/null 4</dev/null 5</dev/null 6</dev/null 7</dev/null 8</dev/null 9</dev/null"
    )
    subprocess.run(  # a launcher that leaves 3..9 open
        ["/bin/sh", "-c", f'{leaky}; exec "$@"', "sh", *argv, "--state-root", str(state)],
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    assert not (worktree / "ran.txt").exists(), "the agent started with no exec gate"
    assert "exec gate" in str(_ended(state, "dsp-gate-fd10")["detail"])
