"""The pool over a real fleet: scale down while workers run (they drain, never killed), a drained
slot leaves, a scale up takes new indices; `oms pool show|scale` as real processes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from oms.domain import pool as pool_rules
from oms.services.conductor import pool
from oms.services.delivery.service import Delivery
from tests.fleet import Fleet, make_fleet
from tests.helpers import OmsCommand


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    yield from make_fleet(
        tmp_path / "fleet", after="wait", max_workers=3
    )  # each worker waits in its pane


def _scale(oms: OmsCommand, fleet: Fleet, *args: str) -> dict[str, Any]:
    done = oms.run(
        "pool", "scale", *args, "--json", "--state-root", fleet.state, "--config-root", fleet.repo
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert isinstance(out, dict)
    return out


def _launched(fleet: Fleet, tickets: list[str]) -> bool:
    """Has each of `tickets` a healthy worker whose launch is over (its agent prompted)? A launch
    still under way when a forced scale-down parks its worker leaves it to the launch."""
    with fleet.workspace() as ws:
        found = [
            d for d in ws.store.latest("dispatch").records if d.payload["ticket_id"] in tickets
        ]
        if len(found) != len(tickets):
            return False
        for dispatch in found:
            worker = ws.store.records("worker").read_if_exists(dispatch.record_id)
            session = ws.store.records("session").read_if_exists(
                str(dispatch.payload["session_id"])
            )
            if worker is None or session is None or worker.payload["health"] != "healthy":
                return False
            if session.payload.get("agent_prompted_at") is None:
                return False
    return True


def _slot_of(fleet: Fleet, ticket: str) -> str:
    return str(fleet.tickets()[ticket][1]["worker_id"])


def _worker_of(fleet: Fleet, ticket: str) -> str:
    with fleet.workspace() as ws:
        records = ws.store.records("worker")
        (found,) = [
            w for w in (records.read(i) for i in records.ids()) if w.payload["ticket_id"] == ticket
        ]
        return found.record_id


def _working(fleet: Fleet, ticket: str) -> bool:
    with fleet.workspace() as ws:
        records = ws.store.records("worker")
        found = [records.read(i) for i in records.ids()]
        mine = [w for w in found if w.payload["ticket_id"] == ticket]
        return bool(mine) and mine[0].state == "working"


def test_scale_down_drains_busy_slots_and_up_takes_new_indices(
    oms: OmsCommand, fleet: Fleet
) -> None:
    # (no result: an attempt that is over ends its agent, so these hang on to their slots)
    first = [fleet.add(f"Ticket {n} to hang on") for n in range(3)]
    fleet.until(lambda: all(_working(fleet, t) for t in first))  # each slot's agent runs
    assert sorted(_slot_of(fleet, t) for t in first) == ["worker-1", "worker-2", "worker-3"]
    plan = _scale(oms, fleet, "--to", "1")["plan"]
    assert plan == {
        "added": [],
        "removed": [],
        "draining": ["worker-3", "worker-2"],
        "park": [],
        "reactivated": [],
    }
    waiting = fleet.add("Waits for a slot")
    fleet.tick()
    assert (
        fleet.tickets()[waiting][0] == "open"
    )  # draining slots are not capacity; worker-1 is busy
    by_slot = {_slot_of(fleet, t): t for t in first}
    with fleet.workspace() as ws:
        Delivery.open(ws).stop(_worker_of(fleet, by_slot["worker-3"]), "test: its work is over")
    report = fleet.tick()
    fill = next(p for p in report.phases if p.name == "fill")
    assert "worker-3: drained, left the pool" in fill.done
    assert fleet.tickets()[waiting][0] == "open"
    with fleet.workspace() as ws:
        assert pool_rules.names(pool.current(ws)) == ["worker-1", "worker-2"]
    plan = _scale(oms, fleet, "--up", "2")["plan"]
    assert plan["reactivated"] == ["worker-2"]  # it never left: it comes back first
    assert plan["added"] == ["worker-4"]  # index 3 is never used again
    fleet.tick()
    assert (fleet.tickets()[waiting][0], _slot_of(fleet, waiting)) == ("leased", "worker-4")
    shown = oms.run("pool", "show", "--state-root", fleet.state, "--config-root", fleet.repo)
    assert shown.returncode == 0, shown.stderr
    assert "next index 5 (indices are never reused)" in shown.stdout


def test_scale_refuses_below_one_and_above_max_workers(oms: OmsCommand, fleet: Fleet) -> None:
    for args, words in (
        (("--to", "0"), "never has fewer than one worker"),
        (("--to", "4"), "max_workers = 3"),
    ):
        done = oms.run(
            "pool", "scale", *args, "--state-root", fleet.state, "--config-root", fleet.repo
        )
        assert done.returncode != 0
        assert words in done.stderr
        assert "Traceback" not in done.stderr
    both = oms.run(
        "pool",
        "scale",
        "--to",
        "2",
        "--up",
        "1",
        "--state-root",
        fleet.state,
        "--config-root",
        fleet.repo,
    )
    assert both.returncode == 2
    assert "exactly one of" in both.stderr


def test_force_parks_the_workers_of_draining_slots(oms: OmsCommand, fleet: Fleet) -> None:
    hanging = [fleet.add(f"Ticket {n} that would hang") for n in range(2)]
    fleet.until(
        lambda: (
            bool(fleet.reports)
            and list(fleet.reports[-1].classes.values()).count("alive") == 2
            and _launched(fleet, hanging)
        )
    )
    out = _scale(oms, fleet, "--to", "1", "--force")
    assert out["plan"] == {
        "added": [],
        "removed": ["worker-3"],  # the idle slot leaves first
        "draining": ["worker-2"],
        "park": ["worker-2"],
        "reactivated": [],
    }
    parked = {_slot_of(fleet, t): _worker_of(fleet, t) for t in hanging}
    assert len(out["parked"]) == 1, out
    assert " until " in out["parked"][0], out
    assert out["parked"] == [
        f"worker-2: parked {parked['worker-2']} until {str(out['parked'][0]).split(' until ')[1]}"
    ]
    with fleet.workspace() as ws:
        delivery = Delivery.open(ws)
        kept = delivery.observe(parked["worker-2"])
        running = delivery.observe(parked["worker-1"])
    assert (kept["worker_health"], kept["pane_live"]) == ("parked", True)  # parked, never killed
    assert "pool scaled down: worker-2 drains" in str(kept["health_reason"])
    assert (running["worker_health"], running["pane_live"]) == ("healthy", True)
    shown = oms.run("pool", "show", "--state-root", fleet.state, "--config-root", fleet.repo)
    assert [line.split()[:3] for line in shown.stdout.splitlines() if "worker-2" in line] == [
        ["worker-2", "draining", "(forced)"]
    ], shown.stdout  # a launch that ends in it parks itself
