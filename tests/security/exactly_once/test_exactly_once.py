"""Issue 11's attack, kept: what an outside attacker did to "exactly once" and the runaway bound, as
regression tests (each failed on the build it was found on).

1. A hostile agent drains the broker's hook budget with its own SessionStarts so the real /goal
   Stops go unrecorded, and the next recorded non-Stop hook erased them: 2000 goal turns were
   counted as about
   30. Missed Stops are now erased only by the Stop that counts them.
2. Alternating prompts and Stops wrote a session version per hook (40 in 8 s). Only facts others act
   on are written at once, and the way back from each waits for the beat: at most two versions a
   beat.
3. A broker SIGKILLed between moving the dispatch to `result-received` and finishing the worker left
   them disagreeing for good once the worker was stopped. Whoever ends the worker now ends it as the
   recorded result says; a dispatch with a result is never relaunched.
4. A broker SIGKILLed right after signing the result leaves that signed result beside a later one (a
   known limit, SECURITY.md: strict xfail).

The hooks are played through the broker's doors over the test's clock (as
tests/integration/test_runaway_agents.py does); the crashes fork a stand-in broker that is SIGKILLed
at the step boundary (a SIGKILL at an exact line cannot be had from the real broker on demand).
"""

from __future__ import annotations

import os
import signal

import pytest

from oms.canonical import JsonObject, access
from oms.services.chain import fence
from oms.services.delivery.service import Delivery
from oms.services.doors.worker_doors import HOOK_RATE
from tests.agent_side import Bound, BoundTools, bind
from tests.chain import Chain
from tests.integration.test_runaway_agents import ClockedDoors, _at_work, _records


def test_missed_stops_are_erased_by_a_non_stop_hook(chain: Chain) -> None:
    """ADR 0015: "Stops the broker's hook budget answered unrecorded still count, at the next
    recorded Stop". But `Memo.keep` zeroes `missed` on *any* recorded hook. An agent that keeps the
    budget drained with its own SessionStart hooks (one every 10 ms, straight to its broker socket
    or through the relay) makes nearly every real /goal Stop go unrecorded, and the next recorded
    SessionStart erases them: 2000 goal turns (11 a second, the issue's runaway rate) are counted as
    about 30, the 100-turn bound never reached; only the 60-minute bound is left (about 40,000 turns
    at that rate)."""
    bound: Bound = _at_work(chain)
    doors = ClockedDoors(bound, "codex")
    doors.fire("SessionStart")
    goal_turns = 0
    for _ in range(2000):
        # the agent's own background loop: a SessionStart every 10 ms, 9 of them between two goal
        # turns
        for _ in range(9):
            doors.fire("SessionStart", after_ms=10)
        doors.fire(
            "Stop", active=False, after_ms=1
        )  # what Codex fires at the end of each /goal turn
        goal_turns += 1
    worker, session, history = _records(bound)
    counted = session.payload["turns_without_result"]
    print(
        f"goal turns {goal_turns}, counted {counted}, health "
        f"{worker.payload['health']}, versions {len(history)}"
    )
    # expected (ADR 0015 decision 2): parked no_result at the 100th turn
    assert worker.payload["health"] == "parked", (
        f"{goal_turns} goal turns without a result, {counted} counted: the runaway bound never held"
    )


def test_a_toggling_hook_loop_writes_a_session_version_per_hook(chain: Chain) -> None:
    """Issue 11: "heartbeats write at most one session version per 5 s". An agent alternating
    UserPromptSubmit and Stop (each flips `stop_blocks > 0`, a "state change") gets a version for
    every hook the budget admits: 5 a second, 25 per beat, for as long as it likes (turns do count:
    50 s at most here)."""
    bound: Bound = _at_work(chain)
    doors = ClockedDoors(bound, "codex")
    doors.fire("SessionStart")
    _, _, before = _records(bound)
    start = bound.chain.clock.ms
    for _ in range(20):  # 40 hooks in 8 s, within the broker's budget of HOOK_RATE a second
        doors.fire("UserPromptSubmit", after_ms=200)
        doors.fire("Stop", active=False, after_ms=200)
    elapsed_s = (bound.chain.clock.ms - start) / 1000
    _, session, history = _records(bound)
    written = len(history) - len(before)
    print(f"{written} session versions in {elapsed_s} s (budget {HOOK_RATE}/s)")
    assert session.state == "running"
    # a beat and the gate holding again are the most a beat can hold (was: a version per hook, 40 in
    # 8 s)
    assert written <= 2 * (elapsed_s / 5 + 1), (
        f"{written} session versions in {elapsed_s} s (bound: 2 per 5 s)"
    )


