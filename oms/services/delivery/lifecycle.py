"""`oms worker park|resume|stop` (ADR 0009 "Panes"); what each may do in which state is
`domain/delivery.py`'s, the keys they type `adapters/activation.py`'s.

- park: interrupt the turn that runs (if one does), session `parked` until a future time, worker
  health `parked`; a refusal types nothing. Its view says how (`parked`: `interrupted` a turn,
  `idle`: no turn ran, `already` parked until that time).
- resume: a worker that never got a session is launched (under the deliverer's outbox lock; one
  launched meanwhile is observed, not launched again); a launched one resumes once due, with its
  pane live — activated if it never took its instruction, else told to continue — and is healthy
  again; one whose pane ended (not yet recorded by `observe`) is relaunched on its agent's native
  session (`native_resume.py`). Resuming a GitHub ticket's worker is contact: journaled first,
  refused without a live authorisation. Its view says how (`resumed`: `launched`, `keys`, `native`,
  or `none` when another launcher did it meanwhile).
- stop: a kill marker, the agent's own quit keys, the session and every process of the pane ended,
  session `stopped`, worker health `stopped`, activity `blocked`, end reason `stopped`. Should a
  process of the pane be left alive (SIGKILL does not end a frozen one), or a pane tmux no longer
  shows still have live processes, stop records nothing but its kill marker and fails
  (`PaneNotEndedError`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from oms.adapters.activation import ActivationError
from oms.canonical import JsonObject, parse_ts, stable_id
from oms.domain import delivery as delivery_rules
from oms.domain import sessions, workers
from oms.domain.machine import Next
from oms.errors import InvalidInputError, OmsError, PaneNotEndedError, RecordNotFoundError, one_line
from oms.schemas.payloads import SessionState
from oms.services.chain import fence, live, liveness, results
from oms.services.chain.liveness import CONSUMER
from oms.services.checkout import salvage
from oms.services.containment import reaper
from oms.services.delivery import native_resume, plans, proxy_route, reconcile, spec
from oms.services.delivery.launch import activate, launch_worker
from oms.store import Record, panefiles
from oms.store.payloads import dispatch_payload, session_payload, worker_payload

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload
    from oms.services.delivery.context import DeliveryContext


def park(d: DeliveryContext, dispatch_id: str, reason: str, until: str) -> JsonObject:
    """Interrupt the agent and park the worker until a future time."""
    dispatch = d.dispatch(dispatch_id)
    session = _require_session(d, dispatch)
    worker = d.worker(dispatch_id)
    parse_ts(until, "parked-until")
    parked_until = session_payload(session).get("parked_until")
    delivery_rules.check_park(session.state, worker_payload(worker)["health"], parked_until, until)
    nxt = None  # validated before any key reaches the pane (a past --until is refused untouched)
    if session.state != SessionState.PARKED:
        nxt = sessions.park(session.state, session.payload, until=until, now=d.after(session))
    plan = d.native(dispatch)
    interrupted = nxt is not None and d.keys.interrupt(plan, dispatch_id)
    why = one_line(reason, default="worker lifecycle request")
    if nxt is not None:
        d.session_step(session, nxt, stable_id("wkr-park", dispatch_id, why, until))

    def decide(current: Record, now: str) -> Next[WorkerPayload] | None:
        if worker_payload(current)["health"] == "parked":
            return None
        return workers.change(current.state, current.payload, now=now, health="parked", reason=why)

    d.move_worker(dispatch_id, decide, op=stable_id("wkr-hlth-park", dispatch_id, why, until))
    parked = "already" if nxt is None else "interrupted" if interrupted else "idle"
    return {**reconcile.observe(d, dispatch_id), "parked": parked}


def resume(d: DeliveryContext, dispatch_id: str) -> JsonObject:
    """Resume a parked worker when it is due and its pane is live (or launch it if it never
    started)."""
    dispatch = d.dispatch(dispatch_id)
    fence.require_live(d.ws, dispatch)  # a refusal writes nothing
    session = d.session(dispatch_payload(dispatch)["session_id"])
    if session is None:
        return _launch_unstarted(d, dispatch)
    worker = d.worker(dispatch_id)
    health = worker_payload(worker)["health"]
    pane = d.panes.observe(dispatch_id)
    until = session_payload(session).get("parked_until")
    now = d.ws.now()
    live_pane = pane is not None and not pane.dead
    end = None if live_pane else reconcile.pane_end(d, dispatch_id, health, pane)
    way = delivery_rules.check_resume(
        session.state, health, pane_live=live_pane, pane_end=end, parked_until=until, now=now
    )
    if way is delivery_rules.ResumeWay.NATIVE:
        delivery_rules.native_ref(
            dispatch_payload(dispatch)["provider_mode"],
            worker.state,
            session.record_id,
            session.payload,
        )
        relaunched = native_resume.relaunch(d, dispatch_id)
        return {**reconcile.observe(d, dispatch_id), "resumed": way.value if relaunched else "none"}
    receipt = d.ws.store.outbox(CONSUMER).read_receipt(
        str(dispatch_payload(dispatch)["delivery_event_id"])
    )
    plan = d.native(dispatch)
    ticket = d.ws.store.records("ticket").read(dispatch_payload(dispatch)["ticket_id"])
    # resuming is contact: journaled first, refused if not in force
    live.disclose_worker(
        d.ws, ticket, dispatch, operation="worker-resume", surface=plans.surface(plan)
    )
    pending = receipt is not None and receipt.result.get("activation_pending") is True
    keys = delivery_rules.resume_keys(
        session.state,
        session.version,
        health,
        activation_pending=pending,
        prompted=plan.prompt is not None,
    )
    if keys is delivery_rules.ResumeKeys.ACTIVATE:
        activate(d, plan, dispatch_id)
    elif keys is delivery_rules.ResumeKeys.NUDGE:
        d.keys.nudge(plan, dispatch_id)
    if session.state == SessionState.PARKED:
        nxt = sessions.resume(session.state, session.payload, now=d.after(session, now))
        session = d.session_step(session, nxt, stable_id("wkr-resume", dispatch_id, str(until)))
    if health == "parked":
        fence.require_live(d.ws, d.dispatch(dispatch_id))  # lapsed while resuming: stays parked

        def decide(current: Record, at: str) -> Next[WorkerPayload] | None:
            if worker_payload(current)["health"] != "parked":
                return None
            return workers.change(current.state, current.payload, now=at, health="healthy")

        d.move_worker(
            dispatch_id, decide, op=stable_id("wkr-hlth-res", dispatch_id, session.version)
        )
    liveness.promote(d.ws, dispatch_id, session.record_id)
    return {**reconcile.observe(d, dispatch_id), "resumed": way.value, "typed": keys.value}


def _launch_unstarted(d: DeliveryContext, dispatch: Record) -> JsonObject:
    """`resume` of a worker that never got a session: launched under the deliverer's own lock."""
    event_id = dispatch_payload(dispatch).get("delivery_event_id")
    if not isinstance(event_id, str):
        raise InvalidInputError("dispatch has no delivery event")
    dispatch_id = dispatch.record_id
    with d.ws.store.outbox(CONSUMER).lock(event_id):  # one lock for every launch (deliver's own)
        dispatch = d.dispatch(dispatch_id)
        if d.session(dispatch_payload(dispatch)["session_id"]) is not None:
            return {
                **reconcile.observe(d, dispatch_id),
                "resumed": "none",
            }  # launched meanwhile (a deliverer, a resume)
        launched = launch_worker(
            d, dispatch, event_id, again=True
        )  # a person's decision: a new pane
    if launched.outcome.get("status") == "parked":
        cause = launched.cause
        raise ActivationError(
            f"worker was not launched: {launched.outcome.get('reason')}",
            hint=cause.remedy
            if cause is not None and cause.remedy
            else "fix the reason, then resume again",
        )
    return {**reconcile.observe(d, dispatch_id), "resumed": "launched"}


