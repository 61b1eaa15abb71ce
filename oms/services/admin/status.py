"""`oms status`: tickets, dispatches, workers and sessions at a glance; each worker with what its
agent is doing (`domain/workers.agent`: a `working`, `healthy` worker whose agent rests shows
`stopped`); a warning for what needs a person, the model proxy down while a worker needs it too;
every host's workers, and `host unreachable` for a host whose heartbeat lapsed (`domain/hosts.py`;
on etcd, whose heartbeat key went with its lease: `Store.beats`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from oms.canonical import Json, JsonObject, access, parse_ts
from oms.domain import hosts, workers
from oms.domain import notify as notify_rules
from oms.domain.conductor import NEEDS_PERSON
from oms.domain.proxy import UNKNOWABLE, ProxyState
from oms.domain.sandbox_limits import UNSAFE_NONE
from oms.domain.status_reason import ticket_reason
from oms.errors import OmsError
from oms.schemas.payloads import DispatchState, TicketState, WorkerPayload
from oms.services.chain import dispatches as chain_dispatches
from oms.services.containment import opt_outs
from oms.services.proxy import tokens as proxy_tokens
from oms.services.workspace import Workspace, shapes
from oms.store import Record
from oms.store.payloads import dispatch_payload, ticket_payload, worker_payload

agent_of = shapes.agent_of  # (the dashboard, oms/cli/conductor_view.py, reads it here)
LIVE = ("proposed", "accepted", "acknowledged")  # a dispatch whose worker may still run


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Latest versions of every record, by kind."""

    tickets: list[Record]
    dispatches: list[Record]
    workers: list[Record]
    sessions: list[Record]
    authorizations: list[Record]
    # containment given up (ADR 0026), sandboxes with no cgroup (ADR 0025)
    warnings: list[str] = field(default_factory=list)
    hosts: list[JsonObject] = field(default_factory=list)  # `host_views`
    # the dispatches that wait for a person's approval, each with what it waits for
    # (`dispatches.awaiting_person`)
    awaiting: dict[str, str] = field(default_factory=dict)
    # the dispatches a person approved that wait for their provider's rest to end, each with what
    # it waits for (`dispatches.approved_rest`)
    resting: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        """Machine form: each record in its one shape (`workspace/shapes`)."""
        by_id = {s.record_id: s for s in self.sessions}
        return {
            "tickets": [shapes.ticket(r) for r in self.tickets],
            "dispatches": [shapes.dispatch(r, self.awaiting) for r in self.dispatches],
            "workers": [
                shapes.worker(r, by_id.get(worker_payload(r)["session_id"])) for r in self.workers
            ],
            "sessions": [shapes.session(r) for r in self.sessions],
            "live": [shapes.authorization(r) for r in self.authorizations],
            "hosts": [dict(h) for h in self.hosts],
            "warnings": list(self.warnings),
        }

    def host_cells(self) -> dict[str, str]:
        """Each worker's host as `oms status` shows it: its name, and `host unreachable` after it
        when that host's heartbeat lapsed."""
        out: dict[str, str] = {}
        for view in self.hosts:
            cell = str(view["host"]) + (
                " (host unreachable)" if view["state"] == hosts.UNREACHABLE else ""
            )
            for worker_id in access.array(view, "workers"):
                out[str(worker_id)] = cell
        return out

    def reasons(self, now: str) -> dict[str, str]:
        """Why each ticket is where it is (`domain/status_reason.py`), by ticket id: human output
        only."""
        current: dict[tuple[str, str | None], WorkerPayload] = {
            (worker_payload(w)["ticket_id"], worker_payload(w)["session_id"]): worker_payload(w)
            for w in sorted(self.workers, key=lambda w: w.observed_at)
        }
        now_ms = parse_ts(now)
        awaiting = self.awaiting_by_ticket()
        return {
            t.record_id: ticket_reason(
                t.state,
                ticket_payload(t),
                current.get((t.record_id, ticket_payload(t)["session_id"])),
                now_ms,
                awaiting.get(t.record_id),
            )
            for t in self.tickets
        }

    def awaiting_by_ticket(self) -> dict[str, str]:
        """What each ticket's dispatch waits for (a person's approval, or its approved route's
        rest), by ticket id."""
        return {
            dispatch_payload(d)["ticket_id"]: why
            for d in self.dispatches
            if (why := self.awaiting.get(d.record_id) or self.resting.get(d.record_id))
        }


