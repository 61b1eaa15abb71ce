"""A park whose worker's attempt ends between the look and the write (`delivery/lifecycle.py`
over the in-memory panes). `oms pool scale --force` parks the workers of draining slots: it reads
the session and the worker, interrupts the agent, then writes the session and the worker parked.
An agent interrupted just as it finished records its result meanwhile (the dispatch
`result-received`, the worker's activity ended, `result-recorded`): the park went on and wrote
both parked ("parked: interrupted"), a worker parked after its attempt ended, whose parked-until
later asks for a resume of an attempt that has its result.

Left failing (strict xfail): the park writes the session before the worker and its machine
hears nothing back from the worker's move, so refusing the worker's park alone would leave the
session parked beside a worker that is not; the fix is to ask the worker's end in the same
decide that writes the park (worker first, the session's park only when the worker's was
written), a change to the lifecycle machine's park steps (`domain/lifecycle.py` `_park`)."""

from __future__ import annotations

import random

import pytest

from oms.canonical import add_ms, next_after, stable_id
from oms.domain import dispatches as machine
from oms.domain.machine import Next, step
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


@pytest.mark.xfail(
    strict=True,
    reason="the park writes the session, then the worker, with no word back from the worker's "
    "move: a result between the look and the write is parked too (domain/lifecycle.py _park)",
)
def test_a_worker_whose_result_lands_during_the_park_is_not_parked(deliverable: Chain) -> None:
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
    assert worker.payload["health"] != "parked", worker.payload["health_reason"]
    assert session.state != "parked"
