"""The real Claude Code through the loopback model proxy (issue 13 items 4-5, ADR 0020), as every
model worker goes by default (ADR 0026: no setting; `oms worker deliver` starts the proxy on demand,
the last worker's stop stops it): the agent's only key is its dispatch's token, its sandbox has no
network (the model only through the proxy's socket and the relay inside), the real key reaches only
the model, a usage-limit answer rests the provider for the fleet, the conductor parks the worker
until the reset and routes the next ticket to the other provider, and resumes the worker once the
reset has come. The only stand-in is the remote model (tests/model_mock.py)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oms.services.chain import dispatches, providers
from oms.services.conductor import tick as conductor
from oms.services.delivery.service import Delivery
from oms.services.proxy import control as proxy_control
from tests.chain import Chain, accepted
from tests.helpers import eventually
from tests.model_mock import Call, Hold, ModelMock, Say, Script

ROLE = "oms.ticket-executor"
REAL_KEY = "sk-ant-api03-the-real-key-held-by-the-proxy-0123456789"


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


def _until(predicate: Callable[[], object], timeout: float, what: str) -> None:
    eventually(predicate, timeout=timeout, what=what)


def _environ_of_dispatch(dispatch_id: str) -> list[bytes]:
    """The environments of every process that names the dispatch (the agent and its sandbox)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if f"OMS_DISPATCH_ID={dispatch_id}".encode() in environ:
            found.append(environ)
    return found


def test_the_agent_holds_only_its_token_and_a_usage_limit_rests_the_provider(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = deliverable.base / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv(
        "ANTHROPIC_API_KEY", REAL_KEY
    )  # the deliverer's (and the proxy's) environment
    section = (
        '\n[providers.{}]\nfamily = "anthropic"\nendpoint = "{}"\n'
        'models = {{ default = "test-model" }}\n'
    )
    providers_toml = section.format("claude-a", mock.base) + section.format("claude-b", mock.base)
    providers_toml += '\n[routing]\norder = ["claude-a", "claude-b"]\n'
    # (a lease longer than the rest: a person's lease is not renewed by the conductor)
    deliverable.edit_config(
        lambda s: (
            s.replace('role = "oms.command-executor"', f'role = "{ROLE}"').replace(
                "duration_minutes = 60", "duration_minutes = 240"
            )
            + providers_toml
        ),
        commit=True,
    )
    probe = (
        f"bash -c 'echo > /dev/tcp/127.0.0.1/{mock.port}' 2>/dev/null && "
        f"echo MODEL-REACHED || echo MODEL-UNREACHABLE; "
        "bash -c 'echo > /dev/tcp/1.1.1.1/443' 2>/dev/null && echo "
        "OUTSIDE-REACHED || echo OUTSIDE-UNREACHABLE"
    )
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Call("Bash", {"command": probe, "description": "try the network"}),
            Hold(Say("working on it")),
        ]
    )
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        assert proxy_control.status(ws).state == "not running"
    try:
        with deliverable.workspace() as ws:
            outcome = Delivery.open(ws).deliver(event_id)["outcome"]
            assert isinstance(outcome, dict)
            assert outcome["status"] == "created", outcome
            started = proxy_control.status(ws)  # started on demand by the launch
            assert started.state == "running", started.to_json()
            assert started.record is not None
            assert started.record.get("on_demand") is True
        _until(mock.holding.is_set, 60, "the agent's turn to wait on the model")

        bash = [
            text for name, text in (r for seen in mock.seen for r in seen.results) if name == "Bash"
        ]
        assert bash, "the agent's network probe did not run"
        assert "MODEL-UNREACHABLE" in bash[0], bash[
            0
        ]  # no network: the model only through the proxy
        assert "OUTSIDE-UNREACHABLE" in bash[0], bash[0]
        keys = {
            headers.get("x-api-key") or headers.get("authorization") for _, headers in mock.heard
        }
        assert keys == {REAL_KEY}, keys  # the model hears the real key, and only it
        environs = _environ_of_dispatch(dispatch_id)
        assert environs, "no process of the dispatch was found"
        assert all(REAL_KEY.encode() not in env for env in environs)  # never inside the sandbox
        assert any(f"ANTHROPIC_API_KEY=oms.{dispatch_id}.".encode() in env for env in environs)

        # the model runs out: the next answer the proxy relays is a usage limit with its reset
        mock.fail.append(
            (429,
             {"type": "error",
              "error": {"type": "rate_limit_error", "message": "usage limit reached"}},
             {"retry-after": "7200"})
        )  # fmt: skip
        mock.release.set()  # the held turn ends; the agent's next request meets the usage limit
        with deliverable.workspace() as ws:
            _until(
                lambda: "claude-a" in providers.standings(ws), 60, "the proxy to rest the provider"
            )
            standing = providers.standings(ws)["claude-a"]
            assert standing.cooldown_kind == "quota", (
                standing
            )  # a usage limit, with the reset it states
            assert standing.cooldown_until is not None
            report = conductor.tick(ws)
            phase = next(p for p in report.phases if p.name == "providers")
            assert (
                f"{dispatch_id}: parked until {standing.cooldown_until} (claude-a ran out)"
                in phase.done
            )
            assert ws.store.records("worker").read(dispatch_id).payload["health"] == "parked"
        ticket_id, _ = deliverable.leased_ticket(
            "Another ticket"
        )  # the queue goes to the other provider
        with deliverable.workspace() as ws:
            assert dispatches.propose(ws, ticket_id)[0].payload["provider_id"] == "claude-b"
        deliverable.clock.advance(121)  # past the reset the 429 stated
        with deliverable.workspace() as ws:
            resumed = next(p for p in conductor.tick(ws).phases if p.name == "resume")
            assert any(line.startswith(f"{dispatch_id}: resumed") for line in resumed.done), (
                resumed.to_json()
            )
            assert ws.store.records("worker").read(dispatch_id).payload["health"] == "healthy"
            Delivery.open(ws).stop(dispatch_id, "test over")
            assert proxy_control.status(ws).state == "not running"  # stopped with its last worker
        assert not (
            deliverable.state / "proxy" / "tokens" / f"{dispatch_id}.json"
        ).exists()  # revoked at stop
    finally:
        with deliverable.workspace() as ws:
            proxy_control.stop(ws)
    assert os.environ.get("ANTHROPIC_API_KEY") == REAL_KEY