def stop(
    d: DeliveryContext,
    dispatch_id: str,
    reason: str,
    *,
    end_reason: str = "stopped",
    by: str = "oms-cli",
) -> JsonObject:
    """Stop the pane (and every process in it); session stopped, health stopped, activity
    blocked."""
    dispatch = d.dispatch(dispatch_id)
    reason = one_line(reason, default="worker lifecycle request")
    root = d.ws.store.state.root
    marker: JsonObject = {
        "format": "oms-kill-v1",
        "dispatch_id": dispatch_id,
        "by": by,
        "pid": os.getpid(),
        "reason": reason,
        "requested_at": d.ws.now(),
    }
    panefiles.leave_kill(root, marker)
    try:
        quit_keys = d.native(dispatch).quit_keys
    except OmsError:
        quit_keys = ()
    ended = d.panes.stop(dispatch_id, quit_keys=quit_keys)
    reaper.end_sandbox(root, dispatch_id)  # should its init have outlived its supervisor (ADR 0012)
    if (
        ended
    ):  # no pane is left: what still carries its sandbox's environment is a stray (bubblewrap#633)
        reaper.end_strays(dispatch_id, dispatch_payload(dispatch)["session_id"])
    left = _left_running(d, dispatch_id) if ended else "the process group of its pane"
    if (
        left is not None
    ):  # nothing recorded: the kill marker stays, `observe` records the end once it comes
        raise PaneNotEndedError(
            f"worker {dispatch_id} was not stopped: {left} still has live processes"
        )
    session = d.session(dispatch_payload(dispatch)["session_id"])
    if session is not None and session.state != SessionState.STOPPED:
        nxt = sessions.stop(session.state, session.payload, reason=reason, now=d.after(session))
        d.session_step(session, nxt, stable_id("wkr-stop", dispatch_id, reason))
    results.finish_recorded(
        d.ws, d.dispatch(dispatch_id)
    )  # a recorded result ends the worker as it says
    detail = f"{reason} (by {by})"
    kept = _salvage(d, dispatch_id, f"{end_reason}: {reason}")

    def decide(worker: Record, now: str) -> Next[WorkerPayload] | None:
        return workers.end(
            worker.state,
            worker.payload,
            now=now,
            end_reason=end_reason,
            detail=detail,
            salvage=kept,
        )

    d.move_worker(dispatch_id, decide, op=stable_id("wkr-stop-end", dispatch_id, reason))
    panefiles.drop_registry(root, dispatch_id)
    panefiles.drop_kill(root, dispatch_id)
    panefiles.clear_exit(root, dispatch_id)
    panefiles.drop_begun(root, dispatch_id)
    spec.discard(root, dispatch_id)  # a spec no supervisor took (it holds the agent's credential)
    proxy_route.release(d.ws, dispatch_id)  # its proxy token; an idle on-demand proxy stops
    d.panes.kill_server_if_idle()
    return reconcile.observe(d, dispatch_id)


