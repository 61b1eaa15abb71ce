"""`oms status`: tickets, dispatches, workers and sessions at a glance; each worker with what its
agent is doing (`domain/workers.agent`: a `working`, `healthy` worker whose agent rests shows
`stopped`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from oms.canonical import JsonObject, parse_ts
from oms.domain import workers
from oms.domain.conductor import NEEDS_PERSON
from oms.domain.sandbox_limits import UNSAFE_NONE
from oms.domain.status_reason import ticket_reason
from oms.errors import OmsError
from oms.services.containment import opt_outs
from oms.services.workspace import Workspace
from oms.store import Record

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

    def to_json(self) -> JsonObject:
        """Machine form: one summary object per record."""

        def summary(rec: Record, *fields: str) -> JsonObject:
            out: JsonObject = {
                "id": rec.record_id,
                "state": rec.state,
                "version": rec.version,
                "observed_at": rec.observed_at,
            }
            out.update({f: rec.payload.get(f) for f in fields})
            return out

        by_id = {s.record_id: s for s in self.sessions}

        def worker(r: Record) -> JsonObject:
            session = by_id.get(str(r.payload["session_id"]))
            return summary(r, "ticket_id", "health", "end_reason") | agent_of(r, session)

        return {
            "tickets": [
                summary(r, "title", "source", "attempt", "worker_id", "lease_expires_at")
                for r in self.tickets
            ],
            "dispatches": [
                summary(
                    r,
                    "ticket_id",
                    "attempt",
                    "role_id",
                    "provider_mode",
                    "advisor_verdict",
                    "reason",
                )
                for r in self.dispatches
            ],
            "workers": [worker(r) for r in self.workers],
            "sessions": [
                summary(r, "dispatch_id", "tmux_pane_id", "heartbeat_deadline_at")
                for r in self.sessions
            ],
            "live": [summary(r, "repository", "person") for r in self.authorizations],
            "warnings": list(self.warnings),
        }

    def reasons(self, now: str) -> dict[str, str]:
        """Why each ticket is where it is (`domain/status_reason.py`), by ticket id: human output
        only."""
        current = {
            (w.payload.get("ticket_id"), w.payload.get("session_id")): w.payload
            for w in sorted(self.workers, key=lambda w: w.observed_at)
        }
        now_ms = parse_ts(now)
        return {
            t.record_id: ticket_reason(
                t.state,
                t.payload,
                current.get((t.record_id, t.payload.get("session_id"))),
                now_ms,
            )
            for t in self.tickets
        }


def unsalvaged(records: list[Record]) -> list[str]:
    """A warning for each worker whose end could not salvage its work (it stays in the worktree)."""
    return [
        f"worker {w.record_id} of {w.payload.get('ticket_id')} ended: {workers.unsalvaged(e)}"
        for w in records
        if isinstance(e := w.payload.get("salvage_error"), str)
    ]


def agent_of(worker: Record, session: Record | None) -> JsonObject:
    """What the worker's agent is doing (`domain/workers.agent`) and since when it rests."""
    state, payload = (None, None) if session is None else (session.state, session.payload)
    return {
        "agent": workers.agent(worker.payload.get("health"), worker.state, state, payload),
        "agent_stopped_at": None if payload is None else payload.get("agent_stopped_at"),
    }


def snapshot(ws: Workspace) -> Snapshot:
    """Read the latest version of every record."""

    def latest(kind: str) -> list[Record]:
        return ws.store.latest(kind).checked()

    dispatches, workers = latest("dispatch"), latest("worker")
    ended = {w.record_id for w in workers if w.payload.get("health") == "stopped"}
    unbounded = [  # what runs or would, from the intents (`oms doctor` warns of the config)
        f'dispatch {d.record_id}: its worker has no cgroup ([limits] cgroup = "{UNSAFE_NONE}"): '
        "no pids, memory or CPU bound"
        for d in dispatches
        if _unbounded(d) and d.state in LIVE and d.record_id not in ended
    ]
    by_id = {d.record_id: d for d in dispatches}
    warnings = unbounded + opt_outs.worker_warnings(workers, by_id) + unsalvaged(workers)
    try:
        warnings = opt_outs.role_warnings(ws.config()) + warnings
    except OmsError as exc:  # no committed config: `oms doctor` says why
        warnings.append(f"config: {exc.message}")
    sessions, authorizations = latest("session"), latest("authorization")
    tickets = latest("ticket")
    warnings += waiting(tickets)
    return Snapshot(tickets, dispatches, workers, sessions, authorizations, warnings)


def waiting(tickets: list[Record]) -> list[str]:
    """One warning for each fix open tickets wait for (ADR 0031), naming them."""
    by_reason: dict[str, list[str]] = {}
    for ticket in tickets:
        reason = ticket.payload.get("reason")
        if ticket.state == "open" and isinstance(reason, str) and reason.startswith(NEEDS_PERSON):
            by_reason.setdefault(reason, []).append(ticket.record_id)
    return [f"{', '.join(ids[:10])}: {reason}" for reason, ids in by_reason.items()]


def _unbounded(dispatch: Record) -> bool:
    limits = dispatch.payload.get("role_limits")
    return isinstance(limits, dict) and limits.get("cgroup") == UNSAFE_NONE
