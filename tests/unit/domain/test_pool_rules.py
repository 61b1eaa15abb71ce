"""The worker pool's rules (`domain/pool.py`) over random sequences of scales and settles: indices
are never reused, the active count is what was asked, busy slots are never dropped (they drain),
idle ones leave first, and the pool never has fewer than one active slot."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.domain import pool
from oms.errors import InvalidInputError
from oms.schemas.payloads import PoolPayload, PoolSlotsItem


def _slots(payload: PoolPayload) -> dict[str, PoolSlotsItem]:
    return {s["name"]: s for s in payload["slots"]}


T0 = "2026-12-01T00:00:00.000Z"
MAX = 8
steps = st.lists(
    st.tuples(
        st.sampled_from(["scale", "settle"]),
        st.integers(-1, MAX + 1),
        st.booleans(),
        st.sets(st.integers(1, 20)),
    ),
    max_size=25,
)


@given(st.integers(1, MAX), steps)
def test_pool_invariants(start: int, sequence: list[tuple[str, int, bool, set[int]]]) -> None:
    payload = pool.initial(start, T0)
    ever: dict[str, int] = {name: i + 1 for i, name in enumerate(pool.names(payload))}
    left: set[str] = set()
    for op, to, force, busy_idx in sequence:
        busy = {f"worker-{i}" for i in busy_idx}
        before = _slots(payload)
        if op == "settle":
            payload, gone = pool.settle(payload, busy=busy, now=T0)
            assert all(before[g]["state"] == "draining" and g not in busy for g in gone)
        elif not 1 <= to <= MAX:
            with pytest.raises(InvalidInputError):
                pool.scale(payload, to=to, max_workers=MAX, busy=busy, force=force, now=T0)
            continue
        else:
            payload, plan = pool.scale(
                payload, to=to, max_workers=MAX, busy=busy, force=force, now=T0
            )
            assert len(pool.names(payload, "active")) == to
            assert not set(plan.removed) & busy  # busy slots drain, never vanish
            draining = set(pool.names(payload, "draining"))
            assert set(plan.park) == (draining & busy if force else set())
            forced = set(
                pool.forced(payload)
            )  # a forced drain stays so until it leaves or comes back
            was = {n for n, s in before.items() if s.get("forced") and s["state"] == "draining"}
            assert forced == (draining if force else (was & draining) - set(plan.reactivated))
            assert all(before[n]["state"] == "active" for n in plan.removed + plan.draining)
            idle_active = [n for n, s in before.items() if s["state"] == "active" and n not in busy]
            if plan.draining:  # a busy slot drains only once no idle one is left to remove
                assert all(n in plan.removed for n in idle_active)
        names = pool.names(payload)
        assert len(names) == len(set(names))
        for name, slot in _slots(payload).items():
            index = slot["index"]
            assert name == f"worker-{index}"
            assert ever.setdefault(name, index) == index
            assert index < payload["next_index"]
        assert not left & set(names)  # a slot that left the pool never comes back
        left |= set(before) - set(names)


def test_a_scale_up_after_slots_left_takes_new_indices() -> None:
    payload = pool.initial(3, T0)
    payload, plan = pool.scale(payload, to=1, max_workers=MAX, busy=set(), force=False, now=T0)
    assert plan.removed == ["worker-3", "worker-2"]
    payload, plan = pool.scale(payload, to=3, max_workers=MAX, busy=set(), force=False, now=T0)
    assert plan.added == ["worker-4", "worker-5"]
    assert pool.names(payload) == ["worker-1", "worker-4", "worker-5"]


def test_draining_slots_come_back_before_new_ones() -> None:
    payload = pool.initial(2, T0)
    payload, plan = pool.scale(
        payload, to=1, max_workers=MAX, busy={"worker-1", "worker-2"}, force=True, now=T0
    )
    assert (plan.draining, plan.park) == (["worker-2"], ["worker-2"])
    assert pool.free(payload, {"worker-1", "worker-2"}) == []  # draining is not capacity
    payload, plan = pool.scale(
        payload, to=2, max_workers=MAX, busy={"worker-1", "worker-2"}, force=False, now=T0
    )
    assert (plan.reactivated, plan.added) == (["worker-2"], [])


def test_a_force_parks_an_earlier_drain_and_a_scale_back_up_clears_it() -> None:
    """`--down 1` drains worker-2 and parks nothing; `--to 1 --force` then (or again, after a
    scale killed before its parks) parks worker-2's workers and marks it forced: a launch ending
    in it parks itself. Made active again, it is no longer forced."""
    busy = {"worker-1", "worker-2"}
    payload, plan = pool.scale(
        pool.initial(2, T0), to=1, max_workers=MAX, busy=busy, force=False, now=T0
    )
    assert (plan.draining, plan.park, pool.forced(payload)) == (["worker-2"], [], [])
    seen = pool.Seen(payload, busy, MAX, T0)
    decision = pool.decide(seen, pool.Scale(1, force=True))
    assert decision.plan.park == ["worker-2"]
    assert pool.forced(decision.payload) == ["worker-2"]
    assert [type(e).__name__ for e in decision.effects] == ["Write", "Park"]
    again = pool.decide(seen._replace(payload=decision.payload), pool.Scale(1, force=True))
    assert [type(e).__name__ for e in again.effects] == ["Park"]  # nothing new to write
    payload, plan = pool.scale(
        decision.payload, to=2, max_workers=MAX, busy=busy, force=False, now=T0
    )
    assert plan.reactivated == ["worker-2"]
    assert pool.forced(payload) == []
    assert "forced" not in payload["slots"][1]


def test_a_forced_drain_parks_a_running_worker_once_and_holds_what_it_parked() -> None:
    """`runs_past_drain`: a worker of a forced slot not parked by that drain is parked by its
    host's tick; one that drain parked, then a person resumed, runs on (a person's decision); a
    park of an earlier drain of the slot (active again since) does not count. `drain_holds` and
    `drain_over`: the drain's park holds while the slot is forced, and is over once it is not."""
    busy = {"worker-1", "worker-2"}
    start, _ = pool.scale(
        pool.initial(2, T0), to=2, max_workers=MAX, busy=busy, force=False, now=T0
    )
    later = "2026-12-01T01:00:00.000Z"
    payload, _ = pool.scale(start, to=1, max_workers=MAX, busy=busy, force=True, now=later)
    why = pool.drain_park("worker-2")
    assert pool.runs_past_drain(payload, "worker-2", [])
    assert not pool.runs_past_drain(payload, "worker-2", [(later, why)])  # then resumed by a person
    assert pool.runs_past_drain(payload, "worker-2", [(T0, why)])  # an earlier drain's park
    assert pool.runs_past_drain(payload, "worker-2", [(later, "quota: p rests")])
    assert not pool.runs_past_drain(payload, "worker-1", [])  # active
    assert pool.drain_holds(payload, "worker-2", "quota: p rests")
    assert not pool.drain_over(payload, "worker-2", why)
    again, _ = pool.scale(payload, to=2, max_workers=MAX, busy=busy, force=False, now=later)
    assert pool.drain_over(again, "worker-2", why)
    assert not pool.drain_holds(again, "worker-2", "quota: p rests")
    assert not pool.runs_past_drain(again, "worker-2", [])
