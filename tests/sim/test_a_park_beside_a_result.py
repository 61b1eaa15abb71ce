"""A park whose attempt ends between its look and its write (`delivery/lifecycle.py` over the
in-memory panes; held, no change). `oms pool scale --force` parks the workers of draining slots:
it reads the session and the worker, interrupts the agent, then writes the session parked (decided
again on a version a hook wrote meanwhile: `MoveSession.again`) and the worker parked.
- A person's stop landing in that window: the park's session write finds it stopped and is
  refused; the worker is never parked, and it ends once (the stop's end).
- The agent's result landing in that window: the park goes on (a result is no end of the worker:
  the conductor's resolve ends it), the worker is parked with its result, and a resume of it is
  refused ("is result-received: its agent is not resumed"): nothing types into an attempt that
  has its result (`domain/lifecycle.py` `_over`)."""

from __future__ import annotations

import random

import pytest

from oms.canonical import add_ms, next_after, stable_id
from oms.domain import dispatches as machine
from oms.domain.machine import Next, step
from oms.errors import IllegalTransitionError, OmsError
from oms.services.chain import results
from oms.services.delivery.service import Delivery
from oms.store import Change
from oms.store.payloads import dispatch_payload
from tests.chain import Chain, accepted, use_worker
from tests.sim.panes import MemoryPanes
from tests.sim.test_shells import _Agent


class _FinishingAgent(_Agent):
    """Takes its instruction; interrupted, it records its result first (as its bridge would)."""

    def __init__(self, panes: MemoryPanes, chain: Chain) -> None:
        super().__init__(panes)
        self.chain, self.results = chain, 0

    def activate(self, plan: object, dispatch_id: str, witness: object) -> None:
        self.panes.send_text(dispatch_id, "Start.")

    def interrupt(self, plan: object, dispatch_id: str) -> bool:
        with self.chain.workspace() as ws:
            dispatch = ws.store.records("dispatch").read(dispatch_id)
            results.record_result(ws, dispatch, status="failed", summary="cannot", commit=None)
        self.results += 1
        return True


def _acknowledged(chain: Chain, dispatch_id: str) -> None:
    """What the agent's bridge writes first (`acknowledge_dispatch`)."""
    with chain.workspace() as ws:
        seen = ws.store.records("dispatch").read(dispatch_id)
        nxt = Next(step("dispatch", machine.TABLE, seen.state, "acknowledge"), seen.payload)
        after = next_after(seen.observed_at, ws.now())
        op = stable_id("dsp-ack", dispatch_id)
        ws.store.records("dispatch").write_next(
            seen, Change(nxt.state, nxt.payload, op, "oms-bridge", after)
        )


def test_a_worker_whose_result_lands_during_the_park_is_never_resumed(deliverable: Chain) -> None:
    use_worker(deliverable, "silent")
    dispatch_id, event_id = accepted(deliverable, "Parked beside a result")
    panes = MemoryPanes(random.Random(0))
    agent = _FinishingAgent(panes, deliverable)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        d.panes = panes
        d.activator = agent
        d.deliver(event_id)
    _acknowledged(deliverable, dispatch_id)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        d.panes = panes
        d.activator = agent
        d.park(dispatch_id, "pool scaled down: worker-2 drains", add_ms(ws.now(), 30_000))
        session_id = str(dispatch_payload(d.dispatch(dispatch_id))["session_id"])
        session = ws.store.records("session").read(session_id)
        worker = ws.store.records("worker").read(dispatch_id)
        assert d.dispatch(dispatch_id).state == "result-received"
    assert agent.results == 1
    assert worker.payload["end_reason"] == "result-recorded"
    assert (worker.payload["health"], session.state) == ("parked", "parked")
    deliverable.clock.advance(1)  # past its parked-until: a resume is due
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        d.panes = panes
        d.activator = agent
        with pytest.raises(OmsError) as refused:
            d.resume(dispatch_id)
    assert "is result-received: its agent is not resumed" in refused.value.message


class _StoppedAgent(_Agent):
    """Takes its instruction; interrupted, a person's stop ends it first."""

    def __init__(self, panes: MemoryPanes, chain: Chain) -> None:
        super().__init__(panes)
        self.chain = chain

    def activate(self, plan: object, dispatch_id: str, witness: object) -> None:
        self.panes.send_text(dispatch_id, "Start.")

    def interrupt(self, plan: object, dispatch_id: str) -> bool:
        with self.chain.workspace() as ws:
            d = Delivery.open(ws)
            d.panes = self.panes
            d.activator = self
            d.stop(dispatch_id, "a person stops it")
        return True


def test_a_worker_stopped_during_the_park_is_never_parked(deliverable: Chain) -> None:
    use_worker(deliverable, "silent")
    dispatch_id, event_id = accepted(deliverable, "Parked beside a stop")
    panes = MemoryPanes(random.Random(0))
    agent = _StoppedAgent(panes, deliverable)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        d.panes = panes
        d.activator = agent
        d.deliver(event_id)
        with pytest.raises(IllegalTransitionError):  # the session is stopped: no park of it
            d.park(dispatch_id, "pool scaled down: worker-2 drains", add_ms(ws.now(), 30_000))
        session_id = str(dispatch_payload(d.dispatch(dispatch_id))["session_id"])
        session = ws.store.records("session").read(session_id)
        worker = ws.store.records("worker").read(dispatch_id)
        ops = [v.operation_id for v in ws.store.records("worker").history(dispatch_id)]
    assert (session.state, worker.payload["health"]) == ("stopped", "stopped")
    assert worker.payload["end_reason"] == "stopped"
    assert len([op for op in ops if op.startswith("wkr-stop")]) == 1, ops
    assert not [op for op in ops if "park" in op], ops
