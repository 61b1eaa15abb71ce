"""`oms worker observe`: a worker, its session and its pane at a glance — after recording what the
records do not know yet (ADR 0009 "Panes"):

- `reconcile`: a pane that ended (exit, signal, `oms worker stop`) ends its session and its worker
  with that end reason — also a pane that is gone (its tmux server died): then from the supervisor's
  exit record, or, when the pane's whole process group is gone without one, as `parent-gone` (its
  supervisor did not live to record it). A pane that merely cannot be seen while its processes live
  (a tmux hiccup) ends nothing. What an observation means is `domain/delivery.end_of`'s. `observe`
  is a look, not a decision: an end it meets that `oms worker resume` could continue natively (no
  stop asked for it, no result, an agent with its own session) parks the worker, naming the end,
  instead of ending it; the conductor's tick, and `oms worker stop`, end it — except the end of a
  run oms's own park ended (`codex exec` cannot pause: `delivery_rules.halted_park`), which keeps
  that park for the conductor too.
- `check_liveness`: a worker whose attempt was fenced (healthy or stalled, whatever its activity),
  or a working one whose hooks or bridge stayed silent past the deadline, is parked (its pane is
  kept).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from oms.adapters.panes import Pane
from oms.canonical import JsonObject, stable_id
from oms.domain import delivery as delivery_rules
from oms.domain import sessions, workers
from oms.domain.machine import Next
from oms.errors import LockHeldError, suppress_faults
from oms.fsio.procinfo import group_alive
from oms.schemas.payloads import SessionState, WorkerState
from oms.services.chain import fence, liveness, results
from oms.services.chain.liveness import CONSUMER
from oms.services.checkout import salvage
from oms.services.containment import reaper
from oms.services.delivery import plans, proxy_route
from oms.services.workspace import SYSTEM_ACTOR
from oms.store import Record, panefiles
from oms.store.payloads import dispatch_payload, session_payload, worker_payload

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload
    from oms.services.delivery.context import DeliveryContext


SALVAGE_FIELDS = ("salvage_ref", "salvage_commit", "salvage_error")  # where its end kept its work


def observe(d: DeliveryContext, dispatch_id: str) -> JsonObject:
    """Worker, session and pane at a glance (recording an end reason if the pane has ended, or —
    for an agent `oms worker resume` can continue on its own session — a park that keeps that
    possible). Another host's worker is shown as its records say, nothing acted on: its pane is
    there, and the view names that host (`other_host`)."""
    host = d.host_of(dispatch_id)
    own = host in (None, d.ws.host())
    if own:
        reconcile(d, dispatch_id, keep_resumable=True)
        check_liveness(d, dispatch_id)
    dispatch = d.dispatch(dispatch_id)
    worker = d.worker(dispatch_id)
    session = d.session(dispatch_payload(dispatch)["session_id"])
    pane = d.panes.observe(dispatch_id) if own else None
    return {
        "dispatch_id": dispatch_id,
        "dispatch_state": dispatch.state,
        "worker_activity": worker.state,
        "worker_health": worker_payload(worker)["health"],
        "end_reason": worker_payload(worker).get("end_reason"),
        "end_detail": worker_payload(worker).get("end_detail"),
        "session_state": None if session is None else session.state,
        "pane_id": (pane.pane_id if pane else None)
        or (None if session is None else session_payload(session)["tmux_pane_id"]),
        "pane_live": pane is not None and not pane.dead,
        "health_reason": worker_payload(worker).get("health_reason"),
        "live_channels": None if session is None else liveness.channels(d.ws, session.record_id),
        "agent_stopped_at": None
        if session is None
        else session_payload(session).get("agent_stopped_at"),
        **{k: worker.payload[k] for k in SALVAGE_FIELDS if k in worker.payload},
        "agent": workers.agent(
            worker_payload(worker)["health"],
            worker.state,
            None if session is None else session.state,
            None if session is None else session.payload,
        ),
        **({} if own else {"other_host": host}),  # its pane is there: not looked at
    }


def reconcile(d: DeliveryContext, dispatch_id: str, *, keep_resumable: bool = False) -> None:
    """Record why a worker whose pane ended has ended (`domain/delivery.end_of`). An end is recorded
    only under the deliverer's lock of the worker's launch, decided again on the pane as it is then:
    a launch under way (a resume making a new pane while the registry still names the old one) is
    never taken for the end of the pane it replaces (ADR 0014, GAP_RECONCILE_AGAIN).
    `keep_resumable` (a person's `observe`; the conductor decides ends for its pool): an end no stop
    asked for, of an attempt without a result whose agent has a native session to continue, parks
    the worker instead (`_keep_resumable`)."""
    if _end(d, dispatch_id) is None:
        return  # the common case takes no lock
    event_id = dispatch_payload(d.dispatch(dispatch_id)).get("delivery_event_id")
    if not isinstance(event_id, str):
        return
    try:
        held = d.ws.store.outbox(CONSUMER).lock(event_id)
    except LockHeldError:
        return  # a launch is under way: its pane decides, next time
    with held:
        d = replace(d, panes=d.panes.fresh())  # the server now
        end = _end(d, dispatch_id)
        if end is None:
            return
        root = d.ws.store.state.root
        dispatch = d.dispatch(dispatch_id)
        reaper.end_sandbox(
            root, dispatch_id
        )  # the pane has ended: so does whatever is left of its sandbox
        keeps = keep_resumable or _halted(d, dispatch)
        if keeps and _keep_resumable(d, dispatch, end):
            return
        results.finish_recorded(
            d.ws, dispatch
        )  # a recorded result ends the worker as its result says
        session = d.session(dispatch_payload(dispatch)["session_id"])
        if session is not None and session.state != SessionState.STOPPED:
            nxt = sessions.stop(
                session.state, session.payload, reason=end.detail, now=d.after(session)
            )
            d.session_step(session, nxt, stable_id("wkr-end-sess", dispatch_id, end.pane_id))
        recorded = end
        kept = salvage.keep(d.ws, d.dispatch(dispatch_id), f"{end.reason}: {end.detail}")

        def decide(current: Record, now: str) -> Next[WorkerPayload] | None:
            return workers.end(
                current.state,
                worker_payload(current),
                now=now,
                end_reason=recorded.reason,
                detail=recorded.detail,
                salvage=None if kept is None else kept.fields(),
            )

        d.move_worker(dispatch_id, decide, op=stable_id("wkr-end", dispatch_id, end.pane_id))
        with suppress_faults():  # its token; an on-demand proxy no one needs stops
            proxy_route.release(d.ws, dispatch_id)


def _halted(d: DeliveryContext, dispatch: Record) -> bool:
    """Was this worker's run ended by oms's own park (`delivery_rules.halted_park`)?"""
    worker = worker_payload(d.worker(dispatch.record_id))
    parkable = plans.PARKABLE.get(dispatch_payload(dispatch)["provider_mode"], True)
    return delivery_rules.halted_park(parkable, worker["health"], worker.get("health_reason"))


def _keep_resumable(d: DeliveryContext, dispatch: Record, end: delivery_rules.End) -> bool:
    """Record the pane's end as a park (`delivery_rules.kept_resumable`), so `oms worker resume`
    relaunches the agent on its own session as it would have before the look (not when the attempt
    is fenced: no resume could); True if so. A worker parked already keeps its park and its reason
    (a fence's, a person's, `no_result`); the pane's token is released (a relaunch gets a fresh
    one). Nothing else changes: the session, the registry and the exit record stay for the
    resume."""
    session_id = dispatch_payload(dispatch)["session_id"]
    session = d.session(session_id)
    worker = d.worker(dispatch.record_id)
    fenced = fence.reason(d.ws, dispatch) is not None
    why = (
        None
        if session is None or fenced
        else delivery_rules.kept_resumable(
            end,
            dispatch_state=dispatch.state,
            provider_mode=dispatch_payload(dispatch)["provider_mode"],
            activity=worker.state,
            session_id=session_id,
            session_state=session.state,
            session=session.payload,
        )
    )
    if why is None:
        return False

    def decide(current: Record, now: str) -> Next[WorkerPayload] | None:
        if worker_payload(current)["health"] not in ("healthy", "stalled"):
            return None  # parked already (for its own reason), or ended meanwhile
        return workers.change(current.state, current.payload, now=now, health="parked", reason=why)

    op = stable_id("wkr-end-park", dispatch.record_id, end.pane_id)
    d.move_worker(dispatch.record_id, decide, op=op)
    with suppress_faults():  # its token; an on-demand proxy no one needs stops
        proxy_route.release(d.ws, dispatch.record_id)
    return True


def _end(d: DeliveryContext, dispatch_id: str) -> delivery_rules.End | None:
    pane = d.panes.observe(dispatch_id)
    health = worker_payload(d.worker(dispatch_id))["health"]
    if health == "stopped":
        return None  # ended already: asks no file
    return pane_end(d, dispatch_id, health, pane)


def pane_end(
    d: DeliveryContext,
    dispatch_id: str,
    health: str,
    pane: Pane | None,
) -> delivery_rules.End | None:
    """`domain/delivery.end_of` for the worker's pane as tmux shows it now (None: it has not
    ended; a live pane asks no file). The one place an observed pane becomes an end: the
    reconcile, a resume and a native relaunch all ask it."""
    if pane is not None and not pane.dead:
        return None
    root = d.ws.store.state.root
    return delivery_rules.end_of(
        health=health,
        pane=None
        if pane is None
        else delivery_rules.PaneSeen(
            pane.pane_id,
            pane.dead,
            pane.dead_status,
            pane.dead_signal,
            pane.pane_pid,
        ),
        registry=panefiles.read_registry(root, dispatch_id) if pane is None else None,
        ended=panefiles.read_exit(root, dispatch_id),
        kill=panefiles.read_kill(root, dispatch_id),
        group_alive=group_alive,
    )


def check_liveness(d: DeliveryContext, dispatch_id: str) -> None:
    """Park a worker whose attempt was fenced (healthy or stalled, whatever its activity: one whose
    result is recorded still runs its agent), or a working one whose hooks or bridge stayed silent
    past the deadline."""
    dispatch = d.dispatch(dispatch_id)
    worker = d.worker(dispatch_id)
    session = d.session(dispatch_payload(dispatch)["session_id"])
    health = worker_payload(worker)["health"]
    if session is None or health not in ("healthy", "stalled"):
        return
    fenced = fence.reason(d.ws, dispatch)
    if fenced is not None:
        fence.park(d.ws, dispatch_id, fenced, SYSTEM_ACTOR)
        return
    if health != "healthy" or worker.state not in (WorkerState.IDLE, WorkerState.WORKING):
        return
    silent = liveness.silent(d.ws, session, worker.observed_at)
    if silent is None:
        return

    def decide(current: Record, now: str) -> Next[WorkerPayload] | None:
        if worker_payload(current)["health"] != "healthy":
            return None
        return workers.change(
            current.state, current.payload, now=now, health="parked", reason=silent
        )

    d.move_worker(
        dispatch_id, decide, op=stable_id("wkr-silent", dispatch_id, silent, worker.version)
    )
