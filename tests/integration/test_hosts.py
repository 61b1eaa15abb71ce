"""Two hosts on one state root (ADR 0043, amendment `hosts`; issue 28 item 2): host B's conductor
launches a worker in B's own tmux server; host A's tick — its own tmux server, where B's pane is
not — never reconciles, parks, resumes or stops it, and `oms worker stop|park|resume|send` run as
A is refused in one line naming B. `oms status` shows B `host unreachable` once B's heartbeat has
lapsed (the workspace's clock moved past its lease: no sleep). Real git, tmux, panes and
sandboxes (`tests/fleet.py`)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from oms.adapters.panes import TmuxPanes
from oms.errors import OtherHostError
from oms.limits import LIMITS
from oms.services.admin.status import snapshot
from oms.services.chain import dispatches, tickets, worktrees
from oms.services.chain.liveness import CONSUMER
from oms.services.conductor import tick as conductor
from oms.services.delivery.service import Delivery
from oms.services.workspace import Workspace
from oms.store import hosts as store_hosts
from tests.fleet import Fleet, make_fleet
from tests.helpers import OmsCommand, eventually


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    yield from make_fleet(tmp_path / "fleet")


@contextmanager
def host(fleet: Fleet, name: str, socket: str | None) -> Iterator[tuple[Workspace, Delivery]]:
    """A workspace running as host `name` — `OMS_HOST` too, so what it starts (its tmux server, a
    pane's supervisor and broker) runs as that host —, with its own tmux server at `socket` (None:
    the state root's)."""
    before = os.environ.get("OMS_HOST")
    os.environ["OMS_HOST"] = name
    try:
        with fleet.workspace() as ws:
            assert ws.host() == name
            d = Delivery.open(ws)
            if socket is not None:
                plain = d.panes
                assert isinstance(plain, TmuxPanes)
                d = replace(d, panes=TmuxPanes(socket, plain.conf, plain.guard))
            yield ws, d
    finally:
        if before is None:
            os.environ.pop("OMS_HOST", None)
        else:
            os.environ["OMS_HOST"] = before


def tick(fleet: Fleet, name: str, socket: str | None) -> conductor.Tick:
    with host(fleet, name, socket) as (ws, d):
        report = conductor.tick(ws, d=d)
    fleet.reports.append(report)
    return report


def lines(report: conductor.Tick) -> list[str]:
    return [line for p in report.phases for line in (*p.done, *p.skipped)]


def test_a_hosts_tick_never_touches_another_hosts_worker(fleet: Fleet, oms: OmsCommand) -> None:
    b_socket = str(fleet.base / "b.sock")
    try:
        _two_hosts(fleet, oms, b_socket)
    finally:
        subprocess.run(["tmux", "-S", b_socket, "kill-server"], capture_output=True, check=False)


def _two_hosts(fleet: Fleet, oms: OmsCommand, b_socket: str) -> None:
    ticket_id = fleet.add("Please hang")  # the test worker sleeps: alive, no result
    first = tick(fleet, "host-b", b_socket)
    assert first.host == "host-b"
    with fleet.workspace() as ws:
        (worker,) = ws.store.latest("worker").records
    dispatch_id = worker.record_id
    assert worker.payload["host"] == "host-b"
    eventually(
        lambda: tick(fleet, "host-b", b_socket).classes.get(dispatch_id) == "alive",
        timeout=60,
        what="host B's worker alive in B's tmux server",
    )

    def working() -> int | None:  # its broker (B's) proved both channels: nothing moves it now
        with fleet.workspace() as ws:
            now = ws.store.records("worker").read(dispatch_id)
        return now.version if now.state == "working" else None

    before = eventually(working, timeout=60, what="host B's worker working")

    a_report = tick(fleet, "host-a", None)  # A's tmux server has no pane of B's worker

    assert a_report.host == "host-a"
    assert dispatch_id not in a_report.classes
    assert [line for line in lines(a_report) if dispatch_id in line or ticket_id in line] == []
    with fleet.workspace() as ws:
        assert ws.store.records("worker").read(dispatch_id).version == before
    assert tick(fleet, "host-b", b_socket).classes[dispatch_id] == "alive"  # B's still runs

    # a person on host A: refused in one line naming B, nothing done
    with host(fleet, "host-a", None) as (_, d), pytest.raises(OtherHostError) as refused:
        d.stop(dispatch_id, "from the wrong host")
    assert refused.value.message == f"worker {dispatch_id} runs on host host-b; run this there"
    where = ("--state-root", fleet.state)
    for verb in (("stop",), ("park", "--until", "1h"), ("resume",), ("send", "hello")):
        done = oms.run(
            "worker", *verb[:1], dispatch_id, *verb[1:], *where,
            env={"OMS_HOST": "host-a"}, cwd=fleet.repo,
        )  # fmt: skip
        assert done.returncode == 1, done
        assert done.stderr.splitlines()[0] == (
            f"oms: error: worker {dispatch_id} runs on host host-b; run this there"
        )
        assert "Traceback" not in done.stderr
    as_json = oms.run(
        "worker", "stop", dispatch_id, *where, "--json", env={"OMS_HOST": "host-a"},
        cwd=fleet.repo,
    )  # fmt: skip
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["error"] == "other-host"
    with fleet.workspace() as ws:
        assert ws.store.records("worker").read(dispatch_id).version == before

    # B's heartbeat: up now; unreachable once its lease has lapsed (the clock moved, no sleep)
    with host(fleet, "host-a", None) as (ws, _):
        views = {str(v["host"]): v for v in snapshot(ws).hosts}
    assert views["host-b"]["state"] == "up"
    assert views["host-b"]["workers"] == [dispatch_id]
    assert views["host-a"]["this_host"] is True
    fleet.shift_ms += (LIMITS.host_lease_s + 1) * 1000
    with host(fleet, "host-a", None) as (ws, _):
        snap = snapshot(ws)
    views = {str(v["host"]): v for v in snap.hosts}
    assert views["host-b"]["state"] == "unreachable"
    assert snap.host_cells()[dispatch_id] == "host-b (host unreachable)"
    assert any(w.startswith("host host-b unreachable") and dispatch_id in w for w in snap.warnings)
    with host(fleet, "host-b", None) as (ws, _):  # B itself is never unreachable to itself
        assert {str(v["host"]): v["state"] for v in snapshot(ws).hosts}["host-b"] == "up"

    # B's next tick beats again: up
    tick(fleet, "host-b", b_socket)
    with host(fleet, "host-a", None) as (ws, _):
        assert {str(v["host"]): v["state"] for v in snapshot(ws).hosts}["host-b"] == "up"
        beats = store_hosts.read_all(ws.store.state.root)
    assert set(beats) == {"host-a", "host-b"}

    # and B, its own host, stops it
    with host(fleet, "host-b", b_socket) as (_, d):
        d.stop(dispatch_id, "the test is over")


def test_a_dispatch_host_b_accepted_is_delivered_by_b_never_by_a(fleet: Fleet) -> None:
    b_socket = str(fleet.base / "b.sock")
    try:
        with host(fleet, "host-b", b_socket) as (ws, _):  # a person on B accepts; nothing runs yet
            ticket_id = tickets.add(ws, "Please hang", "do it").record_id
            tickets.lease(ws, ticket_id, "w1")
            worktrees.create(ws, ticket_id)
            proposed, _ = dispatches.propose(ws, ticket_id)
            dispatches.review(ws, proposed.record_id)
            accepted, event_id = dispatches.accept(ws, proposed.record_id)
            assert ws.store.records("worker").read(accepted.record_id).payload["host"] == "host-b"

        a_report = tick(fleet, "host-a", None)

        assert [line for line in lines(a_report) if accepted.record_id in line] == []
        with fleet.workspace() as ws:
            assert not ws.store.outbox(CONSUMER).has_receipt(event_id)  # A launched nothing
        b_report = tick(fleet, "host-b", b_socket)
        deliver = next(p for p in b_report.phases if p.name == "deliver")
        assert deliver.done == [f"{accepted.record_id}: delivered (created)"]
    finally:
        subprocess.run(["tmux", "-S", b_socket, "kill-server"], capture_output=True, check=False)