def _ready(chain: Chain) -> tuple[Bound, str]:
    bound = bind(chain)
    tools = BoundTools(bound)
    assert tools.call("acknowledge_dispatch", {})[1] is False
    tools.close()
    return bound, bound.commit_change()


def _broker_killed_at(bound: Bound, target: str, arguments: dict[str, object]) -> int:
    """Fork a 'broker' that records `arguments` and is SIGKILLed when it reaches `target`
    (module.attr)."""
    pid = os.fork()
    if pid == 0:  # the broker
        import importlib

        module, attr = target.rsplit(".", 1)

        def die(*_a: object, **_k: object) -> None:
            os.kill(os.getpid(), signal.SIGKILL)

        mod = importlib.import_module(module)
        if attr == "put_evidence":  # the step after signing: kill once the evidence is stored
            from oms.store import Store

            real = Store.put_evidence

            def signed_then_die(self: Store, body: object) -> object:
                real(self, body)  # type: ignore[arg-type]
                die()
                return None

            Store.put_evidence = signed_then_die  # type: ignore[assignment,method-assign]
        else:
            setattr(mod, attr, die)
        tools = BoundTools(bound)
        tools.call("record_dispatch_result", arguments)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return status


def _evidence(bound: Bound) -> list[JsonObject]:
    with bound.chain.workspace() as ws:
        return [
            access.obj(ws.store.evidence.get(ref).body, "payload")
            for ref in ws.store.evidence.refs()
            if ws.store.evidence.get(ref).body.get("evidence_kind") == "dispatch-result"
        ]


def test_a_broker_killed_after_the_dispatch_moved_leaves_worker_and_dispatch_disagreeing(
    deliverable: Chain,
) -> None:
    bound, commit = _ready(deliverable)
    status = _broker_killed_at(
        bound,
        "oms.services.chain.results._finish_worker",
        {"status": "completed", "summary": "Fixed.", "result_commit": commit},
    )
    assert os.WIFSIGNALED(status)
    assert os.WTERMSIG(status) == signal.SIGKILL
    with deliverable.workspace() as ws:  # the operator ends the (dead) worker: `oms worker stop`
        dispatch = ws.store.records("dispatch").read(bound.dispatch_id)
        assert dispatch.state == "result-received"  # the result is the dispatch's
        # a result-received attempt is not fenced (native_resume.py refuses it by the dispatch's
        # state: nothing is left to continue)
        assert fence.reason(ws, dispatch) is None
        Delivery.open(ws).stop(bound.dispatch_id, "operator stop after the crash")
    # the agent retries: refused, its worker has ended (the one rule, ADR 0028) — `stop` completed
    # the interrupted call already, as the recorded result says
    tools = BoundTools(bound)
    result, is_error = tools.call(
        "record_dispatch_result",
        {"status": "completed", "summary": "Fixed.", "result_commit": commit},
    )
    tools.close()
    assert is_error, result
    assert "attempt fenced: its worker has ended" in str(result.get("error")), result
    with deliverable.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(bound.dispatch_id)
        worker = ws.store.records("worker").read(bound.dispatch_id)
    print(f"dispatch {dispatch.state}, worker {worker.state}/{worker.payload['end_reason']}")
    # expected: a completed result <=> worker done, end reason result-recorded
    # (test_one_result_wins' rule)
    assert (worker.state, worker.payload["end_reason"]) == ("done", "result-recorded"), (
        f"dispatch {dispatch.state} (completed) but worker {worker.state}, end "
        f"{worker.payload['end_reason']}"
    )


@pytest.mark.xfail(
    strict=True,
    reason=(
        "known limit (SECURITY.md): a broker killed between signing a result and recording it "
        "leaves that signed evidence behind, referenced by nothing"
    ),
)
def test_a_broker_killed_after_signing_leaves_signed_evidence_of_a_result_that_never_was(
    chain: Chain,
) -> None:
    bound, commit = _ready(chain)
    status = _broker_killed_at(
        bound,
        "oms.store.put_evidence",
        {"status": "completed", "summary": "Fixed.", "result_commit": commit},
    )
    assert os.WIFSIGNALED(status)
    # the (relaunched) agent now records another result, which wins
    tools = BoundTools(bound)
    _result, is_error = tools.call(
        "record_dispatch_result", {"status": "blocked", "summary": "Gave up."}
    )
    tools.close()
    assert is_error is False
    signed = _evidence(bound)
    print(f"{len(signed)} signed dispatch-result evidences: {[e['status'] for e in signed]}")
    # expected: at most one result, one signed dispatch-result for the dispatch (the loser signs
    # nothing)
    assert len(signed) == 1, (
        f"{len(signed)} signed dispatch-result evidences for one dispatch: {signed}"
    )
