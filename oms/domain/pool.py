"""The worker pool (seed 000, with its flaws fixed): pure rules over the pool record's payload.

- Slots are named `worker-<n>`; `n` comes from `next_index`, which only grows: an index is never
  used twice, whatever was scaled, drained or failed (the seed's rollback reused them).
- Scaling takes the number of *active* slots to `to`, between 1 and the config's `max_workers`
  (never below one worker: the pool stops only with the conductor).
- Down: idle slots (holding no ticket and no running worker) go first, newest first, and are removed
  at once; busy ones are marked `draining` — neither capacity (no new ticket) nor drained (kept
  until their work has ended); with `force` their workers are parked (never killed) as they drain,
  and the slot is marked `forced`: a launch in it that ends after the drain parks itself
  (`drain_park`), and a later `--force` parks the workers of every draining slot again. A forced
  slot's parked workers are held (`drain_holds`: no clock resumes them), its running ones that
  its parks missed are parked by their host's tick (`runs_past_drain`), and a drain that is over
  resumes what it parked (`drain_over`).
- Up: draining slots are made active again first (they never left), then new slots are added.
- Settling (every tick): a draining slot that holds nothing any more is removed.
- Filling (every tick, after settling): free active slots take queued tickets, never more than
  `max_workers` slots holding work at once (a pool above a lowered `max_workers` fills nothing).

The machine is `decide(seen, event)`: what the shell observed (the record's payload or none, the
busy slots, `max_workers`, the time) and an event (`Scale`, `Fill`) in, the next payload and the
effects to perform out (`Write` the record, `Lease` tickets into slots, `Park` a draining slot's
workers, a slot that `Left`). `services/conductor/pool.py` and `work.fill` are its IO shell.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import NamedTuple, TypeAlias

from oms.canonical import parse_ts
from oms.errors import InvalidInputError
from oms.schemas.payloads import PoolPayload, PoolSlotsItem

PREFIX = "worker-"
POOL_ID = "pool"  # the pool record's id (one record)


class Plan(NamedTuple):
    """What a scale did: slots added, removed, marked draining, and whose workers to park
    (`force`)."""

    added: list[str]
    removed: list[str]
    draining: list[str]
    park: list[str]
    reactivated: list[str]


def _slot(index: int, now: str) -> PoolSlotsItem:
    return {"index": index, "name": f"{PREFIX}{index}", "state": "active", "since": now}


def initial(target: int, now: str) -> PoolPayload:
    """A pool of `target` active slots, `worker-1` … `worker-<target>`."""
    slots = [_slot(n, now) for n in range(1, target + 1)]
    return {"next_index": target + 1, "slots": slots, "updated_at": now}


def names(payload: PoolPayload, state: str | None = None) -> list[str]:
    """Slot names (of one `state`, or all), by index."""
    return [s["name"] for s in payload["slots"] if state is None or s["state"] == state]


def scale(
    payload: PoolPayload, *, to: int, max_workers: int, busy: Collection[str], force: bool, now: str
) -> tuple[PoolPayload, Plan]:
    """Take the active slots to `to` (`busy`: slots holding a ticket or a running worker)."""
    if to < 1:
        raise InvalidInputError(
            f"a pool never has fewer than one worker (asked for {to})",
            hint="stop the conductor to stop taking tickets (`oms conductor run` ends on Ctrl-C)",
        )
    if to > max_workers:
        raise InvalidInputError(
            f"the pool's limit is max_workers = {max_workers} (asked for {to})",
            hint="raise [pool] max_workers in .oms/config.toml and commit it",
        )
    slots = [s.copy() for s in payload["slots"]]
    next_index = payload["next_index"]
    plan = Plan([], [], [], [], [])
    active = [s for s in slots if s["state"] == "active"]
    if to > len(active):
        for slot in sorted(
            (s for s in slots if s["state"] == "draining"), key=lambda s: s["index"]
        ):
            if len([s for s in slots if s["state"] == "active"]) >= to:
                break
            slot["state"], slot["since"] = "active", now
            slot.pop("forced", None)
            plan.reactivated.append(slot["name"])
        while len([s for s in slots if s["state"] == "active"]) < to:
            slots.append(_slot(next_index, now))
            plan.added.append(f"{PREFIX}{next_index}")
            next_index += 1
    elif to < len(active):
        excess = len(active) - to
        newest_first = sorted(active, key=lambda s: -s["index"])
        idle = [s for s in newest_first if s["name"] not in busy]
        working = [s for s in newest_first if s["name"] in busy]
        for slot in (idle + working)[:excess]:
            if slot["name"] in busy:
                slot["state"], slot["since"] = "draining", now
                plan.draining.append(slot["name"])
            else:
                plan.removed.append(slot["name"])
        slots = [s for s in slots if s["name"] not in plan.removed]
    if force:  # every draining slot's workers, this scale's or an earlier one's (a killed scale)
        for slot in sorted(slots, key=lambda s: s["index"]):
            if slot["state"] == "draining":
                slot["forced"] = True
                if slot["name"] in busy:
                    plan.park.append(slot["name"])
    return {"next_index": next_index, "slots": slots, "updated_at": now}, plan


def forced(payload: PoolPayload) -> list[str]:
    """Draining slots a `--force` scale marked: their workers are parked (by index)."""
    return [s["name"] for s in payload["slots"] if s["state"] == "draining" and s.get("forced")]


def shown_state(slot: PoolSlotsItem) -> str:
    """A slot's state as `oms pool show` says it: `draining (forced)` for a forced drain."""
    return (
        "draining (forced)" if slot["state"] == "draining" and slot.get("forced") else slot["state"]
    )


