"""Runaway agents with the real CLIs (issue 11), against the loopback model mock
(tests/model_mock.py): their model never records a result.

Codex in `/goal` mode runs turn after turn (each firing Stop without `stop_hook_active`). The role's
bound parks the worker `no_result` — the goal pauses (Escape, as `oms worker park` sends it) and the
model is asked for nothing more — and `oms worker resume` resumes the goal itself (`/goal resume`: a
plain prompt would run one turn and leave the goal paused), with a fresh bound.

Claude Code stops; the Stop gate blocks it three times and then lets it through: it would wait for a
prompt nobody types, so its worker is parked `no_result`; `oms worker resume` prompts it again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from oms.canonical import parse_ts
from oms.services.delivery.service import Delivery
from tests.chain import Chain
from tests.e2e.test_real_agents import _deliver, _pane_text, _stop_and_check_nothing_left, _use
from tests.helpers import eventually
from tests.model_mock import Call, ModelMock, Say, Script

TURNS = 6


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(
        Script(
            [Call("read_dispatch", {}), Call("acknowledge_dispatch", {})],
            final_text=lambda _t: "Still on it.",
        )
    ).start()
    yield server
    server.stop()


def _records(chain: Chain, dispatch_id: str) -> tuple[Any, Any, int]:
    with chain.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch_id)
        session_id = str(ws.store.records("dispatch").read(dispatch_id).payload["session_id"])
        history = ws.store.records("session").history(session_id)
    return worker, history[-1], len(history)


def _wait_parked(
    chain: Chain, dispatch_id: str, since_version: int, timeout: float = 60.0
) -> tuple[Any, Any]:

    def parked() -> tuple[Any, Any]:
        worker, session, _ = _records(chain, dispatch_id)
        # both records: a park writes the session, then the worker (a reader between the two sees
        # the first)
        if (
            session.state == "parked"
            and session.version > since_version
            and worker.payload["health"] == "parked"
        ):
            return worker, session
        raise AssertionError(f"{worker.payload}\n{_pane_text(chain, dispatch_id)}")

    return eventually(parked, timeout=timeout, what="the worker is parked")


def _resume_when_due(chain: Chain, dispatch_id: str, session: Any) -> None:
    chain.clock.ms = (
        parse_ts(session.payload["parked_until"]) - parse_ts(chain.clock.base) + 1
    )  # due
    with chain.workspace() as ws:
        view = Delivery.open(ws).resume(dispatch_id)
    assert (view["worker_health"], view["session_state"]) == ("healthy", "running")


def _quiet(mock: ModelMock, seconds: float = 2.0) -> int:
    """The model requests once they stop coming (the goal paused)."""
    before = len(mock.seen)
    time.sleep(seconds)
    assert len(mock.seen) == before, (
        f"the model was still asked: {before} -> {len(mock.seen)} requests"
    )
    return before


def test_a_codex_goal_without_a_result_is_parked_and_resumes_its_goal(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = deliverable.base / "user-codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    _use(deliverable, "oms.goal-long-executor", "gpt-6.2-sol", "codex_goal", mock.base + "/v1", [])
    deliverable.edit_config(
        lambda s: s.replace(
            'transport = "codex_goal"',
            f'transport = "codex_goal"\nmax_turns_without_result = {TURNS}',
        ),
        commit=True,
    )
    dispatch_id, _ = _deliver(deliverable)
    worker, session = _wait_parked(deliverable, dispatch_id, 0)
    assert (worker.payload["health"], worker.payload["health_reason"]) == ("parked", "no_result")
    requests = _quiet(mock)  # the goal paused: nothing more is asked of the model
    assert "Goal paused" in _pane_text(deliverable, dispatch_id)
    _, _, versions = _records(deliverable, dispatch_id)
    print(f"parked after {requests} model requests, {versions} session versions")

    _resume_when_due(deliverable, dispatch_id, session)
    worker, _ = _wait_parked(
        deliverable, dispatch_id, session.version + 1
    )  # the goal ran its bound again
    assert (worker.payload["health"], worker.payload["health_reason"]) == ("parked", "no_result")
    more = _quiet(mock)
    assert more - requests >= TURNS  # the resumed goal took turns by itself, not one prompted turn
    print(
        f"resumed: {more - requests} more model requests, "
        f"{_records(deliverable, dispatch_id)[2]} versions"
    )
    _stop_and_check_nothing_left(deliverable, dispatch_id)


def test_a_claude_worker_let_through_by_the_gate_is_parked_and_resumes(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = deliverable.base / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # Claude Code keeps caches under $HOME
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-e2e-test-key-0123456789abcdef")
    _use(deliverable, "oms.ticket-executor", "sonnet", "claude_interactive", mock.base, [])
    mock.script = Script(
        [Call("read_dispatch", {}), Call("acknowledge_dispatch", {}), Say("I am done.")]
    )
    dispatch_id, _ = _deliver(deliverable)
    worker, session = _wait_parked(deliverable, dispatch_id, 0)
    assert (worker.state, worker.payload["health"], worker.payload["health_reason"]) == (
        "working",
        "parked",
        "no_result",
    )
    assert session.payload["agent_stopped_at"] is not None
    requests = _quiet(mock)
    _resume_when_due(
        deliverable, dispatch_id, session
    )  # types "Continue the dispatch where you stopped."
    worker, _ = _wait_parked(deliverable, dispatch_id, session.version + 1)
    assert (worker.payload["health"], worker.payload["health_reason"]) == ("parked", "no_result")
    assert _quiet(mock) > requests
    _stop_and_check_nothing_left(deliverable, dispatch_id)
