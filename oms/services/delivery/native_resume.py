"""`oms worker resume` of a worker whose pane ended: its agent relaunched in a new pane on its own
native session (`codex … resume <id>`, `claude … --resume <id>`; ADR 0009 "Resume by the native
session").

What to do at each step is `domain/lifecycle.py`'s (its `relaunch` rows); this runs the steps and
performs what it answers. Under the deliverer's outbox lock (one lock for every launch), on records
read again: the attempt
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

from typing import TYPE_CHECKING, TypeVar

from oms.adapters.activation import ActivationError
from oms.canonical import stable_id
from oms.domain import lifecycle as machine
from oms.domain import sessions
from oms.domain.machine import Next
from oms.errors import (
    AttemptFencedError,
    AuthorityChangedError,
    IllegalTransitionError,
    InvalidInputError,
    OmsError,
    PaneNotEndedError,
    RecordNotFoundError,
)
from oms.services.chain import fence, live, liveness
from oms.services.chain.authority import check_dispatch
from oms.services.chain.liveness import CONSUMER
from oms.services.containment import reaper
from oms.services.delivery import launch, plans, reconcile, registration, start_guard
from oms.services.delivery import spec as launch_spec
from oms.services.workspace import SYSTEM_ACTOR
from oms.store import Record
from oms.store.payloads import dispatch_payload, worker_payload

if TYPE_CHECKING:
    from collections.abc import Callable

    from oms.adapters.panes import Pane
    from oms.adapters.providers.base import LaunchPlan
    from oms.canonical import JsonObject
    from oms.schemas.payloads import WorkerPayload
    from oms.services.delivery.context import DeliveryContext

_T = TypeVar("_T")

# the error each of the lifecycle machine's refusals is (here and in `lifecycle.py`)
ERRORS: dict[machine.Refusal, type[OmsError]] = {
    machine.Refusal.INVALID: InvalidInputError,
    machine.Refusal.FENCED: AttemptFencedError,
    machine.Refusal.NO_SESSION: RecordNotFoundError,
    machine.Refusal.CHANGED: AuthorityChangedError,
    machine.Refusal.NOT_LAUNCHED: ActivationError,
    machine.Refusal.NOT_ENDED: PaneNotEndedError,
}


def refusal(effect: machine.Refuse) -> OmsError:
    """The error a refusal is (its class by `ERRORS`)."""
    return ERRORS[effect.refusal](effect.message, hint=effect.hint)


def move_worker(d: DeliveryContext, dispatch_id: str, effect: machine.MoveWorker) -> None:
    """Perform a `MoveWorker`: the machine's `worker_next` on the latest version."""

    def decide(current: Record, now: str) -> Next[WorkerPayload] | None:
        return machine.worker_next(effect, current.state, worker_payload(current), now=now)

    d.move_worker(dispatch_id, decide, op=effect.op)


def seen_pane(d: DeliveryContext, dispatch_id: str, health: str) -> machine.PaneSeen:
    """What tmux shows of the worker's pane: live, or its end (`reconcile.pane_end`); the time."""
    pane = d.panes.observe(dispatch_id)
    live_pane = pane is not None and not pane.dead
    now = d.ws.now()
    end = None if live_pane else reconcile.pane_end(d, dispatch_id, health, pane)
    return machine.PaneSeen(live_pane, end, now)


def seen_session(d: DeliveryContext, dispatch: Record) -> tuple[Record | None, machine.SessionSeen]:
    """The dispatch's session record, and what the machine is told of it."""
    payload = dispatch_payload(dispatch)
    session = d.session(payload["session_id"])
    if session is None:
        return None, machine.SessionSeen(payload["session_id"], None)
    return session, machine.SessionSeen(
        session.record_id,
        session.state,
        session.version,
        session.observed_at,
        session.payload,
        payload["provider_mode"],
        d.ws.now(),
    )


def _got(value: _T | None, at: object) -> _T:
    """What an earlier step left, which the machine ran first (missing: a bug of the machine)."""
    if value is None:
        raise IllegalTransitionError("relaunch", "an earlier step not run", str(at))
    return value


def relaunch(d: DeliveryContext, dispatch_id: str, *, early: bool = False) -> bool:
    """Relaunch the worker's agent on its native session; False when its pane was live again already
    (another resume relaunched it, or another launcher made the pane: it types into it). `early`:
    as its resume's (`machine.start_resume`)."""
    event_id = dispatch_payload(d.dispatch(dispatch_id)).get("delivery_event_id")
    if not isinstance(event_id, str):
        raise InvalidInputError("dispatch has no delivery event")
    with d.ws.store.outbox(CONSUMER).lock(event_id) as held:  # every launch's (deliver's own)
        run = _Relaunch(d, d.dispatch(dispatch_id), held.confirm, early)
        answer = run.run()
    if answer.promote:
        liveness.promote(d.ws, dispatch_id, dispatch_payload(run.dispatch)["session_id"])
    return answer.relaunched


