"""`oms worker deliver --event-id E`: exactly once per event (ADR 0009 "Delivery"; seed 003).

Under the outbox lock for (E, `oms-worker-delivery`):
1. a receipt exists: return it (`replayed`), launch nothing;
2. the event must still match its dispatch (accepted version, ids, attempt, lease token);
3. an accepted dispatch is launched (`launch.py`); an already advanced one — or a cancelled one
   that was launched — has its exact session binding recovered; a cancelled one that never got a
   session is `refused` (nothing ran, nothing will);
4. the receipt records the outcome and the nonce derived from (event, consumer).

So every event is closed by its next delivery, whatever its dispatch became meanwhile (a deliverer
killed between the launch and the receipt; the conductor's deliver phase asks again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.canonical import JsonObject, access, add_ms, equal
from oms.domain import pool as pool_rules
from oms.errors import AuthorityChangedError, one_line
from oms.limits import LIMITS
from oms.schemas.payloads import DispatchState
from oms.services.chain.liveness import CONSUMER
from oms.services.delivery import lifecycle
from oms.services.delivery.launch import launch_worker
from oms.store import Record
from oms.store.payloads import dispatch_payload, pool_payload, session_payload, worker_payload

if TYPE_CHECKING:
    from oms.services.delivery.context import DeliveryContext

RECOVERABLE = ("acknowledged", "result-received", "resolved", "cancelled")


def deliver(d: DeliveryContext, event_id: str) -> JsonObject:
    """Deliver one accepted dispatch, exactly once per event."""
    box = d.ws.store.outbox(CONSUMER)
    with box.lock(event_id) as held:
        existing = box.read_receipt(event_id)
        if existing is not None:
            return {"status": "replayed", "outcome": existing.result}
        event = d.ws.store.events.read(event_id, "dispatch-delivery-requested")
        dispatch = d.dispatch(access.text(event.payload, "dispatch_id"))
        d.check_host(dispatch.record_id)  # another host's worker launches there (no receipt here)
        _check_binding(d, dispatch, event.payload, event_id)
        if dispatch.state == DispatchState.ACCEPTED:
            outcome = launch_worker(d, dispatch, event_id, guard=held.confirm).outcome
            outcome = _parked_if_drained(d, dispatch, outcome)
        else:
            outcome = _recover(d, dispatch, event_id)
        receipt, _ = box.commit_receipt(event_id, d.ws.now(), outcome)
        return {"status": "processed", "outcome": receipt.result}


def _parked_if_drained(d: DeliveryContext, dispatch: Record, outcome: JsonObject) -> JsonObject:
    """A launch into a pool slot that a `oms pool scale --force` made drain meanwhile parks its
    worker, as that scale parks the running ones (ADR 0016, amendment `drainlate`). Asked after
    the launch wrote its worker healthy, as the scale reads the workers after it wrote the pool:
    of a scale and a launch at once, whichever looks second sees the other, and parks it."""
    if outcome.get("status") not in ("created", "reused"):
        return outcome  # parked, refused or ended already: nothing runs
    slot = dispatch_payload(dispatch)["worker_id"]
    record = d.ws.store.records("pool").read_if_exists(pool_rules.POOL_ID)
    if record is None or slot not in pool_rules.forced(pool_payload(record)):
        return outcome
    why = pool_rules.drain_park(slot)
    worker = worker_payload(d.worker(dispatch.record_id))
    if worker["health"] == "parked":  # the scale parked it once its session was registered
        return {**outcome, "status": "parked", "reason": worker["health_reason"] or why}
    lifecycle.park(d, dispatch.record_id, why, add_ms(d.ws.now(), LIMITS.force_park_ms))
    return {**outcome, "status": "parked", "reason": why}


def _check_binding(d: DeliveryContext, dispatch: Record, event: JsonObject, event_id: str) -> None:
    version = access.integer(event, "dispatch_version")
    history = d.ws.store.records("dispatch").history(dispatch.record_id)
    accepted = history[version] if version < len(history) else None
    payload = dispatch_payload(dispatch)
    if (
        accepted is None
        or accepted.state != DispatchState.ACCEPTED
        or payload.get("delivery_event_id") != event_id
        or payload.get("accepted_at") is None
        or payload.get("worker_record_id") != event["worker_record_id"]
        or payload.get("ticket_id") != event["ticket_id"]
        or payload.get("attempt") != event["attempt"]
        or not equal(str(payload.get("lease_token")), str(event["lease_token"]))
    ):
        raise AuthorityChangedError("delivery event changed its accepted dispatch binding")


def _recover(d: DeliveryContext, dispatch: Record, event_id: str) -> JsonObject:
    """An advanced (or cancelled) dispatch: its exact session binding, launching nothing; a
    cancelled dispatch that never got a session: `refused`."""
    if dispatch.state not in RECOVERABLE:
        raise AuthorityChangedError(
            f"delivery cannot recover dispatch state {dispatch.state}",
            hint="only an accepted dispatch is launched; propose and review a new one",
        )
    session = d.session(dispatch_payload(dispatch)["session_id"])
    if session is None and dispatch.state == DispatchState.CANCELLED:
        why = dispatch_payload(dispatch).get("reason")
        return {
            "status": "refused",
            "dispatch_id": dispatch.record_id,
            "dispatch_state": dispatch.state,
            "reason": one_line(f"the dispatch was cancelled before it was launched: {why}", 512),
        }
    worker = d.worker(dispatch.record_id)
    p, w = dispatch_payload(dispatch), worker_payload(worker)
    if (
        session is None
        or (s := session_payload(session))["dispatch_id"] != dispatch.record_id
        or s["source_event_id"] != event_id
        or s["ticket_id"] != p["ticket_id"]
        or s["role_id"] != p["role_id"]
        or s["engine"] != p["engine"]
        or s["native_session_ref"] != p["session_id"]
        or s["tmux_pane_id"] is None
        or w["dispatch_id"] != dispatch.record_id
        or w["ticket_id"] != p["ticket_id"]
        or w["session_id"] != p["session_id"]
        or w["role_id"] != p["role_id"]
        or w["provider_mode"] != p["provider_mode"]
        or w["worktree_id"] != p["worktree_id"]
    ):
        raise AuthorityChangedError(
            "advanced dispatch has no exact worker delivery binding",
            hint="its session or worker record does not match the dispatch: run `oms store verify`",
        )
    return {
        "status": "recovered",
        "dispatch_id": dispatch.record_id,
        "dispatch_state": dispatch.state,
        "session_id": session.record_id,
        "session_state": session.state,
        "pane_id": session_payload(session)["tmux_pane_id"],
        "provider_mode": p["provider_mode"],
    }
