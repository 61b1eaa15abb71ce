"""Launches that meet a pane they did not make, fail once the pane exists, or relaunch over a dead
pane (issue 11): real git, a real tmux server on the state root's private socket, a real command
worker."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from oms.adapters.activation import Witness
from oms.adapters.panes import TmuxPanes
from oms.adapters.providers.base import LaunchPlan
from oms.canonical import JsonObject
from oms.fsio.procinfo import group_alive
from oms.services.delivery.service import Delivery
from oms.services.supervisor import supervise
from tests.chain import Chain, accepted, use_worker, wait_for
from tests.helpers import eventually


class _Keys:
    """An `Activator` that records who it was asked to activate (a command worker needs no keys)."""

    def __init__(self) -> None:
        self.activated: list[str] = []

    def activate(self, plan: LaunchPlan, dispatch_id: str, witness: Witness) -> None:
        self.activated.append(dispatch_id)

    def interrupt(self, plan: LaunchPlan, dispatch_id: str) -> bool:
        return False

    def nudge(self, plan: LaunchPlan, dispatch_id: str, pressing: object = None) -> None:
        pass

    def say(self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness) -> str:
        return "typed"


def _tmux(chain: Chain, *args: str) -> subprocess.CompletedProcess[str]:
    sock, conf = str(chain.state / "tmux.sock"), str(chain.state / "tmux.conf")
    return subprocess.run(
        ["tmux", "-S", sock, "-f", conf, *args], capture_output=True, text=True, check=False
    )


def _other_launchers_pane(chain: Chain, dispatch_id: str) -> int:
    """A session another launcher has just made for `dispatch_id`, before it tagged its pane (what a
    concurrent `new-session` meets as "duplicate session"); the pid of its pane."""
    with chain.workspace() as ws:
        Delivery.open(ws).panes.list()  # oms writes its tmux.conf before its first tmux call
    made = _tmux(
        chain, "new-session", "-d", "-s", dispatch_id, "-c", str(chain.base), "exec sleep 600"
    )
    assert made.returncode == 0, made.stderr
    listed = _tmux(chain, "list-panes", "-t", f"={dispatch_id}:", "-F", "#{pane_pid}")
    return int(listed.stdout.split()[0])


def _deliver(chain: Chain, event_id: str, keys: _Keys | None = None) -> JsonObject:
    with chain.workspace() as ws:
        outcome = Delivery.open(ws, activator=keys).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    return outcome


def _wait_until(what: Callable[[], bool], timeout: float = 20.0) -> None:
    eventually(what, timeout=timeout)


def _processes_of(dispatch_id: str) -> list[int]:
    """Live processes whose command line or environment names `dispatch_id` (a pane's whole
    tree)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            seen = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except (OSError, IndexError):
            continue  # gone meanwhile, or not ours to read
        if dispatch_id.encode() in seen and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def _pane_list(chain: Chain) -> list[str]:
    with chain.workspace() as ws:
        return [p.dispatch_id for p in Delivery.open(ws).panes.list()]


# ---------------------------------------------------------------------- bug 1: "duplicate session"
def test_ensure_says_reused_for_a_session_another_launcher_made(deliverable: Chain) -> None:
    use_worker(deliverable)
    dispatch_id, _ = accepted(deliverable)
    pid = _other_launchers_pane(deliverable, dispatch_id)
    with deliverable.workspace() as ws:
        status, pane = Delivery.open(ws).panes.ensure(
            dispatch_id, argv=("sleep", "600"), cwd=str(deliverable.base)
        )
    assert (status, pane.pane_pid, pane.dead) == ("reused", pid, False)


def test_only_the_launcher_that_created_the_pane_types_the_instruction(deliverable: Chain) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    pid = _other_launchers_pane(deliverable, dispatch_id)
    keys = _Keys()
    outcome = _deliver(deliverable, event_id, keys)
    assert outcome["status"] == "reused"
    assert keys.activated == []  # the pane's creator types it, not this launcher
    assert group_alive(pid)


def test_the_launcher_that_created_the_pane_types_the_instruction(deliverable: Chain) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    keys = _Keys()
    assert _deliver(deliverable, event_id, keys)["status"] == "created"
    assert keys.activated == [dispatch_id]


