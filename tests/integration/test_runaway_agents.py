"""Runaway agents (issue 11): a worker whose model never records a result is bounded in turns and
time and parked `no_result`; a hook loop grows its session by at most one version per beat; a Claude
Code Stop the gate's cap lets through parks the worker. Played through the broker's doors
(`WorkerDoors.hook`, what `oms worker supervise` serves) on a real state root, the test's clock
standing in for time: the hooks are what Codex in `/goal` mode fires — a Stop per automatic turn,
never a prompt (ADR 0011 "Hooks")."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from oms.canonical import access
from oms.domain import sessions
from oms.services.doors.worker_doors import HOOK_BURST, HOOK_RATE, TokenBucket, WorkerDoors
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store import Record
from oms.store.payloads import as_json
from tests.agent_side import Bound, BoundTools, bind
from tests.chain import Chain

CODEX_THREAD = "019a7c1e-5b2f-7d40-8e3a-2b6c9f0e1d42"
BEAT_S = 5  # issue 11: at most one session version per 5 s


class ClockedDoors(WorkerDoors):
    """A broker's doors for `bound`, over the test's clock: its workspace and its hook budget."""

    def __init__(self, bound: Bound, provider: str) -> None:
        super().__init__(
            bound.binding(provider),
            bound.nonce,
            str(bound.chain.state),
            str(bound.chain.repo),
            print,
        )
        self.bound = bound
        self.provider = provider
        self.ws = bound.chain.workspace()
        self.bucket = TokenBucket(HOOK_RATE, HOOK_BURST, clock=lambda: bound.chain.clock.ms / 1000)

    def workspace(self) -> Workspace:
        return self.ws

    def fire(self, event: str, *, active: bool = False, after_ms: int = 250) -> dict[str, Any]:
        """The agent fires `event` `after_ms` after the previous hook; the broker's answer."""
        self.bound.chain.clock.ms += after_ms
        native = self.bound.session_id if self.provider == "claude" else CODEX_THREAD
        doc: dict[str, Any] = {
            "hook_event_name": event,
            "session_id": native,
            "cwd": str(self.bound.worktree),
        }
        if event == "Stop":
            doc["stop_hook_active"] = active
        argv = tuple(self.bound.hook_args(self.provider, event=event)[2:])
        out, _ = self.hook(argv, json.dumps(doc).encode())
        answer = json.loads(out)
        assert isinstance(answer, dict)
        return answer


def _at_work(chain: Chain, lease_minutes: int | None = None) -> Bound:
    """An accepted dispatch with its session registered (as delivery registers it, with the role's
    default bounds) and acknowledged by its bridge: the agent is at work."""
    if lease_minutes is not None:
        chain.edit_config(
            lambda s: s.replace("duration_minutes = 60", f"duration_minutes = {lease_minutes}"),
            True,
        )
    found = bind(chain)
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(found.dispatch_id)
        now = ws.now()
        nxt = sessions.register(
            dispatch=dispatch.payload,
            dispatch_id=found.dispatch_id,
            mode="goal",
            pane_id=None,
            source_event_id=found.event_id,
            now=now,
        )
        ws.store.records("session").create(
            found.session_id,
            state=nxt.state,
            payload=as_json(nxt.payload),
            operation_id="test-register",
            actor=SYSTEM_ACTOR,
            observed_at=now,
        )
    chain.clock.ms += 1000
    tools = BoundTools(found)
    assert tools.acknowledge_dispatch({})["state"] == "acknowledged"
    tools.close()
    return found


@pytest.fixture
def bound(chain: Chain) -> Bound:
    return _at_work(chain)


@pytest.fixture
def claude_bound(chain: Chain) -> Bound:
    """`bound`, of Claude Code's role: what its Stop gate does is asked of the dispatch's
    transport, not of the hook's provider."""
    chain.edit_config(
        lambda s: s.replace('role = "oms.command-executor"', 'role = "oms.ticket-executor"'), True
    )
    return _at_work(chain)


def _records(bound: Bound) -> tuple[Record, Record, list[Record]]:
    with bound.chain.workspace() as ws:
        worker = ws.store.records("worker").read(bound.dispatch_id)
        history = ws.store.records("session").history(bound.session_id)
    return worker, history[-1], history


def _goal_turns(doors: ClockedDoors, turns: int) -> list[dict[str, Any]]:
    """`turns` automatic turns of a goal whose model never records a result: the first Stop,
    blocked, runs on with `stop_hook_active` until the gate lets it through; every later turn starts
    without it."""
    answers: list[dict[str, Any]] = []
    for _ in range(turns):
        active = bool(answers) and answers[-1].get("decision") == "block"
        answers.append(doors.fire("Stop", active=active))
    return answers


