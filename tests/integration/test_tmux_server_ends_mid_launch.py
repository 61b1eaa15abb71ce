"""Issue 24: the pane's tmux server killed (by its pid) while a launch waits for the agent to be
ready. Before, the worker ended `stopped` with tmux's raw error as its reason ("no server running
on <socket path>"), so the ticket waited for a person ("stopped before a result, a person
decides"). Nothing there is a person's to put right: the attempt ended, the reason says so
plainly, and the conductor retries it after its backoff (ADR 0029: a failed attempt, counted
toward quarantine). Real git, a real tmux server, a real command worker; the agent's readiness is
waited for by the real `Tui`."""

from __future__ import annotations

import dataclasses
import os
import signal

from oms.adapters.activation import Tui, Witness
from oms.adapters.panes import Pane, TmuxPanes
from oms.adapters.providers.base import LaunchPlan
from oms.domain.delivery import SERVER_GONE
from oms.services.conductor import resolve
from oms.services.delivery.service import Delivery
from tests.chain import Chain, accepted, use_worker
from tests.helpers import eventually


class _ServerKilled:
    """The real panes, whose tmux server is killed by its pid between the agent's pane being seen
    and its screen being read (the moment `Tui` waits for the agent to be ready)."""

    def __init__(self, panes: TmuxPanes) -> None:
        self.panes = panes
        self.killed: list[int] = []

    def observe(self, dispatch_id: str) -> Pane | None:
        return self.panes.observe(dispatch_id)

    def capture(self, dispatch_id: str) -> str:
        if not self.killed:
            said = self.panes.tmux("display-message", "-p", "#{pid}").stdout.decode()
            pid = int(said.strip())
            os.kill(pid, signal.SIGKILL)
            self.killed.append(pid)
            eventually(lambda: not os.path.exists(f"/proc/{pid}/cmdline"), what="tmux ends")
        return self.panes.capture(dispatch_id)

    def send_text(self, dispatch_id: str, text: str) -> None:
        self.panes.send_text(dispatch_id, text)

    def send_keys(self, dispatch_id: str, *keys: str) -> None:
        self.panes.send_keys(dispatch_id, *keys)


class _Agent:
    """A `Tui` that waits for an agent's ready mark (the command worker never shows one)."""

    def __init__(self, screen: _ServerKilled) -> None:
        self.tui = Tui(screen)

    def activate(self, plan: LaunchPlan, dispatch_id: str, witness: Witness) -> None:
        prompted = dataclasses.replace(plan, prompt="Start.", ready_marks=("READY",))
        self.tui.activate(prompted, dispatch_id, witness)

    def interrupt(self, plan: LaunchPlan, dispatch_id: str) -> bool:
        return False

    def nudge(self, plan: LaunchPlan, dispatch_id: str, pressing: object = None) -> None:
        pass

    def say(self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness) -> str:
        return "typed"


def test_a_tmux_server_killed_before_the_agent_is_ready_is_a_retried_attempt(
    deliverable: Chain,
) -> None:
    use_worker(deliverable, "silent")
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        assert isinstance(d.panes, TmuxPanes)
        screen = _ServerKilled(d.panes)
        d.activator = _Agent(screen)
        outcome = d.deliver(event_id)["outcome"]
        assert isinstance(outcome, dict)
        assert screen.killed, "the server was never killed: the launch did not wait for readiness"
        worker = ws.store.records("worker").read(dispatch_id)
        assert worker.payload["health"] == "stopped"
        detail = str(worker.payload.get("end_detail"))
        assert "tmux" not in detail.replace(SERVER_GONE, ""), detail  # no raw tmux error
        assert str(deliverable.state) not in detail  # nor a host path
        done: list[str] = []
        skipped: list[str] = []
        resolve.resolve(ws, done, skipped)
        assert skipped == []
        ticket = ws.store.records("ticket").read(str(worker.payload["ticket_id"]))
        assert not screen.panes.server_running()
    assert ticket.state == "open", (ticket.state, ticket.payload.get("reason"))  # retried
    reason = str(ticket.payload.get("reason"))
    assert "a person decides" not in reason
    assert SERVER_GONE in reason or "the worker ended without a result" in reason, reason
    assert isinstance(ticket.payload.get("retry_after"), str)  # after its backoff
    failures = ticket.payload["failures"]
    assert isinstance(failures, list)
    assert len(failures) == 1  # a counted attempt (quarantine after five)
    assert "no server running" not in str(outcome.get("reason", ""))
