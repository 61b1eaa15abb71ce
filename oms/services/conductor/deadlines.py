"""The conductor's deadlines phase (`services/conductor/tick.py` runs it): a running pool worker's
lease is renewed before it runs out (an attempt that lost its lease anyway is stopped: it is
fenced), a worker past its role's `deadline_minutes` is stopped (`deadline`; one waiting for a
person is stopped and its ticket waits too; one a forced drain holds parked gives its ticket back
as a drain's, nothing counted), a worker running on in a slot a forced scale drains, which
neither its parks nor its launch's look parked, parks (ADR 0016, amendments `drainclock`,
`drainsweep`), fenced attempts and silent channels park (`check_liveness`), a session past its
heartbeat deadline is `stalled` and healthy again once it beats. Decisions are
`domain/conductor.py`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.canonical import add_ms, stable_id
from oms.domain import conductor as conductor_rules
from oms.domain import pool as pool_rules
from oms.domain import workers
from oms.domain.config import role as configured_role
from oms.domain.machine import Next
from oms.domain.pool import PREFIX as POOL_PREFIX
from oms.errors import OmsError, one_line
from oms.limits import LIMITS
from oms.schemas.payloads import PoolPayload, TicketState, WorkerState
from oms.services.chain import tickets
from oms.services.conductor import pool, work
from oms.services.conductor.resolve import ACTOR, own_workers
from oms.services.delivery.service import Delivery
from oms.store import Record
from oms.store.payloads import (
    dispatch_payload,
    session_payload,
    text_set,
    ticket_payload,
    worker_payload,
)

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload


def deadlines(d: Delivery, done: list[str], skipped: list[str]) -> None:
    """The deadlines phase: leases renewed under running pool workers, fenced attempts stopped, a
    role's wall-clock limit, silent channels (`check_liveness`) and the heartbeat (`stalled`)."""
    now = d.ws.now()
    config = d.ws.config()
    slots: list[PoolPayload] = []  # the pool, read once, when a pool worker runs
    for worker in own_workers(d.ws):
        dispatch_id = worker.record_id
        if worker_payload(worker)["health"] == "stopped" or worker.state not in (
            WorkerState.IDLE,
            WorkerState.WORKING,
        ):
            continue
        try:
            dispatch = d.dispatch(dispatch_id)
            ticket = d.ws.store.records("ticket").read(dispatch_payload(dispatch)["ticket_id"])
            if pooled(dispatch) and _moved_on(ticket, dispatch):
                why = (
                    f"its ticket moved on without it ({ticket.state}, attempt "
                    f"{ticket_payload(ticket)['attempt']}): "
                    "its lease ran out, the attempt is fenced"
                )
                d.stop(dispatch_id, why, end_reason="deadline", by=ACTOR)
                done.append(f"{dispatch_id}: stopped, {why}")
                continue
            _renew(d, dispatch, ticket, now, config.lease_minutes, done)
            session = d.session(worker_payload(worker)["session_id"])
            if session is None:
                continue
            started = d.ws.store.records("session").read_version(session.record_id, 0).observed_at
            limit = configured_role(config, worker_payload(worker)["role_id"]).deadline_minutes
            if conductor_rules.past_deadline(started, limit, now):
                if _drain_holds(d, worker, dispatch):  # the drain's park: nothing counted
                    work.end_drained(d, ticket, dispatch, done)
                else:
                    _stop_at_deadline(d, worker, limit, done)
                continue
            if pooled(dispatch) and _runs_past_drain(d, worker, dispatch, slots, done):
                continue  # parked now, as its forced drain's scale parks
            before = worker_payload(worker)["health"]
            d.check_liveness(dispatch_id)
            now_health = worker_payload(d.worker(dispatch_id))["health"]
            if now_health != before:
                done.append(
                    f"{dispatch_id}: {now_health} "
                    f"({worker_payload(d.worker(dispatch_id))['health_reason']})"
                )
                continue
            _heartbeat(d, worker, session, now, done)
        except OmsError as exc:
            skipped.append(f"{dispatch_id}: {one_line(exc.message)}")


def pooled(dispatch: Record) -> bool:
    return str(dispatch_payload(dispatch).get("worker_id") or "").startswith(POOL_PREFIX)


def _moved_on(ticket: Record, dispatch: Record) -> bool:
    """Has the ticket left this dispatch's attempt (its lease ran out, or it was decided without
    it)?"""
    return (
        ticket.state != TicketState.LEASED
        or ticket_payload(ticket).get("attempt") != dispatch_payload(dispatch).get("attempt")
        or ticket_payload(ticket).get("session_id") != dispatch_payload(dispatch).get("session_id")
    )


