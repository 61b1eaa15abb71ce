"""What a person may do from `oms web`'s board (ADR 0041, amended): approve or reject a dispatch
that waits for a person, verify and merge a result, request changes of it, cancel a dispatch, send
a worker a message, stop a worker, resume a parked one, reopen a blocked (or quarantined) ticket.
Each calls the very service its command calls (`oms dispatch approve|reject|cancel`, `oms result
verify|merge|request-changes`, `oms worker send|stop|resume`, `oms ticket reopen`), after the same
handle resolution, so a check the command makes the board makes too; the answer is what the
command's `--json` says. A verify runs in a thread of its own
(`Verifies`): the board goes on answering and streaming while the checks run, and shows the
outcome when they end."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import StrEnum

from oms.canonical import Json, JsonObject
from oms.errors import ConflictError, InvalidInputError, OmsError, one_line
from oms.limits import LIMITS
from oms.services.chain import dispatches, handles, tickets
from oms.services.delivery.service import Delivery
from oms.services.finishing import finish, review, verify
from oms.services.workspace import Workspace
from oms.store.payloads import ticket_payload

APPROVE_RATIONALE = "approved from oms web"
REJECT_REASON = "declined on oms web"
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


class RunState(StrEnum):
    """How a verify the board started stands: running, then passed, failed, or not verified (an
    error once it ran)."""

    RUNNING = "running"
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"


@dataclass
class _Run:
    """One verify the board started: its number, its dispatch, how it stands (running, passed,
    failed, or not verified: an error once it ran) and what the page says of it."""

    run: int
    dispatch_id: str
    state: RunState
    said: str

    def to_json(self) -> JsonObject:
        return {
            "run": self.run,
            "dispatch_id": self.dispatch_id,
            "state": self.state.value,
            "said": self.said,
        }


class Verifies:
    """The verifies the board runs, each in a thread of its own with its own workspace (`opener`),
    so the board's pages and its stream are answered while the checks run (they may take minutes).
    `start` answers once the verify is under way — what refuses it (no such result, no checks, a
    verify of that dispatch already running: `verify.verify_lock`, which the command takes too)
    is its answer; what it found is in `shown` when it ends. At most `LIMITS.web_verifies` run at
    once, and as many ended ones are kept to show."""

    def __init__(self, opener: Callable[[], AbstractContextManager[Workspace]]) -> None:
        self._opener = opener
        self._guard = threading.Lock()
        self._runs: list[_Run] = []
        self._numbered = 0
        self.generation = 0  # moves whenever what `shown` answers does

    def shown(self) -> list[Json]:
        """The runs, oldest first: each running one and the last ended ones."""
        with self._guard:
            return [r.to_json() for r in self._runs]

    def start(self, handle: str) -> JsonObject:
        """Start verifying the result `handle` names; the run's number and dispatch, or the
        refusal (raised) when it cannot start."""
        with self._guard:
            if sum(r.state == RunState.RUNNING for r in self._runs) >= LIMITS.web_verifies:
                raise ConflictError(
                    f"{LIMITS.web_verifies} verifies run from this board already; nothing started",
                    hint="wait for one of them to end",
                )
        ready = threading.Event()
        begun: list[_Run] = []
        refused: list[BaseException] = []
        thread = threading.Thread(
            target=self._run, args=(handle, ready, begun, refused), daemon=True
        )
        thread.start()
        ready.wait()
        if refused:
            raise refused[0]
        if not begun:  # (its thread ended without a word: nothing to show)
            raise ConflictError("the verify ended before it started", hint="try it again")
        run = begun[0]
        return {"running": True, "run": run.run, "dispatch_id": run.dispatch_id, "said": run.said}

    def _run(
        self,
        handle: str,
        ready: threading.Event,
        begun: list[_Run],
        refused: list[BaseException],
    ) -> None:
        def started() -> None:
            with self._guard:
                self._numbered += 1
                run = _Run(self._numbered, dispatch, RunState.RUNNING, f"verifying {dispatch}…")
                self._runs.append(run)
                self._trim()
                self.generation += 1
            begun.append(run)
            ready.set()

        dispatch = ""
        try:
            try:
                with self._opener() as ws:
                    dispatch = handles.dispatch(ws, handle, handles.Want.RESULT)
                    done = verify.verify(ws, dispatch, started=started)
            except OmsError as exc:
                if not begun:
                    refused.append(exc)
                    return
                self._end(begun[0], RunState.ERROR, f"not verified: {exc.message}")
                return
            # a bug: one line on the board, not a thread's traceback
            except Exception as exc:  # noqa: BLE001
                if not begun:
                    refused.append(exc)
                    return
                self._end(begun[0], RunState.ERROR, f"not verified: {one_line(repr(exc), 200)}")
                return
            state = RunState.PASSED if done.passed else RunState.FAILED
            said = f"{'verified' if done.passed else 'failed'}: {done.commit[:12]} into "
            self._end(begun[0], state, said + done.target.branch)
        finally:
            ready.set()

    def _end(self, run: _Run, state: RunState, said: str) -> None:
        with self._guard:
            run.state, run.said = state, said
            self._trim()
            self.generation += 1

    def _trim(self) -> None:
        """Keep every running run and the last `LIMITS.web_verifies` ended ones."""
        ended = [r for r in self._runs if r.state != RunState.RUNNING]
        drop = {id(r) for r in ended[: max(0, len(ended) - LIMITS.web_verifies)]}
        self._runs = [r for r in self._runs if id(r) not in drop]


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


def _approve(ws: Workspace, ask: Ask) -> JsonObject:
    dispatch = handles.dispatch(ws, ask.handle)
    rec, _ = dispatches.approve(
        ws, dispatch, person=ask.person, rationale=ask.text or APPROVE_RATIONALE
    )
    return {
        "dispatch_id": dispatch,
        "state": rec.state,
        "said": f"{dispatch} approved by {ask.person}: the next tick accepts and delivers it",
    }


def _reject(ws: Workspace, ask: Ask) -> JsonObject:
    dispatch = handles.dispatch(ws, ask.handle)
    rec = dispatches.reject(ws, dispatch, ask.text or REJECT_REASON, person=ask.person)
    return {"dispatch_id": dispatch, "state": rec.state, "said": f"{dispatch} is {rec.state}"}


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
    attempt = ticket_payload(rec)["attempt"]
    return {
        "ticket_id": rec.record_id,
        "state": rec.state,
        "attempt": attempt,
        "said": f"{rec.record_id} is {rec.state} for attempt {attempt}",
    }


ACTIONS: dict[str, Callable[[Workspace, Ask], JsonObject]] = {  # verify: `Verifies.start`
    "approve": _approve,
    "reject": _reject,
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
            f"no action {action[:40]!r} (one of: verify, {', '.join(ACTIONS)})",
            hint="the board sends one of its own buttons' actions",
        )
    return run(ws, Ask(handle, text, person))
