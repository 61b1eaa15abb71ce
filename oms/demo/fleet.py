"""`oms demo --tickets N --workers K`: the conductor over N tickets with the demo worker
(`scratch.py`'s scratch repository and scripts), K at a time, until every ticket has a result; then
every worker still running is stopped (`oms worker stop`'s path: its end recorded, its pane ended)
and its tmux server ends.

How many workers ran at once is read from the records afterwards (each session's registration to its
worker's end), not sampled.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from oms.canonical import JsonObject, parse_ts
from oms.demo import scratch as demo
from oms.errors import OmsError, one_line
from oms.fsio import scratch_directory
from oms.limits import LIMITS
from oms.schemas.payloads import TicketState
from oms.services.chain import tickets
from oms.services.conductor import tick as conductor
from oms.services.delivery.service import Delivery
from oms.services.workspace import Workspace
from oms.store.payloads import dispatch_payload, session_payload, worker_payload

FINAL = ("done", "blocked")


@dataclass
class FleetRun:
    """Where the fleet demo ran and how it ended."""

    base: str
    repo: str
    state_root: str
    results: list[JsonObject] = field(default_factory=list)
    max_concurrent_workers: int = 0
    ticks: int = 0
    seconds: float = 0.0
    ok: bool = False
    reason: str = ""

    def to_json(self) -> JsonObject:
        return {
            "ok": self.ok,
            "reason": self.reason,
            "base": self.base,
            "repo": self.repo,
            "state_root": self.state_root,
            "results": list(self.results),
            "max_concurrent_workers": self.max_concurrent_workers,
            "ticks": self.ticks,
            "seconds": round(self.seconds),
        }


def run(
    base: str | None,
    *,
    count: int,
    workers: int,
    timeout_s: float = LIMITS.fleet_timeout_s,
    progress: Callable[[str], None] = lambda _m: None,
    after: str = "exit",
    mode: str = "full",
) -> FleetRun:
    """N tickets through the conductor with K workers at a time (a new scratch directory by
    default); `after`: what the demo worker does once its result is recorded (`exit`, or `wait` in
    its pane as an interactive agent does); `mode`: how far the demo worker goes (`full`: to its
    result; `hooks-only`: it says it started, then never records one)."""
    where = os.path.abspath(base) if base else scratch_directory("oms-demo-")
    prepared = demo._prepare(where, max_workers=workers, worker_args=(mode, after))
    out = FleetRun(where, prepared.repo, prepared.state_root)
    progress(f"scratch directory {where}: {count} tickets, {workers} workers at a time")
    started = time.monotonic()
    with Workspace.open(prepared.state_root, prepared.repo) as ws:
        for n in range(count):
            tickets.add(
                ws, f"Demo ticket {n + 1}", "Add a line to CHANGELOG.md naming this ticket."
            )
        try:
            _tick_until_done(ws, out, count, timeout_s, progress)
            out.results = _results(ws)
            out.max_concurrent_workers = _max_concurrent(ws)
        finally:  # an error or Ctrl-C too: nothing of the demo lingers, no record says it runs
            try:
                _end_workers(ws, out, progress)
            finally:
                Delivery.open(ws).panes.kill_server()
    out.seconds = time.monotonic() - started
    out.ok = not out.reason and all(r["state"] == TicketState.DONE for r in out.results)
    if not out.ok and not out.reason:
        out.reason = "a ticket ended blocked: " + ", ".join(
            str(r["ticket_id"]) for r in out.results if r["state"] != TicketState.DONE
        )
    return out


def _tick_until_done(
    ws: Workspace, out: FleetRun, count: int, timeout_s: float, progress: Callable[[str], None]
) -> None:
    deadline = time.monotonic() + timeout_s
    memory = conductor.Memory()
    with conductor.lock(ws):
        while True:
            report = conductor.tick(ws, held=True, memory=memory)
            out.ticks += 1
            states = [t.state for t in tickets.list_all(ws)]
            finished = sum(1 for s in states if s in FINAL)
            alive = sum(1 for c in report.classes.values() if c == "alive")
            progress(
                f"tick {out.ticks}: {alive} workers running, {finished}/{count} tickets finished"
            )
            if finished == count:
                return
            if time.monotonic() > deadline:
                out.reason = f"{count - finished} tickets unfinished after {timeout_s:g}s"
                return
            time.sleep(0.2)


def _end_workers(ws: Workspace, out: FleetRun, progress: Callable[[str], None]) -> None:
    """The demo is over (every ticket has its result, or it timed out, failed or was interrupted):
    the workers still running (the last ones' agents, ending or waiting at their prompt) are
    stopped through `oms worker stop`'s path, so no record says a worker runs once the demo's tmux
    server is gone. A worker whose result was recorded keeps that end; one that cannot be stopped
    is the demo's failure, named."""
    delivery = Delivery.open(ws)
    for worker in ws.store.latest("worker").records:
        if worker_payload(worker)["health"] == "stopped":
            continue
        try:
            delivery.stop(worker.record_id, "the demo is over", by="oms-demo")
            progress(f"{worker.record_id}: stopped (the demo is over)")
        except OmsError as exc:
            why = f"{worker.record_id} was not stopped: {one_line(exc.message)}"
            out.reason = out.reason or why


def _results(ws: Workspace) -> list[JsonObject]:
    latest: dict[str, tuple[int, str]] = {}
    records = ws.store.records("dispatch")
    for dispatch_id in records.ids():
        d = records.read(dispatch_id)
        ticket_id, attempt = dispatch_payload(d)["ticket_id"], dispatch_payload(d)["attempt"]
        if ticket_id not in latest or latest[ticket_id][0] < attempt:
            latest[ticket_id] = (attempt, dispatch_id)
    return [
        {
            "ticket_id": t.record_id,
            "dispatch_id": latest.get(t.record_id, (0, None))[1],
            "state": t.state,
        }
        for t in sorted(tickets.list_all(ws), key=lambda t: int(t.record_id.split("-")[1]))
    ]


def _max_concurrent(ws: Workspace) -> int:
    """The most workers that ran at once: each from its session's registration to its worker's
    end."""
    edges: list[tuple[int, int]] = []
    sessions = ws.store.records("session")
    workers = ws.store.records("worker")
    for session_id in sessions.ids():
        first = sessions.read_version(session_id, 0)
        worker = workers.read_if_exists(session_payload(first)["dispatch_id"])
        if worker is None:
            continue
        end = (
            parse_ts(worker.observed_at) if worker_payload(worker)["health"] == "stopped" else 2**62
        )
        edges += [(parse_ts(first.observed_at), 1), (end, -1)]
    running = most = 0
    for _, delta in sorted(
        edges, key=lambda e: (e[0], e[1])
    ):  # an end before a start at the same instant
        running += delta
        most = max(most, running)
    return most
