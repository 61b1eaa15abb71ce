"""A worker running on in a slot a forced scale drains, which neither the scale's parks nor its
launch's look at the pool parked (ADR 0016, amendment `drainsweep`, attack10): a deliverer killed
between its launch and that look, whose agent acknowledged meanwhile (its replay recovers the
binding and launches nothing, so looks at nothing); on a cluster, a worker another host runs (the
scale's host may not touch its pane). Each host's tick parks its own, once per drain: a person's
`oms worker resume` after the drain's park is a person's decision, not undone."""

from __future__ import annotations

from typing import Any

import pytest

from oms.services.chain import tickets
from oms.services.conductor import pool
from tests.chain import Chain, use_worker
from tests.helpers import eventually
from tests.integration.test_an_approval_outlasts_a_rest import _tick


class _Killed(BaseException):
    """The deliverer dies here (nothing after it runs)."""


def _two_tickets(deliverable: Chain) -> str:
    """Two tickets for the test worker, as a pool of two takes them; the second's id."""
    use_worker(deliverable)
    with deliverable.workspace() as ws:
        tickets.add(ws, "One", "do it")
        return tickets.add(ws, "Two", "do it").record_id


def test_a_deliverer_killed_before_its_look_leaves_no_agent_running_in_the_forced_slot(
    deliverable: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--force` came before the launch's unpark (the scale: "is launching: it parks itself once
    launched"); the deliverer died after the unpark, before its look at the pool; the agent
    acknowledged its dispatch; the next tick closed the event (`recovered`) and the agent ran on
    in the forced slot (failing before: the worker healthy). Now the tick parks it."""
    from oms.services.delivery import once, registration

    second = _two_tickets(deliverable)
    said: list[str] = []
    register, looked = registration.register_session, once._parked_if_drained

    def scaled_meanwhile(d: Any, dispatch: Any, *args: Any) -> Any:
        if dispatch.payload["ticket_id"] == second:  # `oms pool scale --to 1 --force`, now
            with deliverable.workspace() as ws:
                _, plan, occupancy = pool.scale(ws, to=1, up=0, down=0, force=True)
                said.extend(pool.park_draining(ws, occupancy, plan.park))
        return register(d, dispatch, *args)

    def killed(d: Any, dispatch: Any, outcome: Any) -> Any:
        if dispatch.payload["ticket_id"] == second:
            raise _Killed
        return looked(d, dispatch, outcome)

    monkeypatch.setattr(registration, "register_session", scaled_meanwhile)
    monkeypatch.setattr(once, "_parked_if_drained", killed)
    with pytest.raises(_Killed):
        _tick(deliverable)
    monkeypatch.undo()
    assert [x.split(": ", 1)[1].split(" ", 1)[1] for x in said] == [
        "is launching: it parks once launched"
    ], said
    with deliverable.workspace() as ws:
        [dispatch] = [
            d for d in ws.store.latest("dispatch").records if d.payload["ticket_id"] == second
        ]

    def acknowledged() -> bool | None:
        with deliverable.workspace() as ws:
            return ws.store.records("dispatch").read(dispatch.record_id).state == "acknowledged"

    eventually(acknowledged, timeout=60, what="the agent acknowledges its dispatch")
    lines = _tick(deliverable)
    with deliverable.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch.record_id).payload
    assert worker["health"] == "parked", (lines, worker)
    assert worker["health_reason"] == "pool scaled down: worker-2 drains", (lines, worker)


@pytest.mark.parametrize("killed", [False, True])
def test_a_forced_scale_between_the_session_and_the_unpark_is_not_undone(
    deliverable: Chain, monkeypatch: pytest.MonkeyPatch, killed: bool
) -> None:
    """`--force` came after the launch registered its session, before its unpark: the scale
    parked the worker (its session parked until a day from now), the launch's unpark made it
    healthy again, and its look at the pool tried to park it until another time — refused
    ("already parked until a different time"), no receipt, and so on every tick, the agent
    running on (failing before: the worker healthy; on the tests' clock, standing still, the
    look's park had the scale's operation id and wrote nothing). With the deliverer `killed`
    before that look, the tick found the drain's park in the worker's history and took the
    unpark for a person's resume. Now the launch leaves a worker parked whose session was parked
    since it registered it, and its look sees it parked."""
    from oms.services.chain import fence
    from oms.services.delivery import once

    second = _two_tickets(deliverable)
    said: list[str] = []
    reason, looked = fence.reason, once._parked_if_drained

    def scaled_meanwhile(ws: Any, dispatch: Any) -> Any:
        if dispatch.payload["ticket_id"] == second and not said:  # the launch's fence step
            with deliverable.workspace() as other:
                _, plan, occupancy = pool.scale(other, to=1, up=0, down=0, force=True)
                said.extend(pool.park_draining(other, occupancy, plan.park))
            deliverable.clock.advance(1 / 60_000)  # a millisecond on: the look's park is its own
        return reason(ws, dispatch)

    def dies(d: Any, dispatch: Any, outcome: Any) -> Any:
        if dispatch.payload["ticket_id"] == second:
            raise _Killed
        return looked(d, dispatch, outcome)

    monkeypatch.setattr(fence, "reason", scaled_meanwhile)
    if killed:
        monkeypatch.setattr(once, "_parked_if_drained", dies)
        with pytest.raises(_Killed):
            _tick(deliverable)
    else:
        _tick(deliverable)
    monkeypatch.undo()
    assert [x.split(" dsp-")[0] for x in said] == ["worker-2: parked"], said
    lines = _tick(deliverable)
    with deliverable.workspace() as ws:
        [dispatch] = [
            d for d in ws.store.latest("dispatch").records if d.payload["ticket_id"] == second
        ]
        worker = ws.store.records("worker").read(dispatch.record_id).payload
    assert worker["health"] == "parked", (lines, worker)
    assert worker["health_reason"] == "pool scaled down: worker-2 drains", (lines, worker)
