"""The pool machine (`domain/pool.decide`) driven as the conductor and a person drive it: scales,
ticks that settle and fill from a queue (some leases refused), work that ends. Whatever the order,
the pool never holds more slots, nor more busy ones, than `max_workers`; a slot holding work is
never removed (it drains); a slot index is never used twice; every lease goes to a free active
slot, at most one ticket a slot."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from oms.domain import pool
from oms.errors import InvalidInputError
from oms.schemas.payloads import PoolPayload, PoolSlotsItem

T0 = "2026-12-01T00:00:00.000Z"


def _slots(payload: PoolPayload) -> dict[str, PoolSlotsItem]:
    return {s["name"]: s for s in payload["slots"]}


class PoolMachine(RuleBasedStateMachine):
    """The record as the shell would write it, and the work each slot holds."""

    def __init__(self) -> None:
        super().__init__()
        self.max_workers = 1
        self.payload: PoolPayload | None = None
        self.held: dict[str, str] = {}  # slot -> ticket
        self.ever: dict[str, int] = {}
        self.left: set[str] = set()
        self.tickets = 0

    def _seen(self) -> pool.Seen:
        return pool.Seen(self.payload, set(self.held), self.max_workers, T0)

    def _apply(self, decision: pool.Decision) -> None:
        before = set(_slots(self.payload)) if self.payload is not None else set()
        writes = [e for e in decision.effects if isinstance(e, pool.Write)]
        if writes:
            self.payload = writes[-1].payload
        elif self.payload is None:
            raise AssertionError("a first decision always writes the record")
        assert writes[-1].payload == decision.payload if writes else True
        now = set(_slots(self.payload))
        self.left |= before - now

    @initialize(max_workers=st.integers(1, 6))
    def start(self, max_workers: int) -> None:
        self.max_workers = max_workers

    @rule(to=st.integers(-1, 8), force=st.booleans())
    def scale(self, to: int, force: bool) -> None:
        if not 1 <= to <= self.max_workers:
            with pytest.raises(InvalidInputError):
                pool.decide(self._seen(), pool.Scale(to, force))
            return
        decision = pool.decide(self._seen(), pool.Scale(to, force))
        self._apply(decision)
        assert len(pool.names(decision.payload, "active")) == to
        parked = [e.slot for e in decision.effects if isinstance(e, pool.Park)]
        assert all(slot in self.held for slot in parked)  # only workers that run are parked

    @rule(queued=st.integers(0, 6), refused=st.sets(st.integers(0, 5)))
    def tick(self, queued: int, refused: set[int]) -> None:
        queue = tuple(f"T{self.tickets + i}" for i in range(queued))
        self.tickets += queued
        decision = pool.decide(self._seen(), pool.Fill(queue))
        self._apply(decision)
        for effect in decision.effects:
            if isinstance(effect, pool.Left):
                assert effect.slot not in self.held  # only a slot holding nothing leaves
            if isinstance(effect, pool.Lease):
                active = pool.names(decision.payload, "active")
                assert all(s in active and s not in self.held for s in effect.slots)
                slots = list(effect.slots)
                for i, ticket in enumerate(effect.queue):  # the shell: a refusal keeps the slot
                    if not slots:
                        break
                    if i in refused:
                        continue
                    self.held[slots.pop(0)] = ticket

    @rule(data=st.data())
    def work_ends(self, data: st.DataObject) -> None:
        if self.held:
            slot = data.draw(st.sampled_from(sorted(self.held)))
            del self.held[slot]

    @invariant()
    def never_over_its_size(self) -> None:
        if self.payload is None:
            return
        assert len(pool.names(self.payload)) <= self.max_workers
        assert len(self.held) <= self.max_workers

    @invariant()
    def work_is_never_dropped(self) -> None:
        if self.payload is not None:
            assert set(self.held) <= set(pool.names(self.payload))

    @invariant()
    def an_index_is_used_once(self) -> None:
        if self.payload is None:
            return
        for name, slot in _slots(self.payload).items():
            index = slot["index"]
            assert name == f"{pool.PREFIX}{index}"
            assert self.ever.setdefault(name, index) == index
            assert index < self.payload["next_index"]
            assert name not in self.left  # a slot that left never comes back


PoolMachine.TestCase.settings = settings(max_examples=200, stateful_step_count=30, deadline=None)
TestPoolMachine = PoolMachine.TestCase