def unsalvaged(records: list[Record]) -> list[str]:
    """A warning for each worker whose end could not salvage its work (it stays in the worktree)."""
    return [
        f"worker {w.record_id} of {worker_payload(w)['ticket_id']} ended: {workers.unsalvaged(e)}"
        for w in records
        if (e := worker_payload(w).get("salvage_error")) is not None
    ]


def snapshot(ws: Workspace) -> Snapshot:
    """Read the latest version of every record."""

    def latest(kind: str) -> list[Record]:
        return ws.store.latest(kind).checked()

    dispatches, workers = latest("dispatch"), latest("worker")
    ended = {w.record_id for w in workers if worker_payload(w)["health"] == "stopped"}
    unbounded = [  # what runs or would, from the intents (`oms doctor` warns of the config)
        f'dispatch {d.record_id}: its worker has no cgroup ([limits] cgroup = "{UNSAFE_NONE}"): '
        "no pids, memory or CPU bound"
        for d in dispatches
        if _unbounded(d) and d.state in LIVE and d.record_id not in ended
    ]
    by_id = {d.record_id: d for d in dispatches}
    warnings = unbounded + opt_outs.worker_warnings(workers, by_id) + unsalvaged(workers)
    try:
        config = ws.config()
        warnings = opt_outs.role_warnings(config) + opt_outs.probe_warnings(config) + warnings
        if config.stale_notify:  # ignored, never run (ADR 0036 as amended)
            warnings.append(notify_rules.MOVED.format(path=notify_rules.settings_path(os.environ)))
    except OmsError as exc:  # no committed config: `oms doctor` says why
        warnings.append(f"config: {exc.message}")
    sessions, authorizations = latest("session"), latest("authorization")
    tickets = latest("ticket")
    try:
        awaiting = chain_dispatches.awaiting_person(ws, dispatches)
    except OmsError as exc:  # no committed policy: `oms doctor` says why
        awaiting, warnings = {}, [*warnings, f"role policy: {exc.message}"]
    warnings += waiting(tickets, dispatches, awaiting) + proxy_down(ws)
    resting = _resting(ws, dispatches)
    views, unreachable = host_views(ws, workers)
    return Snapshot(
        tickets,
        dispatches,
        workers,
        sessions,
        authorizations,
        unreachable + warnings,
        views,
        awaiting,
        resting,
    )


def _resting(ws: Workspace, dispatches: list[Record]) -> dict[str, str]:
    """`dispatches.approved_rest` of each proposed dispatch a person approved (none is read
    otherwise); a configuration that cannot be read shows none (its warning says why)."""
    found: dict[str, str] = {}
    for d in dispatches:
        if (
            d.state != DispatchState.PROPOSED
            or dispatch_payload(d).get("approval_evidence") is None
        ):
            continue
        try:
            why = chain_dispatches.approved_rest(ws, d)
        except OmsError:
            return {}
        if why is not None:
            found[d.record_id] = why
    return found


