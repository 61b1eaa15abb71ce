"""`oms worker resume` of a worker whose pane ended: its agent relaunched in a new pane on its own
native session (`codex … resume <id>`, `claude … --resume <id>`; ADR 0009 "Resume by the native
session").

Under the deliverer's outbox lock (one lock for every launch), on records read again: the attempt
must not be fenced (`fence.require_live`), the rule must still say native
(`domain/delivery.check_resume`, `native_ref`), and every check a launch makes must pass again
(`authority.check_dispatch`, then `launch.prepare` with the native id: alone in the worktree, the
CLI's version, bubblewrap, the checkout — the attempt's own changes kept — plan, home, launch spec).
A GitHub ticket's relaunch is contact: journaled first. A refusal up to here writes no record. Then
what is left of the old sandbox is ended, the new pane started (its exit record cleared first: only
its own end is trusted) and registered, and the *same* session record moves to it
(`sessions.relaunch`: the dispatch binds the session id, the hooks and the bridge answer to it, and
the agent continues the same conversation). The agent is told to continue; once its prompt hook
shows it took that, the worker is healthy again.

Once the new pane exists nothing is left half-done: a failure registering pane or session ends the
pane this relaunch created; a failed activation parks the worker with its pane kept (`oms worker
resume` then types the continuation) or, when the agent already exited, leaves that end to
`observe`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.canonical import stable_id
from oms.domain import delivery as delivery_rules
from oms.domain import sessions, workers
from oms.domain.machine import Next
from oms.errors import AuthorityChangedError, InvalidInputError, OmsError, one_line
from oms.schemas.payloads import DispatchState
from oms.services.chain import fence, live, liveness
from oms.services.chain.authority import check_dispatch
from oms.services.chain.liveness import CONSUMER
from oms.services.containment import reaper
from oms.services.delivery import launch, plans, reconcile, registration, start_guard
from oms.services.delivery import spec as launch_spec
from oms.services.workspace import SYSTEM_ACTOR
from oms.store import Record
from oms.store.payloads import dispatch_payload, session_payload, worker_payload

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload
    from oms.services.delivery.context import DeliveryContext


def relaunch(d: DeliveryContext, dispatch_id: str) -> bool:
    """Relaunch the worker's agent on its native session; False when its pane was live again already
    (another resume relaunched it, or another launcher made the pane: it types into it)."""
    event_id = dispatch_payload(d.dispatch(dispatch_id)).get("delivery_event_id")
    if not isinstance(event_id, str):
        raise InvalidInputError("dispatch has no delivery event")
    with d.ws.store.outbox(CONSUMER).lock(event_id):  # one lock for every launch (deliver's own)
        dispatch = d.dispatch(dispatch_id)
        fence.require_live(d.ws, dispatch)
        if dispatch.state not in (
            DispatchState.ACCEPTED,
            DispatchState.ACKNOWLEDGED,
        ):  # a recorded result: nothing left to continue
            raise AuthorityChangedError(
                f"dispatch {dispatch_id} is {dispatch.state}: its agent is not relaunched",
                hint=f"`oms worker stop {dispatch_id}` ends the worker with its recorded result",
            )
        session_id = dispatch_payload(dispatch)["session_id"]
        session, worker = d.session(session_id), d.worker(dispatch_id)
        pane = d.panes.observe(dispatch_id)
        if session is None or (pane is not None and not pane.dead):
            return False
        health = worker_payload(worker)["health"]
        delivery_rules.check_resume(
            session.state,
            health,
            pane_live=False,
            pane_end=reconcile.pane_end(d, dispatch_id, health, pane),
            parked_until=session_payload(session).get("parked_until"),
            now=d.ws.now(),
        )
        mode = dispatch_payload(dispatch)["provider_mode"]
        ref = delivery_rules.native_ref(mode, worker.state, session_id, session.payload)
        authority = check_dispatch(d.ws, dispatch)
        plan, spec = launch.prepare(d, dispatch, authority, resume=ref)
        # relaunching is contact: journaled first
        live.disclose_worker(
            d.ws, authority.ticket, dispatch, operation="worker-resume", surface=plans.surface(plan)
        )
        root = d.ws.store.state.root
        reaper.end_sandbox(root, dispatch_id)  # whatever is left of the ended pane's sandbox
        spec = {**spec, "relaunch": True}  # its supervisor waits for the session to name its pane
        status, new = launch.start_pane(d, dispatch, plan, spec, relaunch=True)
        if status == "reused":
            return False
        try:
            registration.register_pane(d, dispatch, new)
            nxt = sessions.relaunch(
                session.state,
                session.payload,
                pane_id=new.pane_id,
                now=d.after(session),
                pane_process=start_guard.pane_process(new.pane_pid).to_json(),
            )
            moved = d.session_step(
                session, nxt, stable_id("wkr-relaunch", dispatch_id, session.version)
            )
        except OmsError:
            d.panes.stop(dispatch_id)
            reaper.end_sandbox(root, dispatch_id)
            launch_spec.discard(root, dispatch_id)
            raise
        try:
            launch.activate(d, plan, dispatch_id)
        except OmsError as exc:
            shown = d.panes.observe(dispatch_id)
            if (
                shown is not None and not shown.dead
            ):  # kept: `oms worker resume` types the continuation
                _park(d, dispatch_id, exc.message, moved.version)
            raise
        fenced = fence.reason(
            d.ws, dispatch
        )  # lapsed while the agent was relaunched: it stays parked
        if fenced is not None:
            fence.park(d.ws, dispatch_id, fenced, SYSTEM_ACTOR)
            return True

        def unpark(current: Record, now: str) -> Next[WorkerPayload] | None:
            if worker_payload(current)["health"] != "parked":
                return None
            return workers.change(current.state, current.payload, now=now, health="healthy")

        d.move_worker(dispatch_id, unpark, op=stable_id("wkr-rel-res", dispatch_id, moved.version))
    liveness.promote(d.ws, dispatch_id, session_id)
    return True


def _park(d: DeliveryContext, dispatch_id: str, why: str, version: int) -> None:
    message = one_line(f"the relaunched agent did not take the continuation: {why}")

    def decide(current: Record, now: str) -> Next[WorkerPayload] | None:
        if worker_payload(current)["health"] != "healthy":
            return None
        return workers.change(
            current.state, current.payload, now=now, health="parked", reason=message
        )

    d.move_worker(dispatch_id, decide, op=stable_id("wkr-rel-park", dispatch_id, version))
