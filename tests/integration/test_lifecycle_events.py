"""Seed 003's session lifecycle events: registered, activated, parked, resumed, stopped — one
immutable event per step, derived from the session version it follows (a retry writes the same
bytes)."""

from __future__ import annotations

from typing import Any

from oms.canonical import add_ms
from oms.services.delivery.service import Delivery
from oms.services.delivery.session_events import after_step, event_id
from oms.store.verify import verify
from tests.chain import Chain, accepted, use_worker
from tests.integration.test_delivery import _deliver, _wait_for

LIFECYCLE = (
    "session-registered",
    "session-activated",
    "session-parked",
    "session-resumed",
    "session-stopped",
)


def _lifecycle(chain: Chain) -> list[tuple[str, dict[str, Any]]]:
    with chain.workspace() as ws:
        events = [ws.store.events.read(e) for e in ws.store.events.ids()]
    found: list[tuple[dict[str, Any], str]] = [
        (dict(e.payload), e.event_type) for e in events if e.event_type in LIFECYCLE
    ]
    found.sort(key=lambda f: (int(str(f[0]["session_version"])), LIFECYCLE.index(f[1])))
    return [(t, p) for p, t in found]


def test_park_resume_stop_are_events_in_order(deliverable: Chain) -> None:
    out = use_worker(deliverable)
    dispatch_id, event_id_ = accepted(deliverable)
    _deliver(deliverable, event_id_)
    _wait_for(out)
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        until = add_ms(ws.now(), 10 * 60_000)
        delivery.park(dispatch_id, "a break", until)
        deliverable.clock.advance(11)
        delivery.resume(dispatch_id)
        delivery.stop(dispatch_id, "done for today")
        session_id = str(ws.store.records("dispatch").read(dispatch_id).payload["session_id"])
    seen = _lifecycle(deliverable)
    assert [t for t, _ in seen] == [
        "session-registered",
        "session-activated",  # the command worker took its start (delivery saw its first hook)
        "session-parked",
        "session-resumed",
        "session-stopped",
    ]
    assert all(p["session_id"] == session_id and p["dispatch_id"] == dispatch_id for _, p in seen)
    assert seen[2][1]["parked_until"] == until
    assert seen[4][1]["reason"] == "done for today"
    versions = [p["session_version"] for _, p in seen]
    assert versions == sorted(versions)
    assert versions[0] == 0
    assert verify(str(deliverable.state)).ok


def test_writing_an_event_again_is_a_no_op(deliverable: Chain) -> None:
    out = use_worker(deliverable)
    dispatch_id, event_id_ = accepted(deliverable)
    _deliver(deliverable, event_id_)
    _wait_for(out)
    with deliverable.workspace() as ws:
        session_id = str(ws.store.records("dispatch").read(dispatch_id).payload["session_id"])
        first = ws.store.records("session").read_version(session_id, 0)
        before = ws.store.events.ids()
        after_step(ws, None, first)  # a retry, or a second deliverer: the same bytes, nothing new
        assert ws.store.events.ids() == before
        assert event_id(session_id, 0, "session-registered") in before
