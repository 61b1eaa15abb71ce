"""The conductor's resolve phase (`services/conductor/tick.py` runs it): each ended attempt decides
its ticket — done, blocked for a person, retried after a backoff, or quarantined — and its dispatch
is resolved (a result) or cancelled (no result). Decisions are `domain/conductor.py`'s. Also the
helpers every phase shares: `latest` (every readable record of a kind) and the conductor's actor
name.
"""

from __future__ import annotations

from oms.canonical import JsonObject, access
from oms.domain import conductor as conductor_rules
from oms.domain.gate import NO_RESULT
from oms.errors import OmsError, one_line
from oms.services.chain import dispatches, tickets
from oms.services.conductor import quota as conductor_providers
from oms.services.workspace import Workspace
from oms.store import Record

ACTOR = "oms-conductor"
# a stop (`stopped`) is a decision: blocked; a bound reached (`limit: ...`) is a failed attempt
LIMIT_ENDS = ("limit: pids", "limit: memory", "limit: disk")
FAILED_ENDS = ("exit", "signal", "deadline", "parent-gone", *LIMIT_ENDS)


def latest(ws: Workspace, kind: str) -> list[Record]:
    """The latest version of every record of `kind` that can be read (an unreadable one is `oms
    store verify`'s to report; the phase that needs it names it)."""
    return ws.store.latest(kind).records


def ended_attempt(ws: Workspace, dispatch: Record) -> tuple[str, str] | None:
    """(status, summary) of an attempt that ended: its recorded result; the end of a worker that
    ended without one (`ended`); or a stop (`stopped`: `oms worker stop` — also one its kill marker
    made `observe` record —, or the conductor stopping a worker that waited for a person past its
    deadline): its ticket waits for a person, never for its lease to run out and a new agent. None
    while it runs."""
    if dispatch.state == "result-received":
        result = access.obj(
            ws.store.evidence.get(access.text(dispatch.payload, "result_evidence")).body, "payload"
        )
        return access.text(result, "status"), access.text(result, "summary")
    if dispatch.state not in ("accepted", "acknowledged"):
        return None
    worker = ws.store.records("worker").read_if_exists(dispatch.record_id)
    if worker is None or worker.payload["health"] != "stopped":
        return None
    end_reason, detail = (
        worker.payload.get("end_reason"),
        str(worker.payload.get("end_detail") or ""),
    )
    if end_reason == "stopped":
        return "stopped", detail or "stopped"
    if end_reason not in FAILED_ENDS:
        return None
    if _parked_no_result(
        ws, worker
    ):  # it waited for a person when its pane ended (a tmux server that died)
        return "stopped", f"parked {NO_RESULT}, then it ended ({detail or end_reason})"
    return "ended", f"the worker ended without a result: {detail or end_reason}"


def _parked_no_result(ws: Workspace, worker: Record) -> bool:
    """Was the worker parked `no_result` (waiting for a person) when it ended? Its versions before
    the end, back to the last one not parked."""
    records = ws.store.records("worker")
    for version in range(worker.version - 1, -1, -1):
        before = records.read_version(worker.record_id, version)
        if before.payload["health"] != "parked":
            return False
        if before.payload.get("health_reason") == NO_RESULT:
            return True
    return False


def resolve(ws: Workspace, done: list[str], skipped: list[str]) -> None:
    """Each ended attempt decides its ticket: done, blocked for a person, retried after a backoff,
    or quarantined; then the dispatch is resolved (a result) or cancelled (no result)."""
    now = ws.now()
    for dispatch in latest(ws, "dispatch"):
        try:
            ended = ended_attempt(ws, dispatch)
            if ended is None:
                continue
            status, summary = ended
            status = conductor_providers.rest_from_report(ws, dispatch, status, summary)
            line = _decide(ws, dispatch, status, summary, now)
            if dispatch.state == "result-received":
                dispatches.resolve(ws, dispatch.record_id, line)
            else:
                dispatches.cancel(ws, dispatch.record_id, line)
            done.append(f"{dispatch.record_id}: {line}")
        except OmsError as exc:
            skipped.append(f"{dispatch.record_id}: {one_line(exc.message)}")


def _decide(ws: Workspace, dispatch: Record, status: str, summary: str, now: str) -> str:
    """Move the ticket of `dispatch` (if it is still on this attempt); the line that says what
    happened."""
    ticket = ws.store.records("ticket").read(access.text(dispatch.payload, "ticket_id"))
    return decide_ticket(
        ws,
        ticket,
        dispatch.record_id,
        access.integer(dispatch.payload, "attempt"),
        status,
        summary,
        now,
    )


def decide_ticket(
    ws: Workspace,
    ticket: Record,
    dispatch_id: str | None,
    attempt: int,
    status: str,
    summary: str,
    now: str,
) -> str:
    session_id = ticket.payload.get("session_id")
    if (
        ticket.state != "leased"
        or not isinstance(session_id, str)
        or ticket.payload.get("attempt") != attempt
    ):
        return (
            f"ticket {ticket.record_id} has moved on ({ticket.state}, attempt "
            f"{ticket.payload['attempt']})"
        )
    failure: JsonObject = {
        "attempt": attempt,
        "dispatch_id": dispatch_id,
        "failed_at": now,
        "reason": one_line(f"{status}: {summary}", 512),
    }
    past = (
        [f for f in access.array(ticket.payload, "failures") if isinstance(f, dict)]
        if "failures" in ticket.payload
        else []
    )
    counted = status not in (
        "completed",
        "blocked",
        "stopped",
        conductor_rules.PERSON,
        conductor_rules.CONFIG,
        conductor_rules.REST,
    )
    failures = [*past, failure] if counted else past
    decision = conductor_rules.resolve(status, summary, failures=failures, now=now)
    reason = one_line(decision.reason, 512)
    if decision.resolution is conductor_rules.Resolution.DONE:
        tickets.complete(ws, ticket, session_id=session_id, attempt=attempt, reason=reason)
        return f"ticket {ticket.record_id} done"
    if (
        decision.resolution is conductor_rules.Resolution.WAIT
    ):  # a configuration fault, or no provider free: no attempt (ADR 0031)
        tickets.wait_for_person(ws, ticket, reason)
        return f"ticket {ticket.record_id} waits, open: {reason}"
    if decision.resolution is conductor_rules.Resolution.RETRY and decision.retry_after is not None:
        tickets.retry(
            ws, ticket, session_id=session_id, failure=failure, retry_after=decision.retry_after
        )
        return (
            f"ticket {ticket.record_id} retried after {decision.retry_after} ({failure['reason']})"
        )
    kept = failure if decision.resolution is conductor_rules.Resolution.QUARANTINE else None
    tickets.give_up(ws, ticket, session_id=session_id, attempt=attempt, reason=reason, failure=kept)
    return f"ticket {ticket.record_id} blocked: {reason}"
