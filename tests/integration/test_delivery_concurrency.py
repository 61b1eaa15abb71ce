"""8 concurrent deliverer processes over the same 80 events (each deliverer tries every one):
exactly 80 launches, 80 receipts, 0 duplicates. The race is per event, 8 ways each time: 80 events
are 80 such races (200 took two minutes of CI)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from oms.services.chain import dispatches, tickets, worktrees
from oms.services.chain.liveness import CONSUMER
from oms.services.delivery.service import Delivery
from tests.chain import Chain
from tests.helpers import REPO

EVENTS = 80
DELIVERERS = 8


def make_events(chain: Chain, count: int) -> list[str]:
    """`count` accepted dispatches (full chain, real git worktrees, the command advisor)."""
    events = []
    with chain.workspace() as ws:
        for i in range(count):
            ticket = tickets.add(ws, f"Ticket {i}", "body")
            tickets.lease(ws, ticket.record_id, f"w{i}")
            worktrees.create(ws, ticket.record_id)
            proposed, _ = dispatches.propose(ws, ticket.record_id)
            dispatches.review(ws, proposed.record_id)
            events.append(dispatches.accept(ws, proposed.record_id)[1])
    return events


@pytest.mark.slow
def test_eight_deliverers_race_for_every_event_and_each_launches_once(deliverable: Chain) -> None:
    # each worker exits at once (its supervisor records the exit): live agents are not the point
    events = make_events(deliverable, EVENTS)
    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.integration.deliver_child",
                str(deliverable.state),
                str(deliverable.repo),
                f"seed-{k}",
                *events,
            ],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for k in range(DELIVERERS)
    ]
    for child in children:
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
    start = time.monotonic()
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.close()
    processed: list[tuple[str, str]] = []
    waits = 0
    for child in children:
        assert child.stdout is not None
        lines = child.stdout.read().splitlines()
        child.stdout.close()
        assert child.wait(timeout=900) == 0
        waits += int(lines[-1].split()[1])
        processed += [tuple(line.split()) for line in lines[:-1]]  # type: ignore[misc]
    elapsed = time.monotonic() - start
    assert sorted(event for event, _ in processed) == sorted(events)  # each processed exactly once
    assert {status for _, status in processed} == {"created"}
    receipts = sorted(p.name for p in (deliverable.state / "outbox" / CONSUMER).iterdir())
    assert receipts == sorted(f"{e}.receipt.json" for e in events)
    with deliverable.workspace() as ws:
        panes = Delivery.open(ws).panes.list()
        assert len(panes) == EVENTS
        assert len({p.dispatch_id for p in panes}) == EVENTS
        assert len(ws.store.records("session").ids()) == EVENTS
    print(f"\n{DELIVERERS} deliverers x {EVENTS} events: {elapsed:.1f}s, {waits} lock waits")