def drain_park(slot: str) -> str:
    """Why a forced drain parks a worker of `slot` (it is parked for `LIMITS.force_park_ms`)."""
    return f"pool scaled down: {slot} drains"


def drain_holds(payload: PoolPayload, slot: str, reason: str | None) -> bool:
    """Does a forced drain hold a parked worker of `slot` (ADR 0016, amendment `drainclock`)? It
    was parked by one (`drain_park`), or, parked for anything else (a provider's rest), its slot
    is forced now: no clock resumes it while the slot is forced, and its role's wall-clock limit
    gives its ticket back as a drain's, nothing counted."""
    return reason == drain_park(slot) or slot in forced(payload)


def drain_over(payload: PoolPayload, slot: str, reason: str | None) -> bool:
    """Was a parked worker of `slot` parked by a forced drain that is over (its slot active again,
    or draining no longer forced)? It is resumed at once, not at its day's end."""
    return reason == drain_park(slot) and slot not in forced(payload)


def runs_past_drain(payload: PoolPayload, slot: str, parks: Iterable[tuple[str, str]]) -> bool:
    """Does a worker running in `slot` run on past a forced drain (ADR 0016, amendment
    `drainsweep`)? The slot is forced and no park of that drain came since the slot began to drain
    (`parks`: when each of the worker's parked versions was written, and why). Neither the
    scale's parks nor the launch's look parked it (another host's worker, a deliverer stopped
    before its look): its host's tick parks it. One the drain parked and a person resumed since
    runs on: a person's decision."""
    found = [s for s in payload["slots"] if s["name"] == slot]
    if not found or slot not in forced(payload):
        return False
    since = parse_ts(found[0]["since"])
    why = drain_park(slot)
    return not any(reason == why and parse_ts(at) >= since for at, reason in parks)


def not_resumed(dispatch_id: str, slot: str) -> str:
    """What the conductor says of a worker a forced drain holds parked past its time, and what a
    person does."""
    return (
        f"{dispatch_id}: not resumed: its slot {slot} drains (forced); `oms pool scale --up 1` "
        f"makes the slot active again (its clock resumes it then), `oms worker stop {dispatch_id}` "
        "ends it"
    )


