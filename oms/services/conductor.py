"""`oms conductor tick`: one idempotent pass over the fleet (DESIGN.md §6; rules in `domain/conductor.py`).

Phases, each timed and reported, each item on its own (one bad ticket or worker is a line in the report,
never the end of the pass):
1. reconcile — every worker against one `tmux list-panes`: alive, pane dead, pane gone, not started;
   an ended pane ends its session and worker with its end reason; a tagged pane with no worker record is
   reported, never touched;
2. expire — tickets whose lease ran out go back to `open` (attempt + 1);
3. deadlines — fenced attempts and silent channels park (`check_liveness`), a session past its heartbeat
   deadline is `stalled` (and healthy again once it beats), a worker past its role's wall-clock limit is
   stopped (`deadline`);
4. resume — workers parked until a time that has come (`conductor_work.due`);
5. deliver — accepted dispatches whose delivery event has no receipt (`oms worker deliver`'s own path);
6. resolve — results decide their tickets; workers that ended without one are failed attempts
   (`conductor_work.py`);
7. fill — free pool slots take open tickets: lease → worktree → propose → review → accept → deliver;
8. close — dead panes of ended workers, only oms's own: the pane the worker's registry names.

Only one conductor works on a state root: the tick holds the conductor lock (`oms conductor run` holds it
for its whole life), and every launch still takes the deliverer's own lock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from oms.adapters.panes import Pane, Panes
from oms.canonical import JsonObject, access, parse_ts, stable_id
from oms.domain import conductor as rules
from oms.domain import workers
from oms.domain.config import role as configured_role
from oms.domain.machine import Next
from oms.domain.pool import PREFIX as POOL_PREFIX
from oms.errors import LockHeldError, OmsError, one_line
from oms.fsio.locks import Lock
from oms.services import conductor_work, tickets
from oms.services.delivery import Delivery
from oms.services.workspace import Workspace
from oms.store import Record, panefiles

LOCK_CONSUMER = "oms-conductor"
ACTOR = "oms-conductor"
RESULT_GRACE_MS = 120_000  # a worker still running this long after its result was acted on is stopped


@dataclass
class Phase:
    """One phase of a tick: what it did (one line each) and what it skipped, and how long it took."""

    name: str
    ms: float = 0.0
    done: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def to_json(self) -> JsonObject:
        return {"phase": self.name, "ms": round(self.ms), "done": list(self.done), "skipped": list(self.skipped)}


@dataclass
class Tick:
    """A tick's report: its phases, and every worker's class (alive, pane-dead, pane-gone, not-started,
    ended) as reconcile found it."""

    started_at: str
    phases: list[Phase] = field(default_factory=list)
    classes: dict[str, str] = field(default_factory=dict)
    unknown_panes: list[str] = field(default_factory=list)

    def to_json(self) -> JsonObject:
        return {
            "started_at": self.started_at,
            "ms": round(sum(p.ms for p in self.phases)),
            "phases": [p.to_json() for p in self.phases],
            "workers": dict(sorted(self.classes.items())),
            "unknown_panes": list(self.unknown_panes),
        }


class SeenPanes(Panes):
    """`Panes` whose `list` answers from one listing taken at the start of a tick (a tick asks tmux
    once); everything that acts (ensure, stop, keys) still goes to tmux."""

    def __init__(self, panes: Panes, listed: list[Pane]) -> None:
        super().__init__(panes.socket, panes.conf, panes.guard, panes.clock)
        self.listed = listed

    def list(self) -> list[Pane]:
        return list(self.listed)


def lock(ws: Workspace) -> Lock:
    """The conductor lock of this state root (`LockHeldError` names a live holder)."""
    try:
        return ws.store.outbox(LOCK_CONSUMER).lock("conductor")
    except LockHeldError as exc:
        raise LockHeldError(
            f"another conductor works on this state root: {exc.message}",
            hint="one conductor per state root: stop the other (`oms conductor run` ends on Ctrl-C or SIGTERM)",
        ) from None


def tick(ws: Workspace, *, d: Delivery | None = None, held: bool = False) -> Tick:
    """One pass (see the module's docstring). `held`: the caller holds the conductor lock already."""
    if not held:
        with lock(ws):
            return tick(ws, d=d, held=True)
    d = d if d is not None else Delivery.open(ws)
    report = Tick(ws.now())
    listed = d.panes.list()
    seen = replace(d, panes=SeenPanes(d.panes, listed))
    worker_records = _latest(ws, "worker")
    run = _Runner(report)
    run("reconcile", lambda p: _reconcile(seen, worker_records, listed, report, p))
    run("expire", lambda p: _expire(d, p))
    run("deadlines", lambda p: _deadlines(d, p))  # it acts (stop): on tmux as it is now
    run("resume", lambda p: conductor_work.resume_due(d, p.done, p.skipped))
    run("deliver", lambda p: conductor_work.deliver_pending(d, p.done, p.skipped))
    run("resolve", lambda p: conductor_work.resolve(ws, p.done, p.skipped))
    run("fill", lambda p: conductor_work.fill(d, p.done, p.skipped))
    run("close", lambda p: _close(d, p))
    return report


class _Runner:
    def __init__(self, report: Tick) -> None:
        self.report = report

    def __call__(self, name: str, body: Callable[[Phase], None]) -> None:
        phase = Phase(name)
        start = time.perf_counter()
        try:
            body(phase)
        except OmsError as exc:  # a phase that cannot run at all (an unreadable directory): the next one runs
            phase.skipped.append(f"the phase stopped: {one_line(exc.message)}")
        except Exception as exc:  # noqa: BLE001 - the machine (no fd, no process, no memory): one line, go on
            phase.skipped.append(f"the phase stopped: internal error: {one_line(f'{type(exc).__name__}: {exc}')}")
        phase.ms = (time.perf_counter() - start) * 1000
        self.report.phases.append(phase)


def _latest(ws: Workspace, kind: str) -> list[Record]:
    records = ws.store.records(kind)
    out = []
    for record_id in records.ids():
        try:
            out.append(records.read(record_id))
        except OmsError:
            continue  # reported by the phase that needs it (and by `oms store verify`)
    return out


def _classify(pane: Pane | None, health: str, session_exists: bool) -> str:
    if health == "stopped":
        return "ended"
    if pane is not None:
        return "alive" if not pane.dead else "pane-dead"
    return "pane-gone" if session_exists else "not-started"


def _reconcile(d: Delivery, records: list[Record], listed: list[Pane], report: Tick, phase: Phase) -> None:
    by_dispatch = {p.dispatch_id: p for p in listed if p.dispatch_id == p.session}
    known = set()
    for worker in records:
        dispatch_id = worker.record_id
        known.add(dispatch_id)
        try:
            health, pane = str(worker.payload["health"]), by_dispatch.get(dispatch_id)
            started = (
                pane is not None or health == "stopped" or d.session(str(worker.payload["session_id"])) is not None
            )
            before = _classify(pane, health, started)
            if health != "stopped" and before != "alive":
                d.reconcile(dispatch_id)
                after = d.worker(dispatch_id)
                if after.payload["health"] == "stopped":
                    phase.done.append(f"{dispatch_id}: {before}, ended ({after.payload['end_reason']})")
                    before = "ended"
            report.classes[dispatch_id] = before
        except OmsError as exc:
            phase.skipped.append(f"{dispatch_id}: {one_line(exc.message)}")
    report.unknown_panes = sorted(p.session for p in listed if p.session not in known)
    for name in report.unknown_panes:
        phase.skipped.append(f"pane {name}: no worker record (left alone: oms cannot prove it started it)")


def _expire(d: Delivery, phase: Phase) -> None:
    """Leases that ran out (the conductor was away longer than half a lease): their tickets are open again
    — except one whose pool worker waits for a person (parked `no_result`, fenced, silent): that stays
    leased (its worker fenced all the same) until the person decides (`oms worker stop`: blocked)."""

    def keep(ticket: Record) -> str | None:
        session_id = ticket.payload.get("session_id")
        if not isinstance(session_id, str) or not _pooled_ticket(ticket):
            return None
        dispatch_id = stable_id("dsp", ticket.record_id, access.integer(ticket.payload, "attempt"), session_id)
        worker = d.ws.store.records("worker").read_if_exists(dispatch_id)
        if worker is None:
            return None
        if worker.payload["health"] == "stopped":  # ended this tick: the resolve phase decides it
            ended = conductor_work.ended_attempt(d.ws, d.dispatch(dispatch_id))
            return None if ended is None or ended[0] != "stopped" else f"its attempt {dispatch_id} was stopped"
        if not _waits_for_person(d, worker):
            return None
        return f"its worker {dispatch_id} waits for a person: {worker.payload.get('health_reason')}"

    for ticket in tickets.expire_due(d.ws, phase.skipped, keep):
        phase.done.append(f"{ticket.record_id}: lease expired, open for attempt {ticket.payload['attempt']}")


def _deadlines(d: Delivery, phase: Phase) -> None:
    now = d.ws.now()
    config = d.ws.config()
    for worker in _latest(d.ws, "worker"):
        dispatch_id = worker.record_id
        if worker.payload["health"] == "stopped" or worker.state not in ("idle", "working"):
            continue
        try:
            dispatch = d.dispatch(dispatch_id)
            ticket = d.ws.store.records("ticket").read(access.text(dispatch.payload, "ticket_id"))
            if _pooled(dispatch) and _moved_on(ticket, dispatch):
                why = (
                    f"its ticket moved on without it ({ticket.state}, attempt {ticket.payload['attempt']}): "
                    "its lease ran out, the attempt is fenced"
                )
                d.stop(dispatch_id, why, end_reason="deadline", by=ACTOR)
                phase.done.append(f"{dispatch_id}: stopped, {why}")
                continue
            _renew(d, dispatch, ticket, now, config.lease_minutes, phase)
            session = d.session(str(worker.payload["session_id"]))
            if session is None:
                continue
            started = d.ws.store.records("session").read_version(session.record_id, 0).observed_at
            limit = configured_role(config, str(worker.payload["role_id"])).deadline_minutes
            if rules.past_deadline(started, limit, now):
                _stop_at_deadline(d, worker, limit, phase)
                continue
            before = str(worker.payload["health"])
            d.check_liveness(dispatch_id)
            now_health = str(d.worker(dispatch_id).payload["health"])
            if now_health != before:
                phase.done.append(f"{dispatch_id}: {now_health} ({d.worker(dispatch_id).payload['health_reason']})")
                continue
            _heartbeat(d, worker, session, now, phase)
        except OmsError as exc:
            phase.skipped.append(f"{dispatch_id}: {one_line(exc.message)}")


def _pooled(dispatch: Record) -> bool:
    return str(dispatch.payload.get("worker_id") or "").startswith(POOL_PREFIX)


def _moved_on(ticket: Record, dispatch: Record) -> bool:
    """Has the ticket left this dispatch's attempt (its lease ran out, or it was decided without it)?"""
    return (
        ticket.state != "leased"
        or ticket.payload.get("attempt") != dispatch.payload.get("attempt")
        or ticket.payload.get("session_id") != dispatch.payload.get("session_id")
    )


def _renew(d: Delivery, dispatch: Record, ticket: Record, now: str, lease_minutes: int, phase: Phase) -> None:
    """Renew the lease of a ticket whose pool worker has not ended, once less than half of it is left."""
    expires = access.text_or_none(ticket.payload, "lease_expires_at")
    if not _pooled(dispatch) or not rules.renew_due(expires, lease_minutes, now):
        return
    renewed = tickets.renew(d.ws, ticket.record_id, access.text(ticket.payload, "lease_token"))
    phase.done.append(
        f"{ticket.record_id}: lease renewed until {renewed.payload['lease_expires_at']} "
        f"({dispatch.record_id} has not ended)"
    )


def _pooled_ticket(ticket: Record) -> bool:
    return str(ticket.payload.get("worker_id") or "").startswith(POOL_PREFIX)


def _waits_for_person(d: Delivery, worker: Record) -> bool:
    """`rules.waits_for_person` of a worker that has not ended, on its session as recorded."""
    if worker.payload["health"] != "parked":
        return False
    session = d.session(str(worker.payload["session_id"]))
    return rules.waits_for_person(
        session_state=None if session is None else session.state,
        parked_until=None if session is None else access.text_or_none(session.payload, "parked_until"),
        health="parked",
        reason=access.text_or_none(worker.payload, "health_reason"),
    )


def _stop_at_deadline(d: Delivery, worker: Record, limit: int, phase: Phase) -> None:
    """Stop a worker past its role's limit: a failed attempt (`deadline`), or — one parked for a person — a
    decision its ticket waits on (`stopped`: blocked, never retried blindly)."""
    reason = access.text_or_none(worker.payload, "health_reason")
    if _waits_for_person(d, worker):
        why = f"parked ({reason}) past its role's {limit}-minute limit, waiting for a person"
        d.stop(worker.record_id, why, end_reason="stopped", by=ACTOR)
        phase.done.append(f"{worker.record_id}: stopped at its {limit}-minute deadline; it waits for a person")
        return
    d.stop(worker.record_id, f"ran past its role's {limit}-minute limit", end_reason="deadline", by=ACTOR)
    phase.done.append(f"{worker.record_id}: stopped at its {limit}-minute deadline")


def _heartbeat(d: Delivery, worker: Record, session: Record, now: str, phase: Phase) -> None:
    """Healthy past the heartbeat deadline → `stalled` (kept running); stalled and beating → healthy."""
    late = rules.stalled(access.text_or_none(session.payload, "heartbeat_deadline_at"), now)
    health = worker.payload["health"]
    if session.state != "running" or (health == "healthy") != late:
        return
    target, why = ("stalled", "no heartbeat from its hooks before the deadline") if late else ("healthy", None)

    def decide(current: Record, at: str) -> Next | None:
        if current.payload["health"] != health:
            return None
        return workers.set_health(current.state, current.payload, target, now=at, reason=why)

    d.move_worker(worker.record_id, decide, op=stable_id("cnd-beat", worker.record_id, worker.version, target))
    phase.done.append(f"{worker.record_id}: {target}")


def _close(d: Delivery, phase: Phase) -> None:
    """Workers of the pool whose result was acted on and which still run after `RESULT_GRACE_MS` (an
    interactive agent waits at its prompt for good: its slot would never free) are stopped through `oms
    worker stop`'s path; then dead panes of ended workers, only the pane the worker's own registry names
    (never one oms cannot prove it started)."""
    root = d.ws.store.state.root
    now = parse_ts(d.ws.now())
    for ended in _latest(d.ws, "worker"):
        if ended.payload["health"] == "stopped" or ended.state in ("idle", "working"):
            continue  # stopped, or still working on its attempt (the deadlines phase's)
        try:
            dispatch = d.dispatch(ended.record_id)
            acted_on = dispatch.state == "resolved" and now - parse_ts(dispatch.observed_at) >= RESULT_GRACE_MS
            if not _pooled(dispatch) or not acted_on:
                continue
            d.stop(ended.record_id, "its result was recorded and acted on: its work is over", by=ACTOR)
            phase.done.append(f"{ended.record_id}: stopped, its result was acted on (its slot is free)")
        except OmsError as exc:
            phase.skipped.append(f"{ended.record_id}: {one_line(exc.message)}")
    for pane in d.panes.list():
        if not pane.dead or pane.session != pane.dispatch_id:
            continue
        try:
            worker = d.ws.store.records("worker").read_if_exists(pane.dispatch_id)
            registry = panefiles.read_registry(root, pane.dispatch_id)
            if worker is None or worker.payload["health"] != "stopped":
                continue
            if registry is None or (registry["pane_id"], registry["pane_pid"]) != (pane.pane_id, pane.pane_pid):
                phase.skipped.append(f"{pane.dispatch_id}: its dead pane is not the one its registry names; kept")
                continue
            d.panes.tmux("kill-session", "-t", f"={pane.dispatch_id}", check=False)
            panefiles.drop_registry(root, pane.dispatch_id)
            phase.done.append(f"{pane.dispatch_id}: closed its ended pane {pane.pane_id}")
        except OmsError as exc:
            phase.skipped.append(f"{pane.dispatch_id}: {one_line(exc.message)}")