def _salvage(d: DeliveryContext, dispatch_id: str, why: str) -> JsonObject | None:
    """Keep the ended attempt's uncommitted work (`checkout/salvage.py`) unless its worker has ended
    already."""
    if worker_payload(d.worker(dispatch_id))["health"] == "stopped":
        return None
    kept = salvage.keep(d.ws, d.dispatch(dispatch_id), why)
    return None if kept is None else kept.fields()


def _left_running(d: DeliveryContext, dispatch_id: str) -> str | None:
    """What of a pane tmux no longer shows still runs: its registered process group (only looked
    at)."""
    if d.panes.observe(dispatch_id) is not None:
        return None
    try:
        registry = panefiles.read_registry(d.ws.store.state.root, dispatch_id)
    except OmsError:
        return None  # a damaged registry names no group to trust
    pgid = None if registry is None else registry.get("pane_pid")
    if isinstance(pgid, int) and pgid > 1 and not d.panes.group_ends(pgid):
        return f"process group {pgid} of its pane (which tmux no longer shows)"
    return None


def _require_session(d: DeliveryContext, dispatch: Record) -> Record:
    session = d.session(dispatch_payload(dispatch)["session_id"])
    if session is None:
        raise RecordNotFoundError(
            f"dispatch {dispatch.record_id} has no session yet (deliver it first)"
        )
    return session