def settle(
    payload: PoolPayload, *, busy: Collection[str], now: str
) -> tuple[PoolPayload, list[str]]:
    """Remove draining slots that hold nothing any more; (payload, the slots removed)."""
    slots = payload["slots"]
    gone = [s["name"] for s in slots if s["state"] == "draining" and s["name"] not in busy]
    if not gone:
        return payload, []
    kept = [s for s in slots if s["name"] not in gone]
    return {**payload, "slots": kept, "updated_at": now}, gone


def free(payload: PoolPayload, busy: Collection[str]) -> list[str]:
    """Active slots holding nothing: the capacity a tick may fill, by index."""
    return [name for name in names(payload, "active") if name not in busy]


def offer(payload: PoolPayload, busy: Collection[str], max_workers: int) -> tuple[str, ...]:
    """The free slots a tick may lease: never more than `max_workers` slots holding work (a pool
    above a lowered `max_workers` offers none)."""
    room = max(0, max_workers - len(set(busy)))
    return tuple(free(payload, busy)[:room])


class Seen(NamedTuple):
    """What the shell observed, under the pool lock: the record's payload (None: no record yet),
    the busy slots (holding a ticket or a running worker), the config's `max_workers`, the time."""

    payload: PoolPayload | None
    busy: Collection[str]
    max_workers: int
    now: str


class Scale(NamedTuple):
    """`oms pool scale`: the active slots to `to`; `force` parks the workers of draining slots."""

    to: int
    force: bool = False


class Fill(NamedTuple):
    """A tick: settle, then offer the free slots to the `queue` (ticket ids, most urgent first)."""

    queue: tuple[str, ...]


Event: TypeAlias = Scale | Fill


class Write(NamedTuple):
    """Write `payload` as the pool record's next version (its first when there is none); `why`
    names the change (the operation id)."""

    payload: PoolPayload
    why: str


class Lease(NamedTuple):
    """Lease the `queue`'s tickets, in order, into `slots`, in order: a ticket whose lease is
    refused leaves its slot to the next one."""

    slots: tuple[str, ...]
    queue: tuple[str, ...]


class Park(NamedTuple):
    """Park (never kill) the running workers of the draining `slot` (a forced scale-down)."""

    slot: str


class Left(NamedTuple):
    """The drained `slot` left the pool (a line of the tick's report)."""

    slot: str


Effect: TypeAlias = Write | Lease | Park | Left


class Decision(NamedTuple):
    """The pool after the event, the effects to perform in order, and a scale's `Plan` (a fill's
    is empty)."""

    payload: PoolPayload
    effects: list[Effect]
    plan: Plan


def _changed(before: PoolPayload, after: PoolPayload) -> bool:
    """Did a scale change the pool (its time aside)? A scale that changes nothing writes nothing."""
    return (before["slots"], before["next_index"]) != (after["slots"], after["next_index"])


def decide(seen: Seen, event: Event) -> Decision:
    """The pool machine: the next payload and the effects of `event` on what was `seen`."""
    created = seen.payload is None
    payload = initial(seen.max_workers, seen.now) if seen.payload is None else seen.payload
    effects: list[Effect] = []
    if isinstance(event, Scale):
        start = payload
        payload, plan = scale(
            start,
            to=event.to,
            max_workers=seen.max_workers,
            busy=seen.busy,
            force=event.force,
            now=seen.now,
        )
        if created or _changed(start, payload):
            effects.append(Write(payload, f"scale-{event.to}-{int(event.force)}"))
        effects += [Park(slot) for slot in plan.park]
        return Decision(payload, effects, plan)
    payload, gone = settle(payload, busy=seen.busy, now=seen.now)
    if created or gone:
        effects.append(Write(payload, "settle-" + "-".join(gone)))
    effects += [Left(slot) for slot in sorted(gone)]
    slots = offer(payload, seen.busy, seen.max_workers)
    if slots and event.queue:
        effects.append(Lease(slots, event.queue))
    return Decision(payload, effects, Plan([], [], [], [], []))
