"""An attempt that is over ends its agent (issue 24 item 2, ADR 0028): what the worker's supervisor
asks and records.

The supervisor asks the one rule (`fence.verdict`) after every request its broker served and at
least every `CHECK_S` (`Watch`), so it needs no conductor tick to notice:
- **over** (its dispatch resolved, cancelled or rejected, or its worker ended): it leaves a kill
  marker naming why (should it die now, `observe` records the same end), ends the sandbox — SIGTERM,
  SIGKILL after its grace — and then records the end as `oms worker stop` records one
  (`record_end`): a recorded result ends the worker as it says, the session stops, the worktree's
  uncommitted work is salvaged, the worker ends `stopped` (by `oms-supervisor`, the rule's line as
  its detail) and its proxy token goes (an on-demand proxy no other worker needs stops with it,
  ADR 0026);
- **fenced** (its lease or live authorisation lapsed): its worker is parked for a person, as the
  doors park it (pane, worktree and agent kept; the doors deny every tool and the proxy forwards
  nothing).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from oms.canonical import JsonObject, next_after, stable_id
from oms.domain import fence as fence_rules
from oms.domain import sessions, workers
from oms.domain.machine import Next
from oms.errors import OmsError, one_line
from oms.limits import LIMITS
from oms.schemas.payloads import SessionState
from oms.services.chain import fence, results, worker_moves
from oms.services.checkout import salvage
from oms.services.delivery import session_events
from oms.services.workspace import Workspace
from oms.store import Change, Record, panefiles
from oms.store.payloads import as_json, dispatch_payload, worker_payload

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload

CHECK_S = LIMITS.attempt_check_s  # asked at least this often (and after every request served)
ACTOR = "oms-supervisor"


class Watch:
    """The rule as one worker's supervisor asks it: after its broker served a request, and once
    `CHECK_S` passed since it last asked; a fenced attempt's worker is parked here."""

    def __init__(
        self,
        workspace: Callable[[], Workspace],
        dispatch_id: str,
        log: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.workspace = workspace
        self.dispatch_id = dispatch_id
        self.log = log
        self.clock = clock
        self._served = -1
        self._next = 0.0
        self._failed: str | None = None

    def wait(self) -> float:
        """Seconds until the rule is due again."""
        return max(0.0, self._next - self.clock())

    def over(self, served: int) -> str | None:
        """The rule's line once the attempt is over (asked only when due:
        `Limits.attempt_after_request_s` after `served` changed — the broker writes the request's
        answer first: a hook waits for nothing more —, or `CHECK_S` after it last asked); None while
        it may act or is fenced, or when the records cannot be read (logged once)."""
        now = self.clock()
        if served != self._served:
            self._served = served
            self._next = min(self._next, now + LIMITS.attempt_after_request_s)
        if now < self._next:
            return None
        self._next = now + CHECK_S
        try:
            ws = self.workspace()
            dispatch = ws.store.records("dispatch").read(self.dispatch_id)
            verdict = fence.verdict(ws.store.records, dispatch, ws.now())
            if verdict.standing is fence_rules.Standing.FENCED and verdict.reason is not None:
                fence.park(ws, self.dispatch_id, verdict.reason, ACTOR)
        except (OmsError, OSError) as exc:  # (never the supervisor's end: it asks again)
            message = exc.message if isinstance(exc, OmsError) else f"{type(exc).__name__}: {exc}"
            if message != self._failed:
                self.log(f"the attempt's rule could not be asked: {message}")
            self._failed = message
            return None
        self._failed = None
        return verdict.reason if verdict.standing is fence_rules.Standing.OVER else None


def mark(ws: Workspace, dispatch_id: str, why: str) -> None:
    """The kill marker of an end the supervisor makes (the first marker stays: it names who ended
    it)."""
    marker: JsonObject = {
        "format": "oms-kill-v1",
        "dispatch_id": dispatch_id,
        "by": ACTOR,
        "pid": os.getpid(),
        "reason": one_line(why, 500),
        "requested_at": ws.now(),
    }
    panefiles.leave_kill(ws.store.state.root, marker)


def record_end(ws: Workspace, dispatch_id: str, why: str) -> JsonObject | None:
    """Once the sandbox of an attempt that is over has ended: the end recorded as `oms worker stop`
    records it (result first, session, salvage, worker, token); the salvage's fields, if it kept
    something."""
    dispatch = ws.store.records("dispatch").read(dispatch_id)
    results.finish_recorded(ws, dispatch)  # a recorded result ends the worker as it says
    records = ws.store.records("session")
    session = records.read_if_exists(dispatch_payload(dispatch)["session_id"])
    if session is not None and session.state != SessionState.STOPPED:
        nxt = sessions.stop(
            session.state,
            session.payload,
            reason=why,
            now=next_after(session.observed_at, ws.now()),
        )
        op = stable_id("wkr-over-sess", dispatch_id)
        after = nxt.payload["last_observed_at"]
        written = records.write_next(
            session, Change(nxt.state, as_json(nxt.payload), op, ACTOR, after)
        ).record
        session_events.after_step(ws, session.state, written)
    kept = None
    if worker_payload(ws.store.records("worker").read(dispatch_id))["health"] != "stopped":
        found = salvage.keep(ws, dispatch, f"stopped: {why}")
        kept = None if found is None else found.fields()
    detail = f"{why} (by {ACTOR})"

    def decide(worker: Record, now: str) -> Next[WorkerPayload] | None:
        return workers.end(
            worker.state,
            worker_payload(worker),
            now=now,
            end_reason="stopped",
            detail=detail,
            salvage=kept,
        )

    op = stable_id("wkr-over-end", dispatch_id)
    worker_moves.move(ws, dispatch_id, decide, op=op, actor=ACTOR)
    # its token; an on-demand proxy no other worker needs stops (imported here: the proxy's server
    # is no part of a supervisor's start)
    from oms.services.delivery import proxy_route

    proxy_route.release(ws, dispatch_id)
    return kept
