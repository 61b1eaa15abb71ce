"""What a forced scale-down's park meets afterwards (ADR 0016, amendment `drainclock`, attack10):
the clocks of the conductor's tick — a rest's resume, the role's wall-clock limit — and a person
who makes the slot active again. A forced drain holds the workers of its slot parked while it is
forced (no clock resumes them), its park is never a failed attempt, and a slot made active again
resumes the workers its drain parked."""

from __future__ import annotations

from typing import Any

from oms.canonical import add_ms
from oms.services.chain import tickets
from oms.services.conductor import pool
from oms.services.delivery.service import Delivery
from tests.chain import Chain, use_worker
from tests.integration.test_an_approval_outlasts_a_rest import _tick


def _two_running(chain: Chain) -> tuple[str, str]:
    """Two tickets, each launched in its slot (a command worker that waits): (the second's ticket
    id, its dispatch id), in worker-2."""
    use_worker(chain)
    with chain.workspace() as ws:
        tickets.add(ws, "One", "do it")
        second = tickets.add(ws, "Two", "do it").record_id
    lines = _tick(chain)
    with chain.workspace() as ws:
        [dispatch] = [
            d for d in ws.store.latest("dispatch").records if d.payload["ticket_id"] == second
        ]
        assert dispatch.payload["worker_id"] == "worker-2", lines
        assert ws.store.records("worker").read(dispatch.record_id).payload["health"] == "healthy"
    return second, dispatch.record_id


def _force(chain: Chain, to: int = 1) -> list[str]:
    """`oms pool scale --to 1 --force`, as the CLI runs it: the scale, then its parks."""
    with chain.workspace() as ws:
        _, plan, occupancy = pool.scale(ws, to=to, up=0, down=0, force=True)
        return pool.park_draining(ws, occupancy, plan.park)


def _worker(chain: Chain, dispatch_id: str) -> Any:
    with chain.workspace() as ws:
        return ws.store.records("worker").read(dispatch_id).payload


def test_a_worker_a_forced_drain_parked_is_no_failed_attempt_at_its_deadline(
    deliverable: Chain,
) -> None:
    """The drain parks for a day; the role's wall-clock limit (here 5 minutes) came first and the
    deadlines phase stopped the parked worker as one that ran too long: a failed attempt counted,
    its ticket backed off, for a person's scale-down (failing before: a failure recorded). Now
    the ticket gives its lease back as a drain's (`slot-drained`), nothing counted, the worker
    ended, and the slot, holding nothing, leaves the pool."""
    deliverable.edit_config(
        lambda s: s.replace(
            '[roles."oms.command-executor"]\n',
            '[roles."oms.command-executor"]\ndeadline_minutes = 5\n',
        ),
        commit=True,
    )
    second, dispatch_id = _two_running(deliverable)
    parked = _force(deliverable)
    assert [x.split(" until ")[0] for x in parked] == [f"worker-2: parked {dispatch_id}"]
    deliverable.clock.advance(6)
    lines = _tick(deliverable)
    with deliverable.workspace() as ws:
        ticket = ws.store.records("ticket").read(second)
        slots = [s["name"] for s in pool.current(ws)["slots"]]
    assert ticket.payload.get("failures", []) == [], lines
    assert ticket.payload.get("retry_after") is None, lines
    given = [x for x in lines if x.startswith(f"{second}: ")]
    assert "waits, open: its slot worker-2 drains" in given[0], lines  # (then worker-1 takes it)
    assert _worker(deliverable, dispatch_id)["health"] == "stopped", lines
    assert "worker-2" not in slots, lines


def test_no_clock_resumes_a_worker_in_a_forced_slot(deliverable: Chain) -> None:
    """A worker parked for a provider's rest when `--force` drained its slot: the scale parks
    only healthy workers, and the resume phase brought it back at the rest's end — an agent
    running on in a forced slot (failing before: "resumed (keys)", the worker healthy). Now
    no clock resumes a worker of a forced slot: the tick says why, and what a person does."""
    _, dispatch_id = _two_running(deliverable)
    with deliverable.workspace() as ws:
        until = add_ms(ws.now(), 10 * 60_000)
        Delivery.open(ws).park(dispatch_id, "quota: provider p rests until then", until)
    assert _force(deliverable) == []  # parked already: nothing to park
    deliverable.clock.advance(11)
    lines = _tick(deliverable)
    assert not any(x.startswith(f"{dispatch_id}: resumed") for x in lines), lines
    assert _worker(deliverable, dispatch_id)["health"] == "parked", lines
    [said] = [x for x in lines if x.startswith(f"{dispatch_id}: not resumed")]
    assert "worker-2 drains (forced)" in said, said
    assert "oms pool scale --up 1" in said, said


def test_a_slot_made_active_again_resumes_the_workers_its_drain_parked(
    deliverable: Chain,
) -> None:
    """`--force` parked worker-2's worker for a day; `oms pool scale --to 2` made the slot active
    again, and nothing brought the worker back before the day was out: a slot of the pool held
    by a parked agent (failing before: parked, no resume). Now the next tick resumes it: the
    drain that parked it is over."""
    _, dispatch_id = _two_running(deliverable)
    assert [x.split(" until ")[0] for x in _force(deliverable)] == [
        f"worker-2: parked {dispatch_id}"
    ]
    assert _force(deliverable, to=2) == []  # active again: nothing parked
    lines = _tick(deliverable)
    assert any(x.startswith(f"{dispatch_id}: resumed") for x in lines), lines
    assert _worker(deliverable, dispatch_id)["health"] == "healthy", lines
