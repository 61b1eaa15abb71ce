"""The worker pool record (`pool`, one record; rules in `domain/pool.py`): `oms pool show|scale`, and
what the conductor asks of it each tick (which slots are free, which drained).

Every change is made under the pool lock, so two `oms pool scale` (or a scale and a tick) never decide on
the same version; a lost race is a version conflict, retried on the new version. A slot is busy while a
ticket is leased to it, or while a worker of a ticket it held still runs (a worker ending after its result
holds its slot).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from oms.canonical import JsonObject, add_ms, next_after, stable_id
from oms.domain import pool as rules
from oms.errors import OmsError, one_line
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store import Record

POOL_ID = "pool"
LOCK_CONSUMER = "oms-pool"
FORCE_PARK_MS = 24 * 3600 * 1000  # a forced scale-down parks busy workers for a day (`oms worker resume` earlier)


@dataclass(frozen=True, slots=True)
class Occupancy:
    """Which slots hold work: slot → the ticket leased to it, or whose worker still runs."""

    held: dict[str, str]

    @classmethod
    def of(cls, tickets: Iterable[Record], workers: Iterable[Record]) -> Occupancy:
        by_id = {t.record_id: t for t in tickets}
        held = {
            str(t.payload["worker_id"]): t.record_id
            for t in by_id.values()
            if t.state == "leased" and str(t.payload.get("worker_id") or "").startswith(rules.PREFIX)
        }
        for worker in workers:
            ticket = by_id.get(str(worker.payload["ticket_id"]))
            slot = None if ticket is None else ticket.payload.get("worker_id")
            if worker.payload["health"] != "stopped" and isinstance(slot, str) and slot.startswith(rules.PREFIX):
                held.setdefault(slot, ticket.record_id if ticket else "")
        return cls(held)


def read(ws: Workspace) -> Record | None:
    """The pool record, if one was made."""
    return ws.store.records("pool").read_if_exists(POOL_ID)


def current(ws: Workspace) -> JsonObject:
    """The pool's payload (the config's `max_workers` slots until a first scale or tick made the record)."""
    record = read(ws)
    return record.payload if record is not None else rules.initial(ws.config().max_workers, ws.now())


def _write(ws: Workspace, record: Record | None, payload: JsonObject, why: str) -> Record:
    records = ws.store.records("pool")
    if record is None:
        op = stable_id("pool-create", POOL_ID)
        return records.create(
            POOL_ID, state="active", payload=payload, operation_id=op, actor=SYSTEM_ACTOR, observed_at=ws.now()
        ).record
    op = stable_id("pool", why, record.version)
    return records.transition(
        POOL_ID,
        expected_version=record.version,
        state="active",
        payload=payload,
        operation_id=op,
        actor=SYSTEM_ACTOR,
        observed_at=next_after(record.observed_at, ws.now()),
    ).record


def settled(ws: Workspace, occupancy: Occupancy) -> JsonObject:
    """The pool for a tick: made if missing, draining slots that hold nothing removed."""
    with ws.store.outbox(LOCK_CONSUMER).lock("pool", wait_s=10):
        record = read(ws)
        payload = current(ws)
        payload, gone = rules.settle(payload, busy=occupancy.held, now=ws.now())
        if record is None or gone:
            _write(ws, record, payload, "settle-" + "-".join(gone))
        return payload


def scale(
    ws: Workspace, occupancy: Occupancy, *, to: int | None, up: int, down: int, force: bool
) -> tuple[JsonObject, rules.Plan]:
    """Scale the pool (to `to`, or by `up`/`down` active slots) under the pool lock."""
    with ws.store.outbox(LOCK_CONSUMER).lock("pool", wait_s=10):
        record = read(ws)
        payload = current(ws)
        active = len(rules.names(payload, "active"))
        target = to if to is not None else active + up - down
        payload, plan = rules.scale(
            payload, to=target, max_workers=ws.config().max_workers, busy=occupancy.held, force=force, now=ws.now()
        )
        if record is None or plan != rules.Plan([], [], [], [], []):
            _write(ws, record, payload, f"scale-{target}-{int(force)}")
        return payload, plan


def park_draining(ws: Workspace, occupancy: Occupancy, slots: list[str]) -> list[str]:
    """Park the running workers of `slots` (a forced scale-down: kept, never killed); one line each."""
    from oms.services.delivery import Delivery

    lines = []
    delivery = Delivery.open(ws)
    tickets = {slot: occupancy.held.get(slot) for slot in slots}
    until = add_ms(ws.now(), FORCE_PARK_MS)
    for worker in (w for w in _latest(ws, "worker") if w.payload["health"] in ("healthy", "stalled")):
        slot = next((s for s, t in tickets.items() if t == worker.payload["ticket_id"]), None)
        if slot is None:
            continue
        try:
            delivery.park(worker.record_id, f"pool scaled down: {slot} drains", until)
            lines.append(f"{slot}: parked {worker.record_id} until {until}")
        except OmsError as exc:
            lines.append(f"{slot}: {worker.record_id} not parked: {one_line(exc.message)}")
    return lines


def _latest(ws: Workspace, kind: str) -> list[Record]:
    records = ws.store.records(kind)
    return [r for r in (records.read_if_exists(i) for i in records.ids()) if r is not None]