class _Relaunch:
    """One relaunch's IO: each step the machine asks for, each effect it decides."""

    def __init__(
        self,
        d: DeliveryContext,
        dispatch: Record,
        guard: Callable[[], None] | None = None,
        early: bool = False,
    ) -> None:
        self.d, self.dispatch, self.dispatch_id = d, dispatch, dispatch.record_id
        self.early = early
        self.guard = guard  # the launch lock still held, before each key of the instruction
        self.session: Record | None = None
        self.plan: LaunchPlan | None = None
        self.spec: JsonObject = {}
        self.pane: Pane | None = None
        self.error: OmsError | None = None

    def run(self) -> machine.Answer:
        """Run the machine until its terminal effect."""
        state, effects = machine.start_relaunch(self.dispatch_id, early=self.early)
        while True:
            event: machine.Event | None = None
            for effect in effects:
                if isinstance(effect, machine.Refuse):
                    raise refusal(effect)
                if isinstance(effect, machine.Fail):
                    raise _got(self.error, effect)
                if isinstance(effect, machine.Answer):
                    return effect
                if isinstance(effect, machine.Run):
                    event = self.step(state, effect.step)
                else:
                    self.perform(effect)
            if event is None:  # a batch without a step to run: a bug of the machine
                raise IllegalTransitionError("lifecycle", state.step.value, "nothing to run")
            state, effects = machine.decide(state, event)

    def perform(self, effect: machine.Effect) -> None:
        d, dispatch_id = self.d, self.dispatch_id
        root = d.ws.store.state.root
        if isinstance(effect, machine.MoveWorker):
            move_worker(d, dispatch_id, effect)
        elif isinstance(effect, machine.EndPane):  # the pane this relaunch created
            d.panes.stop(dispatch_id)
            reaper.end_sandbox(root, dispatch_id)
            launch_spec.discard(root, dispatch_id)
        elif isinstance(effect, machine.FencePark):
            fence.park(d.ws, dispatch_id, effect.reason, SYSTEM_ACTOR)

    def step(self, state: machine.State, step: machine.Step) -> machine.Event:
        d, dispatch, dispatch_id = self.d, self.dispatch, self.dispatch_id
        if step is machine.Step.FENCE or step is machine.Step.REFENCE:
            return machine.FenceSeen(fence.reason(d.ws, dispatch), dispatch.state)
        if step is machine.Step.SESSION:
            self.session, seen = seen_session(d, dispatch)
            return seen
        if step is machine.Step.WORKER:
            worker = d.worker(dispatch_id)
            return machine.WorkerSeen(worker_payload(worker)["health"], worker.state)
        if step is machine.Step.PANE:
            return seen_pane(d, dispatch_id, state.health)
        if step is machine.Step.PREPARE:
            authority = check_dispatch(d.ws, dispatch)
            ref = machine.resume_ref(state)
            self.plan, self.spec = launch.prepare(d, dispatch, authority, resume=ref)
            # relaunching is contact: journaled first
            surface = plans.surface(self.plan)
            live.disclose_worker(
                d.ws, authority.ticket, dispatch, operation="worker-resume", surface=surface
            )
            return machine.Done(step)
        if step is machine.Step.START_PANE:
            plan = _got(self.plan, step)
            reaper.end_sandbox(d.ws.store.state.root, dispatch_id)  # what is left of the old one
            spec = {**self.spec, "relaunch": True}  # its supervisor waits for the session
            status, self.pane = launch.start_pane(d, dispatch, plan, spec, relaunch=True)
            return machine.PaneStarted(status)
        if step is machine.Step.REGISTER:
            try:
                return self.register()
            except OmsError as exc:
                self.error = exc
                return machine.Failed(step, exc.message)
        if step is machine.Step.ACTIVATE:
            plan = _got(self.plan, step)
            try:
                launch.activate(d, plan, dispatch_id, self.guard)
            except OmsError as exc:
                self.error = exc
                shown = d.panes.observe(dispatch_id)
                return machine.Failed(step, exc.message, shown is not None and not shown.dead)
            return machine.Done(step)
        raise IllegalTransitionError("relaunch", step.value, "no such step")

    def register(self) -> machine.SessionMoved:
        """The new pane registered, and the *same* session record moved to it."""
        d = self.d
        session, new = _got(self.session, "register"), _got(self.pane, "register")
        registration.register_pane(d, self.dispatch, new)
        nxt = sessions.relaunch(
            session.state,
            session.payload,
            pane_id=new.pane_id,
            now=d.after(session),
            pane_process=start_guard.pane_process(new.pane_pid).to_json(),
        )
        op = stable_id("wkr-relaunch", self.dispatch_id, session.version)
        moved = d.session_step(session, nxt, op)
        return machine.SessionMoved(moved.version)
