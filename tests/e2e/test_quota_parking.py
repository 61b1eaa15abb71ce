"""A provider runs out while the real Claude Code works on its turn (issue 13 item 3, ADR 0019): the
conductor parks the worker until the provider's reset — interrupted, never killed —, routes the next
dispatch to the other provider, and resumes the worker once the reset has come. The only stand-in is
the remote model (tests/model_mock.py); the agent, its pane, hooks and bridge are real."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oms.canonical import add_ms
from oms.domain.routing import Cooldown
from oms.services.chain import dispatches, providers
from oms.services.conductor import tick as conductor
from oms.services.delivery.service import Delivery
from tests.chain import Chain, accepted
from tests.helpers import eventually
from tests.model_mock import Call, Hold, ModelMock, Say, Script

ROLE = "oms.ticket-executor"


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


def _route_to(chain: Chain, mock: ModelMock) -> None:
    """The Claude role is the worker role; two providers of its family, both the mock, `claude-a`
    first."""
    section = (
        '\n[providers.{}]\nfamily = "anthropic"\nendpoint = "{}"\n'
        'models = {{ default = "test-model" }}\n'
    )
    providers_toml = section.format("claude-a", mock.base) + section.format("claude-b", mock.base)
    providers_toml += '\n[routing]\norder = ["claude-a", "claude-b"]\n'
    chain.edit_config(
        lambda s: s.replace('role = "oms.command-executor"', f'role = "{ROLE}"') + providers_toml,
        commit=True,
    )


def _until(predicate: Callable[[], object], timeout: float, what: str) -> None:
    eventually(predicate, timeout=timeout, what=what)


def test_a_worker_whose_provider_runs_out_is_parked_until_the_reset_then_resumed(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = deliverable.base / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-e2e-test-key-0123456789abcdef")
    _route_to(deliverable, mock)
    mock.script = Script(
        [Call("read_dispatch", {}), Call("acknowledge_dispatch", {}), Hold(Say("still thinking"))]
    )
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch_id).payload["provider_id"] == "claude-a"
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "created", outcome
    _until(mock.holding.is_set, 60, "the agent's turn to wait on the model")

    with deliverable.workspace() as ws:
        until = add_ms(ws.now(), 60_000)
        providers.rest(
            ws,
            "claude-a",
            Cooldown(until, "quota", "usage limit reached"),
            "test: the provider ran out",
        )
        report = conductor.tick(ws)
        phase = next(p for p in report.phases if p.name == "providers")
        assert f"{dispatch_id}: parked until {until} (claude-a ran out)" in phase.done, (
            phase.to_json()
        )
        worker = ws.store.records("worker").read(dispatch_id)
        session = ws.store.records("session").read(str(worker.payload["session_id"]))
        assert (worker.payload["health"], session.state, session.payload["parked_until"]) == (
            "parked",
            "parked",
            until,
        )
        assert str(worker.payload["health_reason"]).startswith(
            "quota: provider claude-a rests until"
        )
        assert (
            Delivery.open(ws).observe(dispatch_id)["pane_live"] is True
        )  # interrupted, never killed

    # the next dispatch goes to the other provider while claude-a rests
    ticket_id, _ = deliverable.leased_ticket("Another ticket")
    with deliverable.workspace() as ws:
        assert dispatches.propose(ws, ticket_id)[0].payload["provider_id"] == "claude-b"

    deliverable.clock.advance(2)  # past the reset
    with deliverable.workspace() as ws:
        report = conductor.tick(ws)
        resumed = next(p for p in report.phases if p.name == "resume")
        assert any(line.startswith(f"{dispatch_id}: resumed") for line in resumed.done), (
            resumed.to_json()
        )
        assert ws.store.records("worker").read(dispatch_id).payload["health"] == "healthy"
        assert providers.route(ws, ws.config().roles[ROLE]).provider_id == "claude-a"
        Delivery.open(ws).stop(dispatch_id, "test over")
    assert not Path(deliverable.state / "panes" / f"{dispatch_id}.json").exists()
