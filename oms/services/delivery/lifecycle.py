"""`oms worker park|resume|stop` (ADR 0009 "Panes"): the shell of `domain/lifecycle.py`, which
decides every step (on `domain/delivery.py`'s rules); this observes, asks it and performs what it
answers. The keys typed are `adapters/activation.py`'s.

- park: refused to a person for an agent that cannot pause (`codex exec`: its provider's
  `parkable`); else interrupt the turn that runs (if one does), session `parked` until a future
  time, worker health `parked`; a refusal types nothing. Its view says how (`parked`:
  `interrupted` a turn, `idle`: no turn ran, `already` parked until that time). oms's own park of
  an agent that cannot pause (a quota's rest, a pool's drain) parks it first, then ends its run —
  its pane, its sandbox, its proxy token (`halted`; `running` should a process outlive it) — so
  nothing runs while the records say parked; its resume relaunches it on its own session. Not
  the `no_result` park of its last Stop hook (`ending`): that run ends by itself.
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
from typing import TYPE_CHECKING, TypeVar

from oms.canonical import JsonObject
from oms.domain import delivery as delivery_rules
from oms.domain import lifecycle as machine
from oms.domain.delivery import ResumeKeys
from oms.errors import IllegalTransitionError, InvalidInputError, OmsError
from oms.services.chain import fence, live, liveness, results
from oms.services.chain.liveness import CONSUMER
from oms.services.checkout import salvage
from oms.services.containment import reaper
from oms.services.delivery import native_resume, plans, proxy_route, reconcile, spec
from oms.services.delivery.launch import activate, launch_worker
from oms.services.delivery.messages import typing_lock
from oms.store import Record, panefiles
from oms.store.payloads import dispatch_payload, worker_payload

if TYPE_CHECKING:
    from collections.abc import Callable

    from oms.adapters.providers.base import LaunchPlan
    from oms.services.delivery.context import DeliveryContext


def park(
    d: DeliveryContext,
    dispatch_id: str,
    reason: str,
    until: str,
    *,
    person: bool = False,
    ending: bool = False,
) -> JsonObject:
    """Interrupt the agent and park the worker until a future time. `person` (`oms worker park`):
    refused, before anything is done, for an agent that cannot pause (its provider's `parkable`);
    oms's own park of such an agent ends its run once parked (`halts`), unless the run is `ending`
    by itself (the `no_result` park in its last Stop hook)."""
    mode = dispatch_payload(d.dispatch(dispatch_id))["provider_mode"]
    parkable = plans.PARKABLE.get(mode, True)
    if person:
        delivery_rules.check_parkable(mode, parkable)
    halts = not parkable and not ending
    return _Request(d, dispatch_id).run(
        *machine.start_park(dispatch_id, reason, until, halts=halts)
    )


def resume(d: DeliveryContext, dispatch_id: str, *, early: bool = False) -> JsonObject:
    """Resume a parked worker when it is due and its pane is live (or launch it if it never
    started). Under the dispatch's typing lock, as a message is typed, and asked before each key:
    two resumes at once each read the session parked and typed a nudge; the second is refused in
    one line now, and one after the first reads its session running (ADR 0045 `resumeonce`).
    `early`: due now, its park's cause over (`machine.start_resume`)."""
    with typing_lock(d, dispatch_id, "nothing resumed") as held:
        started = machine.start_resume(dispatch_id, early=early)
        return _Request(d, dispatch_id, held.confirm).run(*started)


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
    started = machine.start_stop(dispatch_id, reason, end_reason=end_reason, by=by)
    return _Request(d, dispatch_id).run(*started)


_T = TypeVar("_T")


class _Request:
    """One lifecycle request's IO: each step the machine asks for, each effect it decides."""

    def __init__(
        self, d: DeliveryContext, dispatch_id: str, pressing: Callable[[], None] | None = None
    ) -> None:
        self.d, self.dispatch_id = d, dispatch_id
        self.pressing = pressing  # before each key a resume types: its typing lock still held
        self.dispatch = d.dispatch(dispatch_id)
        self.session: Record | None = None
        self.plan: LaunchPlan | None = None
        self.state: machine.State | None = None

    def run(self, state: machine.State, effects: list[machine.Effect]) -> JsonObject:
        """Run the machine from `state` until its terminal effect."""
        while True:
            self.state = state
            event: machine.Event | None = None
            for effect in effects:
                if isinstance(effect, machine.Refuse):
                    raise native_resume.refusal(effect)
                if isinstance(effect, machine.Answer):
                    return self.answer(effect)
                seen = self.perform(effect)
                event = event if seen is None else seen
            if event is None:  # a batch without a step to run: a bug of the machine
                raise IllegalTransitionError("lifecycle", state.step.value, "nothing to run")
            state, effects = machine.decide(state, event)

    def answer(self, effect: machine.Answer) -> JsonObject:
        d, dispatch_id = self.d, self.dispatch_id
        if effect.promote:
            liveness.promote(d.ws, dispatch_id, dispatch_payload(self.dispatch)["session_id"])
        return {**reconcile.observe(d, dispatch_id), **dict(effect.fields)}

    def perform(self, effect: machine.Effect) -> machine.Event | None:
        d, dispatch_id = self.d, self.dispatch_id
        if isinstance(effect, machine.Run):
            return self.step(effect.step)
        if isinstance(effect, machine.MoveSession):
            session = _got(self.session, effect)
            self.session = d.session_step(session, effect.nxt, effect.op, effect.again)
            return machine.SessionMoved(self.session.version)
        if isinstance(effect, machine.MoveWorker):
            native_resume.move_worker(d, dispatch_id, effect)
        elif isinstance(effect, machine.TypeKeys):
            plan = _got(self.plan, effect)
            if effect.keys is ResumeKeys.ACTIVATE:
                activate(d, plan, dispatch_id, self.pressing)
            else:
                d.keys.nudge(plan, dispatch_id, self.pressing)
        elif isinstance(effect, machine.FinishRecorded):
            results.finish_recorded(d.ws, d.dispatch(dispatch_id))
        elif isinstance(effect, machine.Cleanup):
            self.cleanup()
        return None

    def step(self, step: machine.Step) -> machine.Event:
        d, dispatch_id, dispatch = self.d, self.dispatch_id, self.dispatch
        state = _got(self.state, step)
        if step is machine.Step.FENCE or step is machine.Step.REFENCE:
            if step is machine.Step.REFENCE:
                dispatch = d.dispatch(dispatch_id)
            return machine.FenceSeen(fence.reason(d.ws, dispatch), dispatch.state)
        if step is machine.Step.SESSION:
            self.session, seen = native_resume.seen_session(d, dispatch)
            return seen
        if step is machine.Step.WORKER:
            worker = d.worker(dispatch_id)
            return machine.WorkerSeen(worker_payload(worker)["health"], worker.state, d.ws.now())
        if step is machine.Step.PANE:
            return native_resume.seen_pane(d, dispatch_id, state.health)
        if step is machine.Step.INTERRUPT or step is machine.Step.PLAN:
            plan = d.native(dispatch)
            if step is machine.Step.PLAN:
                return machine.Done(step)
            return machine.Interrupted(d.keys.interrupt(plan, dispatch_id))
        if step is machine.Step.LAUNCH:
            return _launch_unstarted(d, dispatch)
        if step is machine.Step.RELAUNCH:
            return machine.Relaunched(native_resume.relaunch(d, dispatch_id, early=state.early))
        if step is machine.Step.CONTACT:
            return self.contact()
        if step is machine.Step.HALT:
            return machine.Halted(self.halt())
        if step is machine.Step.STOP_PANE:
            return self.stop_pane()
        if step is machine.Step.GROUP:
            return machine.GroupSeen(d.panes.group_ends(state.pgid))
        if step is machine.Step.SALVAGE:
            kept = salvage.keep(d.ws, d.dispatch(dispatch_id), machine.salvage_why(state))
            return machine.Salvaged(None if kept is None else kept.fields())
        raise IllegalTransitionError("lifecycle", step.value, "no such step")

    def contact(self) -> machine.Event:
        """The receipt and the plan read; resuming is contact: journaled first, refused if not in
        force."""
        d, dispatch = self.d, self.dispatch
        receipt = d.ws.store.outbox(CONSUMER).read_receipt(
            str(dispatch_payload(dispatch)["delivery_event_id"])
        )
        self.plan = plan = d.native(dispatch)
        ticket = d.ws.store.records("ticket").read(dispatch_payload(dispatch)["ticket_id"])
        live.disclose_worker(
            d.ws, ticket, dispatch, operation="worker-resume", surface=plans.surface(plan)
        )
        pending = receipt is not None and receipt.result.get("activation_pending") is True
        return machine.Contact(pending, plan.prompt is not None)

    def halt(self) -> bool:
        """End a parked run that cannot pause: its pane and every process of it, its sandbox and
        its proxy token. No kill marker: this is no stop (its end keeps the park, and its resume
        relaunches it on its own session). True if no process of the pane is left."""
        d, dispatch_id = self.d, self.dispatch_id
        root = d.ws.store.state.root
        ended = d.panes.stop(dispatch_id, quit_keys=())
        reaper.end_sandbox(root, dispatch_id)
        if ended:
            reaper.end_strays(dispatch_id, dispatch_payload(self.dispatch)["session_id"])
        proxy_route.release(d.ws, dispatch_id)  # a relaunch gets a fresh one
        return ended

    def stop_pane(self) -> machine.Event:
        """The kill marker, the agent's own quit keys, the pane and its sandbox ended."""
        d, dispatch_id, dispatch = self.d, self.dispatch_id, self.dispatch
        state = _got(self.state, "stop-pane")
        root = d.ws.store.state.root
        marker: JsonObject = {
            "format": "oms-kill-v1",
            "dispatch_id": dispatch_id,
            "by": state.by,
            "pid": os.getpid(),
            "reason": state.why,
            "requested_at": d.ws.now(),
        }
        panefiles.leave_kill(root, marker)
        try:
            quit_keys = d.native(dispatch).quit_keys
        except OmsError:
            quit_keys = ()
        ended = d.panes.stop(dispatch_id, quit_keys=quit_keys)
        reaper.end_sandbox(root, dispatch_id)  # should its init have outlived its supervisor
        if ended:  # no pane is left: what still carries its sandbox's environment is a stray
            reaper.end_strays(dispatch_id, dispatch_payload(dispatch)["session_id"])
        else:
            return machine.PaneStopped(False)
        if d.panes.observe(dispatch_id) is not None:
            return machine.PaneStopped(True, shown=True)
        try:
            registry = panefiles.read_registry(root, dispatch_id)
        except OmsError:
            registry = None  # a damaged registry names no group to trust
        return machine.PaneStopped(
            True, pgid=None if registry is None else registry.get("pane_pid")
        )

    def cleanup(self) -> None:
        """The stopped pane's files, its spec (it holds the agent's credential) and proxy token."""
        d, dispatch_id = self.d, self.dispatch_id
        root = d.ws.store.state.root
        panefiles.drop_registry(root, dispatch_id)
        panefiles.drop_kill(root, dispatch_id)
        panefiles.clear_exit(root, dispatch_id)
        panefiles.drop_begun(root, dispatch_id)
        spec.discard(root, dispatch_id)  # a spec no supervisor took
        proxy_route.release(d.ws, dispatch_id)  # its proxy token; an idle on-demand proxy stops
        d.panes.kill_server_if_idle()


def _got(value: _T | None, at: object) -> _T:
    """What an earlier step left, which the machine ran first (missing: a bug of the machine)."""
    if value is None:
        raise IllegalTransitionError("lifecycle", "an earlier step not run", str(at))
    return value


def _launch_unstarted(d: DeliveryContext, dispatch: Record) -> machine.LaunchSeen:
    """`resume` of a worker that never got a session: launched under the deliverer's own lock."""
    event_id = dispatch_payload(dispatch).get("delivery_event_id")
    if not isinstance(event_id, str):
        raise InvalidInputError("dispatch has no delivery event")
    dispatch_id = dispatch.record_id
    with d.ws.store.outbox(CONSUMER).lock(event_id) as held:  # every launch's (deliver's own)
        dispatch = d.dispatch(dispatch_id)
        if d.session(dispatch_payload(dispatch)["session_id"]) is not None:
            return machine.LaunchSeen(meanwhile=True)  # a deliverer, a resume
        # a person's: a new pane
        launched = launch_worker(d, dispatch, event_id, again=True, guard=held.confirm)
    if launched.outcome.get("status") != "parked":
        return machine.LaunchSeen(meanwhile=False)
    reason = launched.outcome.get("reason")
    cause = launched.cause
    return machine.LaunchSeen(
        meanwhile=False,
        parked=True,
        reason=None if reason is None else str(reason),
        remedy=None if cause is None else cause.remedy,
    )
