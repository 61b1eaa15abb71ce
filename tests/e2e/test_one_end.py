"""One attempt, one end, with the real agent CLIs (issue 24 items 1 and 2, ADR 0028): the real
Claude Code and the real Codex CLI through the model proxy, against the loopback model mock.

- For each cause — `oms ticket expire` fences the attempt, `oms dispatch cancel`, the conductor
  resolves the dispatch — the mock holds the agent's turn on a model answer, the fact is written,
  the answer is released and the agent asks again: 0 requests reach the model once the fact is
  recorded, and the worker ends (cancelled, resolved) or is parked for a person (fenced) with no
  conductor tick.
- The guide's Codex `/goal` race: the conductor resolves the dispatch before the agent's
  `update_goal`. Before, the hook denied `update_goal` and Codex ran its goal again: 312 model turns
  in 77 s until a person ran `oms worker stop`, its pool slot held. Now `update_goal` of a dispatch
  with a result goes through and the worker's supervisor ends the agent: no model turn after the
  resolution and its grace, with or without the proxy. The only stand-in is the remote model
  (tests/model_mock.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from oms.services.chain import dispatches, fence
from oms.services.conductor import resolve as conductor_results
from oms.services.delivery.service import Delivery
from oms.services.proxy import control as proxy_control
from tests.chain import Chain, accepted
from tests.e2e.test_real_agents import CHANGE, _pane_text, _use
from tests.helpers import eventually
from tests.model_mock import Call, Hold, ModelMock, Say, Script

CLAUDE = "oms.ticket-executor"
CODEX = "oms.goal-long-executor"
ANTHROPIC_KEY = "sk-ant-api03-the-real-key-held-by-the-proxy-0123456789"
OPENAI_KEY = "sk-proj-the-real-openai-key-held-by-the-proxy-0123456789"
GRACE_S = 10.0  # the agent's end comes within this of the fact (asked each second, SIGKILL at 2 s)


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


def _until(predicate: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    eventually(predicate, timeout=timeout, what=what)


def _proxied(chain: Chain, mock: ModelMock, mp: pytest.MonkeyPatch, cli: str) -> None:
    """The worker role on `cli` through the proxy: the real key in the deliverer's (the proxy's)
    environment, the provider's endpoint the mock."""
    home = chain.base / "user-home"
    home.mkdir(exist_ok=True)
    mp.setenv("HOME", str(home))
    mp.setenv("CODEX_HOME", str(home))
    if cli == "claude":
        mp.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        role, family, endpoint = CLAUDE, "anthropic", mock.base
    else:
        mp.setenv("OPENAI_API_KEY", OPENAI_KEY)
        role, family, endpoint = CODEX, "openai", f"{mock.base}/v1"
    section = f'\n[providers.p-{family}]\nfamily = "{family}"\nendpoint = "{endpoint}"\n'
    section += 'models = { default = "test-model" }\n\n[proxy]\nworkers = true\n'
    chain.edit_config(
        lambda s: s.replace('role = "oms.command-executor"', f'role = "{role}"') + section,
        commit=True,
    )


def _deliver(chain: Chain, dispatch_id: str, event_id: str) -> None:
    """Launch the accepted dispatch; an outcome other than created shows the agent's screen."""
    with chain.workspace() as ws:
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "created", f"{outcome}\npane:\n{_pane_text(chain, dispatch_id)}"


def _worker(chain: Chain, dispatch_id: str) -> dict[str, object]:
    with chain.workspace() as ws:
        return dict(ws.store.records("worker").read(dispatch_id).payload)


def _health(chain: Chain, dispatch_id: str) -> object:
    return _worker(chain, dispatch_id)["health"]


def _expire(chain: Chain, _dispatch_id: str) -> None:
    chain.clock.advance(61)  # the lease has run out: `oms ticket expire` fences the attempt
    with chain.workspace() as ws:
        fence.expire_leases(ws)


def _cancel(chain: Chain, dispatch_id: str) -> None:
    with chain.workspace() as ws:
        dispatches.cancel(ws, dispatch_id, "a person cancelled it")


def _resolve(chain: Chain, dispatch_id: str) -> None:
    with chain.workspace() as ws:
        conductor_results.resolve(ws, [], [])  # the conductor's resolve phase
        assert ws.store.records("dispatch").read(dispatch_id).state == "resolved"


CAUSES = {"fenced": _expire, "cancelled": _cancel, "resolved": _resolve}
RESULT = Call("record_dispatch_result", {"status": "failed", "summary": "it cannot be done"})


def _script(cli: str, cause: str) -> Script:
    """Read, acknowledge (and, to be resolved, record a result), then a tool call the mock holds
    back."""
    tool = (
        Call("Bash", {"command": "true", "description": "x"})
        if cli == "claude"
        else Call("exec_command", {"cmd": "true"})
    )
    steps: list[Call | Say | Hold] = [Call("read_dispatch", {}), Call("acknowledge_dispatch", {})]
    if cause == "resolved":
        steps.append(RESULT)
    return Script([*steps, Hold(tool), tool, tool, Say("done")])


