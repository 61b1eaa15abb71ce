"""A hostile (or late) agent records its result after its worker was parked (`no_result`, as the
Stop gate parks a `codex_exec` run, ADR 0045 amendment `ends`): the result is recorded and ends the
worker `done`, but the park stayed. `oms worker resume` then resumed that worker as if its attempt
went on: its session ran again, its worker turned healthy, and an agent that had taken a prompt was
typed a nudge to take another turn (the relaunch path refused a recorded result; the resume of a
live pane did not ask). A resume now refuses a dispatch with a recorded result, as the relaunch
does: nothing typed, nothing moved; and the conductor's resume phase passes it over (after a
person's timed park it said so in a line each tick)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oms.canonical import add_ms
from oms.errors import AuthorityChangedError
from oms.services.conductor import work
from oms.services.delivery.service import Delivery
from oms.store.verify import verify
from tests.agent_side import Bound, BoundTools
from tests.chain import Chain, accepted, use_worker, wait_for


@pytest.mark.parametrize("why", ["no_result", "lunch"])  # the gate's park, and a person's
def test_a_worker_whose_result_came_after_its_park_is_not_resumed(
    deliverable: Chain, why: str
) -> None:
    chain = deliverable
    out = use_worker(chain, "wait")
    dispatch_id, event_id = accepted(chain)
    with chain.workspace() as ws:
        Delivery.open(ws).deliver(event_id)
    wait_for(out)  # the agent runs in its pane
    with chain.workspace() as ws:
        payload = ws.store.records("dispatch").read(dispatch_id).payload
    session_id, worktree = str(payload["session_id"]), Path(str(payload["worktree_path"]))
    bound = Bound(chain, dispatch_id, event_id, session_id, worktree)
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        commit = bound.commit_change()
        with chain.workspace() as ws:  # as the gate parks a run let stop without a result
            Delivery.open(ws).park(dispatch_id, why, add_ms(ws.now(), 60_000))
        recorded, _ = tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "after the park", "result_commit": commit},
        )
    finally:
        tools.close()
    assert recorded["state"] == "result-received"
    chain.clock.advance(2)  # the park is due
    with chain.workspace() as ws:
        before = [ws.store.records(k).read(i) for k, i in _records(bound)]
        refused = "result-received: its agent is not resumed"
        with pytest.raises(AuthorityChangedError, match=refused):
            Delivery.open(ws).resume(dispatch_id)
        after = [ws.store.records(k).read(i) for k, i in _records(bound)]
        assert [(r.state, r.version) for r in after] == [(r.state, r.version) for r in before]
        assert after[1].state == "done"  # the worker ended as its result says
        assert after[2].state == "parked"  # the park it was given stays
        done: list[str] = []
        skipped: list[str] = []
        work.resume_due(Delivery.open(ws), done, skipped)  # the conductor's phase passes it over
        assert (done, skipped) == ([], [])
        Delivery.open(ws).stop(dispatch_id, "test over")
    assert verify(str(chain.state)).ok


def _records(bound: Bound) -> list[tuple[str, str]]:
    return [
        ("dispatch", bound.dispatch_id),
        ("worker", bound.dispatch_id),
        ("session", bound.session_id),
    ]
