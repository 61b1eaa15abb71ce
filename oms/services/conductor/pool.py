"""The worker pool record (`pool`, one record; rules in `domain/pool.py`): `oms pool show|scale`,
and what the conductor asks of it each tick (which slots are free, which drained).

Every change is made under the pool lock, so two `oms pool scale` (or a scale and a tick) never
decide on the same version; a lost race is a version conflict, retried on the new version. Who holds
a slot is read under that lock too (`scale`), and the tick leases free slots under it (`work.fill`):
a scale never removes as idle a slot a tick has just leased, and a tick never leases a slot a scale
has just removed. A slot is busy while a ticket is leased to it, or while a worker launched in it
still runs, whatever its ticket became since (a worker ending after its result, or after its ticket
was retried or its lease expired, holds its slot: a pool of K never runs K + 1 agents).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from oms.canonical import add_ms, next_after, stable_id
from oms.domain import pool as pool_rules
from oms.errors import OmsError, one_line
from oms.limits import LIMITS
from oms.schemas.payloads import DispatchState, PoolPayload, TicketState
from oms.services.chain import dispatches
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store import Change, Record
from oms.store.outbox import ProcessingLock
from oms.store.payloads import (
    as_json,
    dispatch_payload,
    pool_payload,
    ticket_payload,
    worker_payload,
)

POOL_ID = pool_rules.POOL_ID
LOCK_CONSUMER = "oms-pool"


@dataclass(frozen=True, slots=True)
class Occupancy:
    """Which slots hold work: slot → the ticket leased to it, or whose worker still runs there; and
    slot → the workers still running there (dispatch id → its ticket)."""

    held: dict[str, str]
    running: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def of(
        cls, tickets: Iterable[Record], workers: Iterable[Record], dispatches: Iterable[Record] = ()
    ) -> Occupancy:
        by_id = {t.record_id: t for t in tickets}
        launched_in = {d.record_id: dispatch_payload(d)["worker_id"] for d in dispatches}
        prefix = pool_rules.PREFIX
        held = {
            str(ticket_payload(t)["worker_id"]): t.record_id
            for t in by_id.values()
            if t.state == TicketState.LEASED
            and (ticket_payload(t)["worker_id"] or "").startswith(prefix)
        }
        running: dict[str, dict[str, str]] = {}
        for worker in workers:
            if worker_payload(worker)["health"] == "stopped":
                continue
            ticket_id = worker_payload(worker)["ticket_id"]
            ticket = by_id.get(ticket_id)
            slot = launched_in.get(
                worker.record_id
            )  # the slot it was launched in, whatever its ticket is now
            if slot is None and ticket is not None:
                slot = ticket_payload(ticket).get("worker_id")
            if isinstance(slot, str) and slot.startswith(pool_rules.PREFIX):
                held.setdefault(slot, ticket_id)
                running.setdefault(slot, {})[worker.record_id] = ticket_id
        return cls(held, running)


def occupancy(ws: Workspace) -> Occupancy:
    """Who holds which slot now (a record that cannot be read is left out: `oms store verify`
    reports it)."""
    return Occupancy.of(_latest(ws, "ticket"), _latest(ws, "worker"), _latest(ws, "dispatch"))


def waits(ws: Workspace, held: Occupancy) -> dict[str, str]:
    """Slot → what the dispatch of the ticket it holds waits for (a person's approval:
    `dispatches.awaiting_person`), for each held slot whose ticket waits for one."""
    proposed = ws.store.latest("dispatch").in_states((DispatchState.PROPOSED,))
    found = dispatches.shown_waits(ws, proposed)
    return {
        slot: found[d.record_id]
        for d in proposed
        if d.record_id in found
        and held.held.get(slot := str(dispatch_payload(d)["worker_id"]))
        == dispatch_payload(d)["ticket_id"]
    }


def lock(ws: Workspace) -> ProcessingLock:
    """The pool lock (waited for: its holders keep it for a few record writes)."""
    return ws.store.outbox(LOCK_CONSUMER).lock("pool", wait_s=10)


def read(ws: Workspace) -> Record | None:
    """The pool record, if one was made."""
    return ws.store.records("pool").read_if_exists(POOL_ID)


def current(ws: Workspace) -> PoolPayload:
    """The pool's payload (the config's `max_workers` slots until a first scale or tick made the
    record)."""
    record = read(ws)
    if record is not None:
        return pool_payload(record)
    return pool_rules.initial(ws.config().max_workers, ws.now())


def _write(ws: Workspace, record: Record | None, pool: PoolPayload, why: str) -> Record:
    records = ws.store.records("pool")
    payload = as_json(pool)
    if record is None:
        op = stable_id("pool-create", POOL_ID)
        return records.create(
            POOL_ID,
            state="active",
            payload=payload,
            operation_id=op,
            actor=SYSTEM_ACTOR,
            observed_at=ws.now(),
        ).record
    op = stable_id("pool", why, record.version)
    change = Change("active", payload, op, SYSTEM_ACTOR, next_after(record.observed_at, ws.now()))
    return records.write_next(record, change).record


def seen(ws: Workspace, occupancy: Occupancy) -> tuple[Record | None, pool_rules.Seen]:
    """What the pool machine decides on (the caller holds `lock(ws)`): the record, and what was
    seen of it and of who holds which slot."""
    record = read(ws)
    payload = None if record is None else pool_payload(record)
    return record, pool_rules.Seen(payload, occupancy.held, ws.config().max_workers, ws.now())


def perform_writes(ws: Workspace, record: Record | None, decision: pool_rules.Decision) -> None:
    """Write what the machine decided (its `Write` effects; the others are the caller's)."""
    for effect in decision.effects:
        if isinstance(effect, pool_rules.Write):
            record = _write(ws, record, effect.payload, effect.why)


def scale(
    ws: Workspace, *, to: int | None, up: int, down: int, force: bool
) -> tuple[PoolPayload, pool_rules.Plan, Occupancy]:
    """Scale the pool (to `to`, or by `up`/`down` active slots) under the pool lock, deciding on who
    holds which slot as it is once the lock is held; (pool, plan, that occupancy). The workers to
    park (`plan.park`) are the caller's: `park_draining`, once the lock is released."""
    with lock(ws):
        held = occupancy(ws)
        record, now = seen(ws, held)
        active = len(pool_rules.names(current(ws), "active"))
        target = to if to is not None else active + up - down
        decision = pool_rules.decide(now, pool_rules.Scale(target, force))
        perform_writes(ws, record, decision)
        return decision.payload, decision.plan, held


def park_draining(ws: Workspace, occupancy: Occupancy, slots: list[str]) -> list[str]:
    """Park the running workers of `slots` (a forced scale-down: kept, never killed); one line
    each."""
    from oms.services.delivery.service import Delivery

    lines = []
    delivery = Delivery.open(ws)
    until = add_ms(ws.now(), LIMITS.force_park_ms)
    for slot in slots:
        for dispatch_id in occupancy.running.get(slot, {}):
            worker = ws.store.records("worker").read_if_exists(dispatch_id)
            if worker is None or worker_payload(worker)["health"] not in ("healthy", "stalled"):
                continue
            try:
                delivery.check_host(dispatch_id)  # another host's: parked there, not here
                if delivery.session(worker_payload(worker)["session_id"]) is None:  # it looks
                    lines.append(f"{slot}: {dispatch_id} is launching: it parks once launched")
                    continue
                delivery.park(dispatch_id, pool_rules.drain_park(slot), until)
                lines.append(f"{slot}: parked {dispatch_id} until {until}")
            except OmsError as exc:
                lines.append(f"{slot}: {dispatch_id} not parked: {one_line(exc.message)}")
    return lines


def _latest(ws: Workspace, kind: str) -> list[Record]:
    return ws.store.latest(
        kind
    ).records  # unreadable: `oms store verify` reports it, never refusing the rest
