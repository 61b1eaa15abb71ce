"""A park decided on a session a hook writes meanwhile (`delivery/lifecycle.py` over the
in-memory panes). `oms pool scale --force` parks the workers of draining slots: it reads the
session, interrupts the agent, then writes the session parked. A hook's beat landing between the
look and the write made the write lose its compare, and the worker was left running ("not
parked: session … changed under us (got version 3, expected 2)": a CI run beside a CPU hog). The
park is now decided again on the version the hook wrote (domain `MoveSession.again`, the store's
read-decide-write-retry), so the worker is parked and the beat is kept."""

from __future__ import annotations

import random

from oms.canonical import add_ms, next_after
from oms.domain import sessions
from oms.services.delivery.service import Delivery
from oms.services.workspace import SYSTEM_ACTOR
from oms.store import Change
from oms.store.payloads import as_json, dispatch_payload
from tests.chain import Chain, accepted, use_worker
from tests.sim.panes import MemoryPanes
from tests.sim.test_shells import _Agent


class _BeatingAgent(_Agent):
    """Takes its instruction; interrupted, its hook writes a beat on its session first."""

    def __init__(self, panes: MemoryPanes, chain: Chain) -> None:
        super().__init__(panes)
        self.chain, self.beats = chain, 0

    def activate(self, plan: object, dispatch_id: str, witness: object) -> None:
        self.panes.send_text(dispatch_id, "Start.")

    def interrupt(self, plan: object, dispatch_id: str) -> bool:
        with self.chain.workspace() as ws:
            session_id = dispatch_payload(ws.store.records("dispatch").read(dispatch_id))[
                "session_id"
            ]
            seen = ws.store.records("session").read(str(session_id))
            now = next_after(seen.observed_at, ws.now())
            nxt = sessions.heartbeat(seen.state, seen.payload, now=now)
            change = Change(nxt.state, as_json(nxt.payload), "op-beat", SYSTEM_ACTOR, now)
            ws.store.records("session").write_next(seen, change)
        self.beats += 1
        return True


def test_a_park_is_decided_again_on_a_beat_written_meanwhile(deliverable: Chain) -> None:
    use_worker(deliverable, "silent")
    dispatch_id, event_id = accepted(deliverable, "Parked beside a beat")
    panes = MemoryPanes(random.Random(0))
    agent = _BeatingAgent(panes, deliverable)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        d.panes = panes
        d.activator = agent
        d.deliver(event_id)
        until = add_ms(ws.now(), 30_000)
        said = d.park(dispatch_id, "pool scaled down: worker-2 drains", until)
        session_id = str(dispatch_payload(d.dispatch(dispatch_id))["session_id"])
        session = ws.store.records("session").read(session_id)
        worker = ws.store.records("worker").read(dispatch_id)
        history = [v.operation_id for v in ws.store.records("session").history(session_id)]
    assert agent.beats == 1
    assert said["parked"] == "interrupted", said
    assert (session.state, session.payload["parked_until"]) == ("parked", until)
    assert worker.payload["health"] == "parked"
    assert "op-beat" in history  # the hook's beat kept, the park written after it
