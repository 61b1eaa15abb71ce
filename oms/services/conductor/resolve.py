"""The conductor's resolve phase (`services/conductor/tick.py` runs it): each ended attempt decides
its ticket — done, blocked for a person, retried after a backoff, or quarantined — and its dispatch
is resolved (a result) or cancelled (no result). Decisions are `domain/conductor.py`'s. Also the
helpers every phase shares: `latest` (every readable record of a kind), `own_workers` (the workers
this host runs: the only ones reconcile, deadlines, resume, deliver and close act on) and the
conductor's actor name.
"""

from __future__ import annotations

from collections.abc import Mapping

from oms.canonical import access
from oms.domain import attempt as attempt_rules
from oms.domain import hosts
from oms.domain.gate import NO_RESULT
from oms.errors import OmsError, one_line
from oms.schemas.payloads import DispatchState
from oms.services.chain import dispatches, tickets
from oms.services.conductor import quota as conductor_providers
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import dispatch_payload, text_set, ticket_payload, worker_payload

ACTOR = "oms-conductor"


def latest(ws: Workspace, kind: str) -> list[Record]:
    """The latest version of every record of `kind` that can be read (an unreadable one is `oms
    store verify`'s to report; the phase that needs it names it)."""
    return ws.store.latest(kind).records


def own_workers(ws: Workspace) -> list[Record]:
    """`latest` workers this host runs (`domain/hosts.ours`: a record naming another host is that
    host's conductor's; one naming none is this host's): the only ones a phase acts on."""
    return hosts.ours(latest(ws, "worker"), _payload, ws.host())


def _payload(record: Record) -> Mapping[str, object]:
    return record.payload


def theirs(ws: Workspace) -> set[str]:
    """The ids of the workers another host runs: their delivery and their chain's next steps are
    that host's (the deliver and fill phases pass over them)."""
    this = ws.host()
    return {
        w.record_id for w in latest(ws, "worker") if worker_payload(w).get("host", this) != this
    }


def ended_attempt(ws: Workspace, dispatch: Record) -> tuple[str, str] | None:
    """(status, summary) of an attempt that ended: its recorded result; the end of a worker that
    ended without one (`ended`); or a stop (`stopped`: `oms worker stop` — also one its kill marker
    made `observe` record —, or the conductor stopping a worker that waited for a person past its
    deadline): its ticket waits for a person, never for its lease to run out and a new agent. None
    while it runs."""
    if dispatch.state == DispatchState.RESULT_RECEIVED:
        ref = text_set(dispatch_payload(dispatch)["result_evidence"], "result_evidence")
        result = access.obj(ws.store.evidence.get(ref).body, "payload")
        return access.text(result, "status"), access.text(result, "summary")
    if dispatch.state not in (DispatchState.ACCEPTED, DispatchState.ACKNOWLEDGED):
        return None
    worker = ws.store.records("worker").read_if_exists(dispatch.record_id)
    if worker is None or worker_payload(worker)["health"] != "stopped":
        return None
    end_reason, detail = (
        worker_payload(worker).get("end_reason"),
        str(worker_payload(worker).get("end_detail") or ""),
    )
    if end_reason not in attempt_rules.FAILED_ENDS:  # a stop, or no end that decides
        return attempt_rules.ended_status(end_reason, detail, parked_no_result=False)
    parked = _parked_no_result(ws, worker)
    return attempt_rules.ended_status(end_reason, detail, parked_no_result=parked)


def _parked_no_result(ws: Workspace, worker: Record) -> bool:
    """Was the worker parked `no_result` (waiting for a person) when it ended? Its versions before
    the end, back to the last one not parked."""
    records = ws.store.records("worker")
    for version in range(worker.version - 1, -1, -1):
        before = records.read_version(worker.record_id, version)
        if worker_payload(before)["health"] != "parked":
            return False
        if worker_payload(before)["health_reason"] == NO_RESULT:
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
            if dispatch.state == DispatchState.RESULT_RECEIVED:
                dispatches.resolve(ws, dispatch.record_id, line)
            else:
                dispatches.cancel(ws, dispatch.record_id, line)
            done.append(f"{dispatch.record_id}: {line}")
        except OmsError as exc:
            skipped.append(f"{dispatch.record_id}: {one_line(exc.message)}")


def _decide(ws: Workspace, dispatch: Record, status: str, summary: str, now: str) -> str:
    """Move the ticket of `dispatch` (if it is still on this attempt); the line that says what
    happened."""
    ticket = ws.store.records("ticket").read(dispatch_payload(dispatch)["ticket_id"])
    return decide_ticket(
        ws,
        ticket,
        dispatch.record_id,
        dispatch_payload(dispatch)["attempt"],
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
    """Move `ticket` as attempt `attempt`'s end with `status` decides (`domain/attempt.decide`);
    the line that says what happened."""
    step = attempt_rules.decide(
        ticket.record_id,
        ticket.state,
        ticket.payload,
        dispatch_id=dispatch_id,
        attempt=attempt,
        status=status,
        summary=summary,
        now=now,
    )
    if isinstance(step, attempt_rules.MovedOn):
        return step.line
    session_id = text_set(ticket_payload(ticket)["session_id"], "session_id")
    if isinstance(step, attempt_rules.Complete):
        tickets.complete(ws, ticket, session_id=session_id, attempt=attempt, reason=step.reason)
        return f"ticket {ticket.record_id} done"
    if isinstance(step, attempt_rules.Wait):  # a configuration fault, or no provider free
        tickets.wait_for_person(ws, ticket, step.reason)
        return f"ticket {ticket.record_id} waits, open: {step.reason}"
    if isinstance(step, attempt_rules.Retry):
        tickets.retry(
            ws, ticket, session_id=session_id, failure=step.failure, retry_after=step.retry_after
        )
        why = step.failure["reason"]
        return f"ticket {ticket.record_id} retried after {step.retry_after} ({why})"
    tickets.give_up(
        ws, ticket, session_id=session_id, attempt=attempt, reason=step.reason, failure=step.failure
    )
    return f"ticket {ticket.record_id} blocked: {step.reason}"
