"""What a person may do from `oms web`'s board (ADR 0041, amended): verify and merge a result,
request changes of it, cancel a dispatch, send a worker a message, stop a worker, resume a parked
one, reopen a blocked (or quarantined) ticket. Each calls the very service its command calls (`oms
result verify|merge|request-changes`, `oms dispatch cancel`, `oms worker send|stop|resume`, `oms
ticket reopen`), after the same handle resolution, so a check the command makes the board makes
too; the answer is what the command's `--json` says."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from oms.canonical import JsonObject
from oms.errors import InvalidInputError
from oms.services.chain import dispatches, handles, tickets
from oms.services.delivery.service import Delivery
from oms.services.finishing import finish, review, verify
from oms.services.workspace import Workspace

CANCEL_REASON = "cancelled from oms web"
STOP_REASON = "stopped from oms web"
REOPEN_REASON = "a person reopened it"  # `oms ticket reopen`'s own default


@dataclass(frozen=True)
class Ask:
    """One action's target and words: the dispatch's handle, the text (a comment, a reason, a
    message), and the person it is recorded as."""

    handle: str
    text: str
    person: str


def _verify(ws: Workspace, ask: Ask) -> JsonObject:
    dispatch = handles.dispatch(ws, ask.handle, handles.Want.RESULT)
    done = verify.verify(ws, dispatch)
    return {
        "dispatch_id": dispatch,
        "passed": done.passed,
        "commit": done.commit,
        "target": done.target.branch,
        "said": f"{'verified' if done.passed else 'failed'}: {done.commit[:12]} into "
        f"{done.target.branch}",
    }


def _merge(ws: Workspace, ask: Ask) -> JsonObject:
    dispatch = handles.dispatch(ws, ask.handle, handles.Want.RESULT)
    done = finish.merge(ws, dispatch)
    said = (
        f"already merged into {done.target}"
        if done.already
        else f"merged {dispatch} into {done.target}: {done.merged[:12]}"
    )
    return {
        "dispatch_id": dispatch,
        "target": done.target,
        "merged": done.merged,
        "already_merged": done.already,
        "said": said,
    }


def _request_changes(ws: Workspace, ask: Ask) -> JsonObject:
    from oms.domain import review as rules

    found = (rules.comment(ask.text),)  # refused (InvalidInputError) as `--comment` refuses it
    dispatch = handles.dispatch(ws, ask.handle, handles.Want.RESULT)
    done = review.request_changes(ws, dispatch, found, person=ask.person)
    return {
        "dispatch_id": dispatch,
        "ticket_id": done.ticket.record_id,
        "attempt": done.attempt,
        "said": f"{done.ticket.record_id} is open for attempt {done.attempt}",
    }


def _cancel(ws: Workspace, ask: Ask) -> JsonObject:
    dispatch = handles.dispatch(ws, ask.handle)
    rec = dispatches.cancel(ws, dispatch, ask.text or CANCEL_REASON)
    return {"dispatch_id": dispatch, "state": rec.state, "said": f"{dispatch} is {rec.state}"}


def _send(ws: Workspace, ask: Ask) -> JsonObject:
    dispatch = handles.dispatch(ws, ask.handle)
    view = Delivery.open(ws).send(dispatch, ask.text, person=ask.person)
    return {**view, "said": f"sent to {dispatch}: {view.get('typed')}"}


def _stop(ws: Workspace, ask: Ask) -> JsonObject:
    dispatch = handles.dispatch(ws, ask.handle)
    view = Delivery.open(ws).stop(dispatch, ask.text or STOP_REASON, by="oms-web")
    return {**view, "said": f"{dispatch} is {view.get('worker_health')}"}


def _resume(ws: Workspace, ask: Ask) -> JsonObject:
    dispatch = handles.dispatch(ws, ask.handle)
    view = Delivery.open(ws).resume(dispatch)
    return {**view, "said": f"{dispatch} is {view.get('worker_health')}"}


def _reopen(ws: Workspace, ask: Ask) -> JsonObject:
    ticket = handles.ticket(ws, ask.handle)
    rec = tickets.reopen(ws, ticket, person=ask.person, reason=ask.text or REOPEN_REASON)
    return {
        "ticket_id": rec.record_id,
        "state": rec.state,
        "attempt": rec.payload["attempt"],
        "said": f"{rec.record_id} is {rec.state} for attempt {rec.payload['attempt']}",
    }


ACTIONS: dict[str, Callable[[Workspace, Ask], JsonObject]] = {
    "verify": _verify,
    "merge": _merge,
    "request-changes": _request_changes,
    "cancel": _cancel,
    "send": _send,
    "stop": _stop,
    "resume": _resume,
    "reopen": _reopen,
}


def act(ws: Workspace, action: str, handle: str, text: str, person: str) -> JsonObject:
    """Do `action` on the dispatch (for `reopen`: the ticket) `handle` names, as `person`; `text` is
    the comment, the reason or the message."""
    run = ACTIONS.get(action)
    if run is None:
        raise InvalidInputError(
            f"no action {action[:40]!r} (one of: {', '.join(ACTIONS)})",
            hint="the board sends one of its own buttons' actions",
        )
    return run(ws, Ask(handle, text, person))
