"""What a conductor remembers between ticks lives in its `Memory` (the loop keeps one for its life),
never in module state: two conductors in one process (the fleet demo, then a test; two state roots)
do not silence each other, and one conductor looks for due tickets at most once an hour of the
workspace's clock."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from oms.services.admin import compaction
from oms.services.conductor import tick as conductor
from oms.store import compaction as store_compaction
from tests.chain import Chain


@pytest.fixture
def looks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    def compact(ws: Any, *, dry_run: bool, limit: int) -> SimpleNamespace:
        calls.append(limit)
        return SimpleNamespace(compacted=[])

    monkeypatch.setattr(compaction, "compact", compact)
    return calls


def test_one_conductor_looks_for_due_tickets_once_an_hour(chain: Chain, looks: list[int]) -> None:
    memory = conductor.Memory()
    with chain.workspace() as ws:
        conductor._compact(ws, conductor.Phase("compact"), memory)
        conductor._compact(ws, conductor.Phase("compact"), memory)
    assert len(looks) == 1
    chain.clock.advance(61)
    with chain.workspace() as ws:
        conductor._compact(ws, conductor.Phase("compact"), memory)
    assert len(looks) == 2


def test_two_conductors_in_one_process_do_not_share_a_memory(
    chain: Chain, looks: list[int]
) -> None:
    """The second asks the state root when any conductor last looked (`index/compact/looked`,
    ADR 0035), never the first's memory: with that mark gone, it looks again."""
    with chain.workspace() as ws:
        conductor._compact(ws, conductor.Phase("compact"), conductor.Memory())
        (chain.state / store_compaction.LOOKED).unlink()
        conductor._compact(ws, conductor.Phase("compact"), conductor.Memory())
    assert len(looks) == 2


def test_a_loop_keeps_its_memory_across_ticks() -> None:
    from oms.services.conductor.loop import Loop

    first = Loop(None, 1.0, lambda *_: None, lambda: True)  # type: ignore[arg-type]
    second = Loop(None, 1.0, lambda *_: None, lambda: True)  # type: ignore[arg-type]
    assert isinstance(first.memory, conductor.Memory)
    assert first.memory is not second.memory