def test_a_goal_continuation_does_not_rearm_the_gate(bound: Bound) -> None:
    """The gate blocks three times in a row and lets the fourth Stop through; a /goal continuation's
    Stop (no stop_hook_active) is let through too, rather than starting the blocks afresh."""
    doors = ClockedDoors(bound, "codex")
    doors.fire("SessionStart")
    answers = _goal_turns(doors, 8)
    assert [a.get("decision") for a in answers] == ["block"] * 3 + [None] * 5
    assert doors.fire("UserPromptSubmit") == {}  # a prompt re-arms it
    assert doors.fire("Stop").get("decision") == "block"


def test_a_goal_that_never_records_a_result_is_parked_after_its_turns(bound: Bound) -> None:
    doors = ClockedDoors(bound, "codex")
    doors.fire("SessionStart")
    _goal_turns(doors, 99)
    worker, session, _ = _records(bound)
    assert (worker.payload["health"], session.state) == (
        "healthy",
        "running",
    )  # 99 turns: still within
    assert doors.fire("Stop") == {}  # the 100th turn: let through, and the worker is parked
    worker, session, history = _records(bound)
    assert (worker.payload["health"], worker.payload["health_reason"]) == ("parked", "no_result")
    assert session.state == "parked"
    assert history[-2].payload["turns_without_result"] == 100  # the last hook's version says why
    versions = len(history)
    later = _goal_turns(
        doors, 10
    )  # whatever the agent still fires records nothing and holds nothing
    assert later == [{}] * 10
    assert len(_records(bound)[2]) == versions


def test_turns_past_the_brokers_hook_budget_count_all_the_same(bound: Bound) -> None:
    """The runaway of issue 11 turned 11 times a second; the broker records at most 5 hooks a second
    and answers the rest unrecorded: they are turns all the same."""
    doors = ClockedDoors(bound, "codex")
    doors.fire("SessionStart")
    fired = 0
    while _records(bound)[1].state == "running" and fired < 120:
        doors.fire("Stop", active=False, after_ms=90)
        fired += 1
    worker, session, history = _records(bound)
    assert (worker.payload["health"], worker.payload["health_reason"], session.state) == (
        "parked",
        "no_result",
        "parked",
    )
    assert history[-2].payload["turns_without_result"] == fired  # every Stop counted
    assert 100 <= fired <= 103  # parked by the first Stop the budget admits from the 100th turn on


def test_a_goal_that_never_records_a_result_is_parked_after_its_minutes(chain: Chain) -> None:
    bound = _at_work(chain, lease_minutes=600)  # the lease would fence the attempt first
    doors = ClockedDoors(bound, "codex")
    doors.fire("SessionStart")
    answers = [
        doors.fire("Stop", after_ms=10 * 60_000) for _ in range(6)
    ]  # a long turn every ten minutes
    assert all(a.get("decision") == "block" for a in answers[:5])
    assert answers[5] == {}  # 60 minutes after the acknowledgement
    worker, session, _ = _records(bound)
    assert (worker.payload["health"], worker.payload["health_reason"], session.state) == (
        "parked",
        "no_result",
        "parked",
    )


def test_a_hook_loop_grows_the_session_by_one_version_per_beat(bound: Bound) -> None:
    doors = ClockedDoors(bound, "codex")
    doors.fire("SessionStart")
    _goal_turns(
        doors, 5
    )  # the agent is told three times, then runs on (written: what others act on)
    _, _, before = _records(bound)
    start = bound.chain.clock.ms
    _goal_turns(
        doors, 85
    )  # 85 more turns at 4 a second (the broker's budget is 5), no bound reached
    elapsed_s = (bound.chain.clock.ms - start) / 1000
    worker, session, history = _records(bound)
    assert (worker.payload["health"], session.state) == ("healthy", "running")
    written = len(history) - len(before)
    assert written <= math.ceil(elapsed_s / BEAT_S) + 1, (
        f"{written} session versions in {elapsed_s} s"
    )
    assert (
        access.integer(session.payload, "turns_without_result") >= 80
    )  # the counters still reach the record


def test_claude_let_through_by_the_gate_is_parked(claude_bound: Bound) -> None:
    bound = claude_bound
    doors = ClockedDoors(bound, "claude")
    doors.fire("UserPromptSubmit")
    answers = [doors.fire("Stop", active=active) for active in (False, True, True, True)]
    assert [a.get("decision") for a in answers] == ["block", "block", "block", None]
    worker, session, _ = _records(bound)
    assert (worker.state, worker.payload["health"], worker.payload["health_reason"]) == (
        "working",
        "parked",
        "no_result",
    )
    assert session.state == "parked"
    assert session.payload["agent_stopped_at"] is not None