def _renew(
    d: Delivery, dispatch: Record, ticket: Record, now: str, lease_minutes: int, done: list[str]
) -> None:
    """Renew the lease of a ticket whose pool worker has not ended, once less than half of it is
    left."""
    expires = ticket_payload(ticket)["lease_expires_at"]
    if not pooled(dispatch) or not conductor_rules.renew_due(expires, lease_minutes, now):
        return
    renewed = tickets.renew(
        d.ws, ticket.record_id, text_set(ticket_payload(ticket)["lease_token"], "lease_token")
    )
    done.append(
        f"{ticket.record_id}: lease renewed until {ticket_payload(renewed)['lease_expires_at']} "
        f"({dispatch.record_id} has not ended)"
    )


def pooled_ticket(ticket: Record) -> bool:
    return str(ticket_payload(ticket).get("worker_id") or "").startswith(POOL_PREFIX)


def waits_for_person(d: Delivery, worker: Record) -> bool:
    """`conductor_rules.waits_for_person` of a worker that has not ended, on its session as
    recorded."""
    if worker_payload(worker)["health"] != "parked":
        return False
    session = d.session(worker_payload(worker)["session_id"])
    return conductor_rules.waits_for_person(
        session_state=None if session is None else session.state,
        parked_until=None if session is None else session_payload(session)["parked_until"],
        health="parked",
        reason=worker_payload(worker)["health_reason"],
    )


def _runs_past_drain(
    d: Delivery, worker: Record, dispatch: Record, slots: list[PoolPayload], done: list[str]
) -> bool:
    """Park a worker running on in a slot a forced scale drains that neither the scale's parks
    nor its launch's look parked (`pool_rules.runs_past_drain`); True if it was."""
    if worker_payload(worker)["health"] not in ("healthy", "stalled"):
        return False
    if not slots:
        slots.append(pool.current(d.ws))
    slot = str(dispatch_payload(dispatch)["worker_id"])
    if slot not in pool_rules.forced(slots[0]):
        return False
    parks = [
        (v.observed_at, str(worker_payload(v)["health_reason"]))
        for v in d.ws.store.records("worker").history(worker.record_id)
        if worker_payload(v)["health"] == "parked"
    ]
    if not pool_rules.runs_past_drain(slots[0], slot, parks):
        return False
    why = pool_rules.drain_park(slot)
    until = add_ms(d.ws.now(), LIMITS.force_park_ms)
    d.park(worker.record_id, why, until)
    done.append(f"{worker.record_id}: parked until {until} ({why}: it ran on in a forced slot)")
    return True


def _drain_holds(d: Delivery, worker: Record, dispatch: Record) -> bool:
    """Is `worker` parked, held by a forced drain (`pool_rules.drain_holds`), and not waiting for
    a person (that one is stopped for the person, as any)?"""
    if worker_payload(worker)["health"] != "parked" or waits_for_person(d, worker):
        return False
    slot = str(dispatch_payload(dispatch)["worker_id"])
    reason = worker_payload(worker)["health_reason"]
    return pool_rules.drain_holds(pool.current(d.ws), slot, reason)


def _stop_at_deadline(d: Delivery, worker: Record, limit: int, done: list[str]) -> None:
    """Stop a worker past its role's limit: a failed attempt (`deadline`), or — one parked for a
    person — a decision its ticket waits on (`stopped`: blocked, never retried blindly)."""
    reason = worker_payload(worker)["health_reason"]
    if waits_for_person(d, worker):
        why = f"parked ({reason}) past its role's {limit}-minute limit, waiting for a person"
        d.stop(worker.record_id, why, end_reason="stopped", by=ACTOR)
        done.append(
            f"{worker.record_id}: stopped at its {limit}-minute deadline; it waits for a person"
        )
        return
    d.stop(
        worker.record_id,
        f"ran past its role's {limit}-minute limit",
        end_reason="deadline",
        by=ACTOR,
    )
    done.append(f"{worker.record_id}: stopped at its {limit}-minute deadline")


def _heartbeat(d: Delivery, worker: Record, session: Record, now: str, done: list[str]) -> None:
    """Healthy past the heartbeat deadline → `stalled` (kept running); stalled and beating → healthy
    (`conductor_rules.beat_health`: a parked worker is left parked)."""
    deadline = session_payload(session)["heartbeat_deadline_at"]
    late = conductor_rules.stalled(deadline, now)
    health = worker_payload(worker)["health"]
    target = conductor_rules.beat_health(health, session.state, late=late)
    if target is None:
        return
    why = "no heartbeat from its hooks before the deadline" if target == "stalled" else None

    def decide(current: Record, at: str) -> Next[WorkerPayload] | None:
        if worker_payload(current)["health"] != health:
            return None
        payload = worker_payload(current)
        return workers.set_health(current.state, payload, target, now=at, reason=why)

    d.move_worker(
        worker.record_id, decide, op=stable_id("cnd-beat", worker.record_id, worker.version, target)
    )
    done.append(f"{worker.record_id}: {target}")
