"""Launches that meet a pane they did not make, fail once the pane exists, or relaunch over a dead pane
(issue 11): real git, a real tmux server on the state root's private socket, a real command worker."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

from oms.adapters.activation import Witness
from oms.adapters.providers.base import LaunchPlan
from oms.canonical import JsonObject
from oms.fsio.procinfo import group_alive
from oms.services.delivery import Delivery
from tests.chain import Chain, accepted, use_worker


class _Keys:
    """An `Activator` that records who it was asked to activate (a command worker needs no keys)."""

    def __init__(self) -> None:
        self.activated: list[str] = []

    def activate(self, plan: LaunchPlan, dispatch_id: str, witness: Witness) -> None:
        self.activated.append(dispatch_id)

    def interrupt(self, plan: LaunchPlan, dispatch_id: str) -> None:
        pass

    def nudge(self, plan: LaunchPlan, dispatch_id: str) -> None:
        pass


def _tmux(chain: Chain, *args: str) -> subprocess.CompletedProcess[str]:
    sock, conf = str(chain.state / "tmux.sock"), str(chain.state / "tmux.conf")
    return subprocess.run(["tmux", "-S", sock, "-f", conf, *args], capture_output=True, text=True, check=False)


def _other_launchers_pane(chain: Chain, dispatch_id: str) -> int:
    """A session another launcher has just made for `dispatch_id`, before it tagged its pane (what a
    concurrent `new-session` meets as "duplicate session"); the pid of its pane."""
    with chain.workspace() as ws:
        Delivery.open(ws).panes.list()  # oms writes its tmux.conf before its first tmux call
    made = _tmux(chain, "new-session", "-d", "-s", dispatch_id, "-c", str(chain.base), "exec sleep 600")
    assert made.returncode == 0, made.stderr
    listed = _tmux(chain, "list-panes", "-t", f"={dispatch_id}:", "-F", "#{pane_pid}")
    return int(listed.stdout.split()[0])


def _deliver(chain: Chain, event_id: str, keys: _Keys | None = None) -> JsonObject:
    with chain.workspace() as ws:
        outcome = Delivery.open(ws, activator=keys).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    return outcome


def _wait_until(what: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def _pane_list(chain: Chain) -> list[str]:
    with chain.workspace() as ws:
        return [p.dispatch_id for p in Delivery.open(ws).panes.list()]


# ---------------------------------------------------------------------- bug 1: "duplicate session"
def test_ensure_says_reused_for_a_session_another_launcher_made(deliverable: Chain) -> None:
    use_worker(deliverable)
    dispatch_id, _ = accepted(deliverable)
    pid = _other_launchers_pane(deliverable, dispatch_id)
    with deliverable.workspace() as ws:
        status, pane = Delivery.open(ws).panes.ensure(dispatch_id, argv=("sleep", "600"), cwd=str(deliverable.base))
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
