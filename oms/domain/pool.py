"""The worker pool (seed 000, with its flaws fixed): pure rules over the pool record's payload.

- Slots are named `worker-<n>`; `n` comes from `next_index`, which only grows: an index is never
  used twice, whatever was scaled, drained or failed (the seed's rollback reused them).
- Scaling takes the number of *active* slots to `to`, between 1 and the config's `max_workers`
  (never below one worker: the pool stops only with the conductor).
- Down: idle slots (holding no ticket and no running worker) go first, newest first, and are removed
  at once; busy ones are marked `draining` — neither capacity (no new ticket) nor drained (kept
  until their work has ended); with `force` their workers are parked (never killed) as they drain.
- Up: draining slots are made active again first (they never left), then new slots are added.
- Settling (every tick): a draining slot that holds nothing any more is removed.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from oms.canonical import Json, JsonObject, access
from oms.errors import InvalidInputError

PREFIX = "worker-"


class Plan(NamedTuple):
    """What a scale did: slots added, removed, marked draining, and whose workers to park
    (`force`)."""

    added: list[str]
    removed: list[str]
    draining: list[str]
    park: list[str]
    reactivated: list[str]


def _slots(payload: JsonObject) -> list[JsonObject]:
    return [s for s in access.array(payload, "slots") if isinstance(s, dict)]


def initial(target: int, now: str) -> JsonObject:
    """A pool of `target` active slots, `worker-1` … `worker-<target>`."""
    slots: list[Json] = [
        {"index": n, "name": f"{PREFIX}{n}", "state": "active", "since": now}
        for n in range(1, target + 1)
    ]
    return {"next_index": target + 1, "slots": slots, "updated_at": now}


def names(payload: JsonObject, state: str | None = None) -> list[str]:
    """Slot names (of one `state`, or all), by index."""
    return [str(s["name"]) for s in _slots(payload) if state is None or s["state"] == state]


def scale(
    payload: JsonObject, *, to: int, max_workers: int, busy: Collection[str], force: bool, now: str
) -> tuple[JsonObject, Plan]:
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
    slots = [dict(s) for s in _slots(payload)]
    next_index = access.integer(payload, "next_index")
    plan = Plan([], [], [], [], [])
    active = [s for s in slots if s["state"] == "active"]
    if to > len(active):
        for slot in sorted(
            (s for s in slots if s["state"] == "draining"), key=lambda s: int(str(s["index"]))
        ):
            if len([s for s in slots if s["state"] == "active"]) >= to:
                break
            slot.update(state="active", since=now)
            plan.reactivated.append(str(slot["name"]))
        while len([s for s in slots if s["state"] == "active"]) < to:
            slots.append(
                {
                    "index": next_index,
                    "name": f"{PREFIX}{next_index}",
                    "state": "active",
                    "since": now,
                }
            )
            plan.added.append(f"{PREFIX}{next_index}")
            next_index += 1
    elif to < len(active):
        excess = len(active) - to
        newest_first = sorted(active, key=lambda s: -int(str(s["index"])))
        idle = [s for s in newest_first if s["name"] not in busy]
        working = [s for s in newest_first if s["name"] in busy]
        for slot in (idle + working)[:excess]:
            if slot["name"] in busy:
                slot.update(state="draining", since=now)
                plan.draining.append(str(slot["name"]))
                if force:
                    plan.park.append(str(slot["name"]))
            else:
                plan.removed.append(str(slot["name"]))
        slots = [s for s in slots if s["name"] not in plan.removed]
    kept: list[Json] = list(slots)
    return {"next_index": next_index, "slots": kept, "updated_at": now}, plan


def settle(payload: JsonObject, *, busy: Collection[str], now: str) -> tuple[JsonObject, list[str]]:
    """Remove draining slots that hold nothing any more; (payload, the slots removed)."""
    slots = _slots(payload)
    gone = [str(s["name"]) for s in slots if s["state"] == "draining" and s["name"] not in busy]
    if not gone:
        return payload, []
    kept: list[Json] = [s for s in slots if s["name"] not in gone]
    return {**payload, "slots": kept, "updated_at": now}, gone


def free(payload: JsonObject, busy: Collection[str]) -> list[str]:
    """Active slots holding nothing: the capacity a tick may fill, by index."""
    return [name for name in names(payload, "active") if name not in busy]
