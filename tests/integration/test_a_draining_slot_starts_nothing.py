"""A draining slot finishes what runs and starts nothing (ADR 0016, amendment `drainfirst`).
Before, a slot drained only once its ticket ended, and a held ticket that had not launched went
on to launch in it: two tickets waiting for a person's approval, the pool scaled down to one with
`--force` (which parks the running workers of draining slots: there were none yet), both
approved, and the next tick launched an agent in the draining slot — two agents in a pool of one,
for as long as that attempt ran. A person's `--replace` of the draining slot's route launched
there too. Now such a ticket gives its lease back, nothing counted, and waits in the queue."""

from __future__ import annotations

import pytest

from oms.services.chain import dispatches, tickets
from oms.services.conductor import pool
from tests.chain import Chain
from tests.integration.test_an_approval_outlasts_a_rest import _needs_person, _tick
from tests.integration.test_routing import ROLE


def _two_waiting_then_scaled_to_one(chain: Chain, force: bool) -> tuple[str, str]:
    """(the active slot's ticket, the draining slot's): both proposed, each waiting for a
    person's approval, then the pool scaled to one slot."""
    _needs_person(chain)
    with chain.workspace() as ws:
        first = tickets.add(ws, "One", "do it").record_id
        second = tickets.add(ws, "Two", "do it").record_id
    _tick(chain)
    with chain.workspace() as ws:
        _, plan, _ = pool.scale(ws, to=1, up=0, down=0, force=force)
        assert plan.draining == ["worker-2"]
        assert ws.store.records("ticket").read(second).payload["worker_id"] == "worker-2"
    return first, second


@pytest.mark.parametrize("force", [True, False])
def test_the_draining_slots_unlaunched_ticket_gives_its_lease_back(
    chain: Chain, force: bool
) -> None:
    first, second = _two_waiting_then_scaled_to_one(chain, force)
    with chain.workspace() as ws:  # the active slot's still waits: it holds the pool's one slot
        [waiting] = [
            d for d in ws.store.latest("dispatch").records if d.payload["ticket_id"] == second
        ]
        dispatches.approve(ws, waiting.record_id, person="Ann", rationale="ok")
    lines = _tick(chain)
    assert any(x.startswith(f"{first}: ") and "waits for a person" in x for x in lines), lines
    assert not any(x.startswith(f"{second}: ") and "delivered" in x for x in lines), lines
    assert "worker-2: drained, left the pool" in lines, lines
    with chain.workspace() as ws:
        ticket = ws.store.records("ticket").read(second)
        assert ticket.state == "open", lines
        assert "worker-2 drains" in str(ticket.payload["reason"])
        assert ticket.payload.get("failures", []) == []  # nothing counted
        assert ticket.payload.get("retry_after") is None  # the next free slot takes it
        ended = [d for d in ws.store.latest("dispatch").records if d.payload["ticket_id"] == second]
        assert [d.state for d in ended] == ["cancelled"]
        assert [s["name"] for s in pool.current(ws)["slots"]] == ["worker-1"]


def test_a_persons_replacement_on_a_draining_slot_launches_nothing_there(chain: Chain) -> None:
    _, second = _two_waiting_then_scaled_to_one(chain, force=True)
    with chain.workspace() as ws:
        pinned, created = dispatches.propose(ws, second, ROLE, "anthropic-b", replace=True)
        assert created
        dispatches.approve(ws, pinned.record_id, person="Ann", rationale="this route")
    lines = _tick(chain)
    assert not any(x.startswith(f"{second}: ") and "delivered" in x for x in lines), lines
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(pinned.record_id).state == "cancelled"
        ticket = ws.store.records("ticket").read(second)
        assert (ticket.state, ticket.payload.get("failures", [])) == ("open", [])