@pytest.mark.parametrize("cause", sorted(CAUSES))
@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_no_model_request_is_forwarded_once_the_attempt_may_not_act(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch, cli: str, cause: str
) -> None:
    _proxied(deliverable, mock, monkeypatch, cli)
    mock.script = _script(cli, cause)
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        assert proxy_control.start(ws).state == "running"
    try:
        _deliver(deliverable, dispatch_id, event_id)
        _until(mock.holding.is_set, "the agent's turn to wait on the model")
        CAUSES[cause](deliverable, dispatch_id)
        heard = len(mock.heard)  # the held request was heard before the fact
        mock.release.set()  # the agent gets the held answer, runs the tool, and asks again
        if cause == "fenced":
            _until(lambda: _worker(deliverable, dispatch_id)["health"] == "parked", "the park")
            time.sleep(GRACE_S)  # (a quiet time: the agent may ask again and again)
        else:
            _until(lambda: _health(deliverable, dispatch_id) == "stopped", "the end", GRACE_S * 3)
        log = (deliverable.state / "proxy" / "proxy.log").read_text(errors="replace")
        assert len(mock.heard) == heard, (
            f"{len(mock.heard) - heard} requests reached the model after the attempt was {cause}\n"
            f"proxy log: {log[-2000:]}\npane:\n{_pane_text(deliverable, dispatch_id)}"
        )
        worker = _worker(deliverable, dispatch_id)
        if cause == "fenced":
            assert str(worker["health_reason"]).startswith("attempt fenced: "), worker
        else:
            assert "(by oms-supervisor)" in str(worker["end_detail"]) or cause == "resolved", worker
    finally:
        with deliverable.workspace() as ws:
            Delivery.open(ws).stop(dispatch_id, "test over")
            proxy_control.stop(ws)


GOAL: list[Call | Say | Hold] = [
    Call("read_dispatch", {}),
    Call("acknowledge_dispatch", {}),
    Call("exec_command", {"cmd": CHANGE}),
    Call("record_dispatch_result", {"status": "completed", "summary": "Added AGENT.md."}),
    Hold(Call("update_goal", {"status": "complete"})),  # held: the conductor resolves first
    Say("Done: the dispatch has its result."),
]


@pytest.mark.parametrize("proxied", [True, False])
def test_a_goal_resolved_before_its_update_goal_ends_by_itself(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch, proxied: bool
) -> None:
    if proxied:
        _proxied(deliverable, mock, monkeypatch, "codex")
    else:  # the guide's worker: the CLI's own key, no proxy (the supervisor alone ends it)
        monkeypatch.setenv("CODEX_HOME", str(deliverable.base))
        _use(deliverable, CODEX, "gpt-6.2-sol", "codex_goal", mock.base + "/v1", [])
    mock.script = Script(list(GOAL))
    dispatch_id, event_id = accepted(deliverable)
    if proxied:
        with deliverable.workspace() as ws:
            assert proxy_control.start(ws).state == "running"
    try:
        _deliver(deliverable, dispatch_id, event_id)
        _until(mock.holding.is_set, "the agent's turn after its result")
        _resolve(deliverable, dispatch_id)  # the race: resolved before the agent's update_goal
        resolved_at, heard = time.monotonic(), len(mock.heard)
        mock.release.set()
        _until(lambda: _health(deliverable, dispatch_id) == "stopped", "the end", GRACE_S * 3)
        ended_at, turns = time.monotonic(), len(mock.heard) - heard
        time.sleep(3.0)  # (a quiet time: a goal run again would ask the model)
        after = len(mock.heard) - heard - turns
        pane = _pane_text(deliverable, dispatch_id)
        assert after == 0, f"{after} model requests after the agent's end\n{pane}"
        if proxied:
            assert turns == 0, f"{turns} model requests forwarded after the resolution"
        else:
            assert turns <= 2, f"{turns} model turns between the resolution and the end"
        assert ended_at - resolved_at < GRACE_S * 3
        worker = _worker(deliverable, dispatch_id)
        assert worker["end_reason"] == "result-recorded", worker
        print(f"\n{'proxied' if proxied else 'direct'}: {turns} requests after the resolution, "
              f"ended {ended_at - resolved_at:.1f} s after it")  # fmt: skip
    finally:
        with deliverable.workspace() as ws:
            Delivery.open(ws).stop(dispatch_id, "test over")
            if proxied:
                proxy_control.stop(ws)


LIMIT = {"type": "error", "error": {"type": "rate_limit_error", "message": "usage limit reached"}}


def test_claude_codes_retries_on_a_rate_limit_never_reach_the_model(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: Claude Code's own retries on a 429 (7 in 60 s) all reached the upstream while the
    provider rested for the fleet. Now the proxy rests the provider on the first 429 and answers
    every retry itself (`x-should-retry: false` for a rest of over a minute): the model hears none
    of them."""
    _proxied(deliverable, mock, monkeypatch, "claude")
    tool = Call("Bash", {"command": "true", "description": "x"})
    first = [Call("read_dispatch", {}), Call("acknowledge_dispatch", {})]
    mock.script = Script([*first, Hold(tool), tool])
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        assert proxy_control.start(ws).state == "running"
    try:
        _deliver(deliverable, dispatch_id, event_id)
        _until(mock.holding.is_set, "the agent's turn to wait on the model")
        mock.fail.extend([(429, LIMIT, {})] * 10)  # the upstream answers rate limits for a while
        heard = len(mock.heard)
        mock.release.set()
        _until(lambda: len(mock.heard) > heard, "the agent's request after the held answer")
        time.sleep(GRACE_S)  # (a quiet time: the CLI's SDK retries within seconds)
        retried = len(mock.heard) - heard - 1
        pane = _pane_text(deliverable, dispatch_id)
        assert retried == 0, f"{retried} retries reached the model\n{pane}"
    finally:
        with deliverable.workspace() as ws:
            Delivery.open(ws).stop(dispatch_id, "test over")
            proxy_control.stop(ws)