# ---------------------------------------------------------------------- bug 2: half-launched worker
def test_a_failed_pane_registration_ends_the_pane_and_parks_naming_the_step(
    deliverable: Chain,
) -> None:
    out = use_worker(deliverable, "silent")
    dispatch_id, event_id = accepted(deliverable)
    registry = deliverable.state / "panes" / f"{dispatch_id}.json"
    registry.parent.mkdir(exist_ok=True)
    registry.write_text("{not a registry\n")
    registry.chmod(0o600)
    outcome = _deliver(deliverable, event_id)
    assert outcome["status"] == "parked"
    assert _pane_list(deliverable) == []  # ended: nothing is left half-launched
    _wait_until(lambda: not _processes_of(dispatch_id))
    assert str(outcome["reason"]).startswith("registering the pane failed: ")
    with deliverable.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        worker = ws.store.records("worker").read(dispatch_id)
        assert (
            ws.store.records("session").read_if_exists(str(dispatch.payload["session_id"])) is None
        )
    assert (dispatch.state, worker.state, worker.payload["health"]) == (
        "accepted",
        "idle",
        "parked",
    )
    assert str(worker.payload["health_reason"]).startswith("registering the pane failed")
    assert (
        registry.read_text() == "{not a registry\n"
    )  # not ours: kept for `oms store verify` to name
    registry.unlink()  # once it is gone, resume launches the parked worker
    with deliverable.workspace() as ws:
        view = Delivery.open(ws).resume(dispatch_id)
    assert (view["session_state"], view["pane_live"], view["worker_health"]) == (
        "running",
        True,
        "healthy",
    )
    wait_for(out)


def test_a_failure_after_another_launchers_pane_leaves_that_pane_alone(deliverable: Chain) -> None:
    use_worker(deliverable, "silent")
    dispatch_id, event_id = accepted(deliverable)
    pid = _other_launchers_pane(deliverable, dispatch_id)
    registry = deliverable.state / "panes" / f"{dispatch_id}.json"
    registry.write_text("{not a registry\n")
    registry.chmod(0o600)
    outcome = _deliver(deliverable, event_id)
    assert outcome["status"] == "parked"
    assert _pane_list(deliverable) == [dispatch_id]  # not ours to end
    assert group_alive(pid)


# ---------------------------------------------------------------------- bug 3: a stale exit record
def test_a_relaunch_over_a_dead_pane_trusts_only_the_new_panes_end(deliverable: Chain) -> None:
    out = use_worker(deliverable, "exit3-when-told")  # (ends once launched: never mid-launch)
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:  # an earlier launch's pane, ended (exit 7) and recorded
        delivery = Delivery.open(ws)
        delivery.panes.ensure(
            dispatch_id, argv=("/bin/sh", "-c", "exit 7"), cwd=str(deliverable.base)
        )
        _wait_until(lambda: (p := delivery.panes.observe(dispatch_id)) is not None and p.dead)
        supervise.record_exit(ws.store.state.root, dispatch_id, (7, None, None))
    outcome = _deliver(deliverable, event_id)
    assert outcome["status"] == "created", outcome
    assert "cwd=" in wait_for(out, timeout=30)  # the new pane runs the worker
    out.tell()
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        _wait_until(lambda: (p := delivery.panes.observe(dispatch_id)) is not None and p.dead)
        view = delivery.observe(dispatch_id)
    assert (view["end_reason"], view["end_detail"]) == ("exit", "the agent exited with status 3")


# ------------------------------------------------- a relaunch meets the server as it exits
def test_a_launch_that_meets_its_server_exiting_starts_its_pane(tmp_path: Path) -> None:
    """A relaunch kills the dead pane's session, the server's last: the server exits, and the
    `new-session` that follows may connect in that moment. It is never served ("server exited
    unexpectedly", 63 of 1,000 tries beside two busy cores), so the launch parked at its pane step
    (a full CI run). The command was not run: it runs again and a new server starts. A real tmux
    client, meeting a stand-in server that closes each connection unserved (the look for the pane
    too) and exits with the first `new-session`."""
    sock, conf = tmp_path / "tmux.sock", tmp_path / "tmux.conf"
    conf.write_text("set -g remain-on-exit on\n")
    exiting = socket.socket(socket.AF_UNIX)
    exiting.bind(str(sock))
    os.chmod(sock, 0o600)
    exiting.listen(8)
    met: list[str] = []

    def close_unserved_until_a_new_session() -> None:
        while not met or met[-1] != "new-session":
            client, _ = exiting.accept()
            said = b""
            while not (command := _command_in(said)):
                chunk = client.recv(65536)
                if not chunk:
                    break
                said += chunk
            met.append(command or "?")
            client.close()
        sock.unlink()
        exiting.close()

    server = threading.Thread(target=close_unserved_until_a_new_session, daemon=True)
    server.start()
    panes = TmuxPanes(str(sock), str(conf))
    try:
        status, pane = panes.ensure("dsp-lost", argv=("sleep", "600"), cwd=str(tmp_path))
        assert (status, pane.dead) == ("created", False)
        assert met[-1] == "new-session", met
    finally:
        server.join(timeout=10)
        panes.kill_server()


def _command_in(said: bytes) -> str | None:
    """The command a tmux client's bytes carry once they carry it (it sends it unasked)."""
    return next((c for c in ("new-session", "list-panes") if c.encode() in said), None)