def host_views(ws: Workspace, records: list[Record]) -> tuple[list[JsonObject], list[str]]:
    """Every host that runs a worker or keeps a heartbeat, with its workers and whether it is
    reachable (`domain/hosts.state`), and a warning for each unreachable host with a worker that has
    not ended (nothing looks after it until that host returns)."""
    try:
        this: str | None = ws.host()
    except OmsError as exc:  # a bad OMS_HOST: said, and no host is this one
        this = None
        lines = [f"host: {exc.message}"]
    else:
        lines = []
    kept = ws.store.beats()  # the state root's files, or an etcd store's keys under leases
    try:
        beats = kept.read_all()
    except OmsError as exc:
        beats, lines = {}, [*lines, f"hosts' heartbeats: {exc.message}"]
    now = ws.now()
    by_host: dict[str, list[Record]] = {name: [] for name in beats}
    for worker in records:
        named = hosts.host_of(worker_payload(worker), this or "")
        by_host.setdefault(named or "unknown", []).append(worker)
    views: list[JsonObject] = []
    for name in sorted(by_host):
        beat, ids = beats.get(name), sorted(w.record_id for w in by_host[name])
        state = hosts.state(name, beat, now, this or "", leased=kept.leased)
        views.append(
            {
                "host": name,
                "state": state,
                "this_host": name == this,
                "beat_at": None if beat is None else beat["beat_at"],
                "expires_at": None if beat is None else beat["expires_at"],
                "workers": list[Json](ids),
            }
        )
        running = sorted(
            w.record_id for w in by_host[name] if worker_payload(w)["health"] != "stopped"
        )
        if state == hosts.UNREACHABLE and running:
            if kept.leased:  # etcd: the key went with its lease, or there never was one
                since = "no heartbeat under a live lease"
            elif beat is None:
                since = "it never beat"
            else:
                since = f"its heartbeat lapsed at {beat['expires_at']}"
            lines.append(
                f"host {name} unreachable ({since}): its workers {', '.join(running[:10])} are "
                "not looked after until it returns (its conductor: `oms conductor run` there)"
            )
    return views, lines


def waiting(tickets: list[Record], dispatches: list[Record], awaiting: dict[str, str]) -> list[str]:
    """One warning for each fix open tickets wait for (ADR 0031), naming them, and one for each
    dispatch that waits for a person's approval (`awaiting`), naming its ticket."""
    by_reason: dict[str, list[str]] = {}
    for ticket in tickets:
        reason = ticket_payload(ticket).get("reason")
        if (
            ticket.state == TicketState.OPEN
            and isinstance(reason, str)
            and reason.startswith(NEEDS_PERSON)
        ):
            by_reason.setdefault(reason, []).append(ticket.record_id)
    fixes = [f"{', '.join(ids[:10])}: {reason}" for reason, ids in by_reason.items()]
    return fixes + [
        f"{dispatch_payload(d)['ticket_id']}: {awaiting[d.record_id]}"
        for d in dispatches
        if d.record_id in awaiting
    ]


def proxy_down(ws: Workspace) -> list[str]:
    """A warning while a worker that has not ended holds a token and no verified model proxy
    serves (ADR 0026): none of those workers reaches its model until one does."""
    try:
        needing = proxy_tokens.needed(ws.store.state.root, ws.store.backend)
        if needing:  # (the proxy's control, its server and urllib: 50 ms of imports otherwise)
            from oms.services.proxy import control as proxy_control

            found = proxy_control.status(ws)
        else:
            found = None
    except OmsError as exc:
        return [f"the model proxy: {exc.message}"]
    if found is None or found.state == ProxyState.RUNNING:
        return []
    fix = (
        "`oms proxy stop`, then `oms proxy start`"
        if found.state in UNKNOWABLE
        else "the conductor's next tick starts it, or `oms proxy start`"
    )
    names = ", ".join(needing[:5]) + (f" and {len(needing) - 5} more" if len(needing) > 5 else "")
    return [
        f"the model proxy is not serving ({found.note}): {names} cannot reach its model ({fix})"
    ]


def _unbounded(dispatch: Record) -> bool:
    limits = dispatch_payload(dispatch).get("role_limits")
    return isinstance(limits, dict) and limits.get("cgroup") == UNSAFE_NONE
