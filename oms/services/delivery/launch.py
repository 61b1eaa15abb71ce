"""One launch of an accepted dispatch's worker (ADR 0008, ADR 0009 "Delivery"), for `deliver` and
for `resume` of a worker that never started — both under the deliverer's outbox lock.

Authority (`services/chain/authority.py`) → the worker is an idle, healthy or parked reservation →
alone in its worktree → agent CLI version, bubblewrap and cgroups (`d.sandbox`) → a first launch's
checkout made ready (an earlier attempt's work salvaged, its commit restored: `d.checkout.ready`) →
checkout verification →
plan, home and launch spec → live contact journaled → pane → pane registry → session → activation →
the worker healthy (`working` once hooks and bridge prove themselves: `chain/liveness.py`).

Any refusal before the pane parks the worker with a one-line reason (the receipt records it, so the
event is not retried blindly). What a failure leaves once the pane exists is `domain/delivery.py`'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from oms.adapters.activation import ActivationError, Witness
from oms.adapters.panes import Pane
from oms.canonical import Json, JsonObject, access, parse_ts, stable_id
from oms.domain import delivery as delivery_rules
from oms.domain import launch as machine
from oms.domain import sandbox_limits, sessions, workers
from oms.domain.config import NETWORK_DEFAULT
from oms.domain.machine import Next
from oms.domain.policy import role_tools
from oms.errors import (
    WAITS_FOR_PERSON,
    AuthorityChangedError,
    IllegalTransitionError,
    IntegrityError,
    OmsError,
    one_line,
)
from oms.fsio import Root
from oms.schemas.payloads import SessionState
from oms.services.chain import fence, live, liveness
from oms.services.chain.authority import Authority, check_dispatch
from oms.services.containment import reaper
from oms.services.delivery import plans, registration, session_events, start_guard
from oms.services.delivery import spec as launch_spec
from oms.services.delivery.homes import adopt_legacy, home_path, materialise
from oms.services.workspace import SYSTEM_ACTOR
from oms.services.workspace.backend import out_of_reach
from oms.store import Record, panefiles
from oms.store.payloads import dispatch_payload, session_payload, worker_payload

if TYPE_CHECKING:
    from oms.adapters.providers.base import LaunchPlan
    from oms.schemas.payloads import WorkerPayload
    from oms.services.delivery.context import DeliveryContext


_T = TypeVar("_T")


class Launched(NamedTuple):
    """A launch's outcome (what the receipt records) and, when it parked, the error that made it."""

    outcome: JsonObject
    cause: OmsError | None = None


def launch_worker(
    d: DeliveryContext,
    dispatch: Record,
    event_id: str,
    *,
    again: bool = False,
    guard: Callable[[], None] | None = None,
) -> Launched:
    """Launch `dispatch`'s worker (only an accepted dispatch launches, on every path). A launch that
    finds an earlier one begun (`panes/<dispatch>.begun.json`) or its session, with no live pane,
    parks the worker: only `again` — `oms worker resume`, a person's decision — starts it in a new
    pane then. The decisions are `domain/launch.py`'s: this runs its steps and performs what it
    answers. `guard`: the launch's delivery lock still held, asked before each key of the
    instruction (on etcd a deliverer paused past its lease's TTL lost it, ADR 0043 `launchkeys`)."""
    run = _Launch(d, dispatch, event_id, again, guard)
    state, effects = machine.start(dispatch.record_id, dispatch.state)
    while True:
        for effect in effects:
            if isinstance(effect, machine.Run):
                event = run.step(effect.step)
            else:
                done = run.perform(effect)
                if done is not None:
                    return done
        state, effects = machine.decide(state, event)


class _Launch:
    """One launch's IO: each step the machine asks for, and each effect it decides."""

    def __init__(
        self,
        d: DeliveryContext,
        dispatch: Record,
        event_id: str,
        again: bool,
        guard: Callable[[], None] | None = None,
    ) -> None:
        self.d, self.dispatch, self.event_id, self.again = d, dispatch, event_id, again
        self.guard = guard
        self.authority: Authority | None = None
        self.plan: LaunchPlan | None = None
        self.spec: JsonObject = {}
        self.pane: Pane | None = None
        self.status = ""
        self.error: OmsError | None = None

    def step(self, step: machine.Step) -> machine.Event:
        """Run `step`; what the machine is told of it (a refusal is kept as `error`)."""
        try:
            return self._step(step)
        except OmsError as exc:
            if step not in machine.DECIDES_FAILURE:
                raise  # not the machine's to decide: the store moved under the launch
            self.error = exc
            if step is machine.Step.ACTIVATE:
                pane = self.d.panes.observe(self.dispatch.record_id)
                server_gone = (
                    pane is None
                    and not self.d.panes.server_running()
                    and panefiles.read_kill(self.d.ws.store.state.root, self.dispatch.record_id)
                    is None
                )  # not a person's stop: the whole server ended (killed, crashed)
                seen = None if pane is None else _seen(pane)
                return machine.ActivationFailed(exc.message, seen, server_gone)
            return machine.Failed(step, exc.message)

    def _step(self, step: machine.Step) -> machine.Event:
        d, dispatch = self.d, self.dispatch
        if step is machine.Step.AUTHORITY:
            self.authority = check_dispatch(d.ws, dispatch)
        elif step is machine.Step.RESERVATION:
            worker = d.worker(dispatch.record_id)
            return machine.Reservation(worker.state, worker_payload(worker)["health"])
        elif step is machine.Step.PREPARE:
            if _earlier_launch(d, dispatch, again=self.again) and not _live(
                d.panes.observe(dispatch.record_id)
            ):
                raise _earlier_error(dispatch.record_id)  # a second start is never made here
            self.plan, self.spec = prepare(d, dispatch, _got(self.authority, step))
            return machine.Done(step, prompted=self.plan.prompt is not None)
        elif step is machine.Step.DISCLOSE:
            live.disclose_worker(
                d.ws,
                _got(self.authority, step).ticket,
                dispatch,
                operation="worker-session",
                surface=plans.surface(_got(self.plan, step)),
            )
        elif step is machine.Step.PANE:
            plan = _got(self.plan, step)
            self.status, self.pane = start_pane(d, dispatch, plan, self.spec, again=self.again)
            return machine.PaneStarted(self.status)
        elif step is machine.Step.STOP_CHECK:
            store = d.ws.store  # the worker as the store holds it: the state root's or a cluster's
            why = start_guard.stopped(store.state.root, dispatch.record_id, store.backend)
            return machine.StopSeen(why)
        elif step is machine.Step.REGISTER_PANE:
            pane = _got(self.pane, step)
            return machine.Done(step, registry=registration.register_pane(d, dispatch, pane))
        elif step is machine.Step.REGISTER_SESSION:
            registration.register_session(d, dispatch, _got(self.pane, step), self.event_id)
        elif step is machine.Step.ACTIVATE:
            activate(d, _got(self.plan, step), dispatch.record_id, self.guard)
        elif step is machine.Step.FENCE:
            return machine.FenceSeen(fence.reason(d.ws, dispatch))
        elif step is machine.Step.UNPARK:
            op = stable_id("wkr-pre-res", dispatch.record_id, self.event_id)
            session_id = dispatch_payload(dispatch)["session_id"]

            def unpark(worker: Record, now: str) -> Next[WorkerPayload] | None:
                session = d.session(session_id)  # asked on the worker's latest version
                if session is not None and session.state == SessionState.PARKED:
                    return None  # parked since this launch registered it: a forced drain's park
                return _unpark(worker, now)

            d.move_worker(dispatch.record_id, unpark, op=op)
            # else `working` waits for hooks and bridge
            liveness.promote(d.ws, dispatch.record_id, dispatch_payload(dispatch)["session_id"])
        return machine.Done(step)

    def perform(self, effect: machine.Effect) -> Launched | None:
        """Perform one effect; the launch's outcome once it is a terminal one."""
        d, dispatch = self.d, self.dispatch
        root = d.ws.store.state.root
        if isinstance(effect, machine.Refuse):
            raise AuthorityChangedError(effect.message, hint=effect.hint or None)
        if isinstance(effect, machine.StopPane):
            d.panes.stop(dispatch.record_id)
            launch_spec.discard(root, dispatch.record_id)
        elif isinstance(effect, machine.EndPane):
            _end_pane(d, dispatch, registry=effect.registry)
        elif isinstance(effect, machine.Park):
            error = ActivationError(effect.error) if effect.error is not None else self.error
            parked = park(d, dispatch, self.event_id, effect.op, _got(error, effect), effect.reason)
            if effect.pending:
                return Launched({**parked.outcome, "activation_pending": True}, parked.cause)
            return parked
        elif isinstance(effect, machine.EndAttempt):
            error = _got(self.error, effect)
            return _after_failed_activation(d, dispatch, self.event_id, error, effect)
        elif isinstance(effect, machine.FenceParked):
            fence.park(d.ws, dispatch.record_id, effect.reason, SYSTEM_ACTOR)
            reason = one_line(effect.reason)
            return Launched(
                {"status": "parked", "dispatch_id": dispatch.record_id, "reason": reason}
            )
        elif isinstance(effect, machine.Launched):
            pane = _got(self.pane, effect)
            return Launched(
                {
                    "status": self.status,
                    "dispatch_id": dispatch.record_id,
                    "session_id": dispatch_payload(dispatch)["session_id"],
                    "pane_id": pane.pane_id,
                    "provider_mode": dispatch_payload(dispatch)["provider_mode"],
                }
            )
        return None


def _got(value: _T | None, at: object) -> _T:
    """What an earlier step left, which the machine ran first (missing: a bug of the machine)."""
    if value is None:
        raise IllegalTransitionError("launch", "an earlier step not run", str(at))
    return value


def prepare(
    d: DeliveryContext, dispatch: Record, authority: Authority, resume: str | None = None
) -> tuple[LaunchPlan, JsonObject]:
    """Everything a launch checks and prepares before its pane — alone in the worktree, the CLI's
    version, bubblewrap, the checkout, the plan, the home, the launch spec — for a first launch or,
    with `resume` (the agent's own session id), a relaunch of the attempt on that session
    (`native_resume.py`)."""
    payload = dispatch_payload(dispatch)
    running = [
        p.dispatch_id for p in d.panes.list() if not p.dead
    ]  # one tmux call for both questions
    fence.require_alone(d.ws, dispatch, running)
    plans.check_cli_version(payload["provider_mode"])  # the cheap refusals before any reset
    d.sandbox.probe()  # no sandbox, no launch: a missing or broken bubblewrap parks with its reason
    approved = payload.get("role_limits")  # approved (`check_role`)
    if approved is None:
        raise IntegrityError("field 'role_limits' is missing")
    limits = sandbox_limits.from_json(approved)
    d.sandbox.trial(limits)  # no cgroup, no launch: parks with its reason (ADR 0025)
    if payload.get("role_network", NETWORK_DEFAULT) != NETWORK_DEFAULT:  # (ADR 0043, attack-agent)
        out_of_reach(d.ws.store.backend, 'a worker with network = "host"')
    if resume is None:  # a first launch: an earlier attempt's work salvaged, the commit restored
        prior = payload["prior_failure_evidence"]
        evidence = d.ws.store.evidence.get(prior).body if isinstance(prior, str) else None
        bound = d.session(payload["session_id"]) is not None or dispatch.record_id in running
        d.checkout.ready(payload, evidence, d.ws.config_root, bound=bound)
    else:
        d.checkout.verify(payload, d.ws.config_root, own_work=True)
    tools = role_tools(authority.policy, authority.role.role_id)
    plan = d.plan(dispatch, authority.role.argv, tools, authority.instructions, resume=resume)
    sandboxes = d.ws.store.sandboxes()
    moved = adopt_legacy(d.ws.store.state.root, sandboxes, plan)  # an older oms's home (ADR 0026)
    if moved is not None:  # said in the worker's broker log, where its supervisor writes
        log = panefiles.log_path(dispatch.record_id)
        _note(d.ws.store.state.root, log, f"{d.ws.now()} {moved}")
    materialise(sandboxes, plan, d.executable)  # (a home an earlier build wrote: this one's)
    spec = plans.launch_spec(d.ws, dispatch, plan, tools, d.executable)
    home = os.path.realpath(home_path(sandboxes.path, plan.home or ""))
    trees: list[Json] = [access.text(spec, "worktree"), home]
    store = _store(d)
    return plan, {**spec, "limits": limits.to_json(), "disk_trees": trees, "store": store}


def _store(d: DeliveryContext) -> JsonObject:
    """The store backend this launch writes the session through, for its supervisor to read it
    there (`start_guard.backend_of`): the state root's, or the etcd cluster this workspace opened
    — the one the person pinned (ADR 0043, amendment `clusterpin`), never what HEAD says now: a
    commit changing `[store]` since does not move a worker to another cluster. With it the host
    name's binding this launch acted under: the pane's processes (its supervisor, the broker its
    agent's hooks and bridge reach) fence their writes on its release as the launch did, so a
    pane of a released name records nothing once it is another state root's (amendment
    `cross6`)."""
    from oms.adapters.etcd.store import EtcdStore

    backend = d.ws.store.backend
    if not isinstance(backend, EtcdStore) or not backend.urls:
        return {"backend": "files"}
    found: JsonObject = {
        "backend": "etcd",
        "endpoints": list(backend.urls),
        "prefix": backend.prefix,
    }
    d.ws.host()  # the launch's host, bound (a name already released: refused here, in one line)
    if d.ws.bound is not None:
        found["name"] = {"host": d.ws.bound[0], "generation": d.ws.bound[1]}
    return found


def _note(root: Root, rel: str, line: str) -> None:
    """One line appended to a private log under the state root."""
    root.mkdirs(panefiles.PANES_DIR)
    fd = root.open_log(rel)
    try:
        os.write(fd, (line + "\n").encode("ascii", "replace"))
    finally:
        os.close(fd)


def start_pane(
    d: DeliveryContext,
    dispatch: Record,
    plan: LaunchPlan,
    spec: JsonObject,
    *,
    relaunch: bool = False,
    again: bool = False,
) -> tuple[str, Pane]:
    """`Panes.ensure` the worker's pane, its supervisor started on `spec`: ("created" | "reused",
    pane). A first launch (not a `relaunch` on the agent's session) records that it began before the
    pane."""
    root = d.ws.store.state.root
    try:
        supervised = (d.executable, "worker", "supervise", "--dispatch-id", dispatch.record_id)
        shown = d.panes.observe(dispatch.record_id)
        wrote = shown is None or shown.dead  # a new pane starts: only its own end will be trusted
        if wrote and not relaunch:  # decided on the observation that decides the spec (ADR 0014)
            if _earlier_launch(d, dispatch, again=again):
                raise _earlier_error(dispatch.record_id)
            panefiles.leave_begun(root, _begun(d, dispatch))
        if wrote:
            panefiles.clear_exit(root, dispatch.record_id)
            launch_spec.write(root, spec)
        status, pane = (
            d.panes.ensure(  # a pane only for the spec this launch wrote (ADR 0014, GAP_STALE_EXIT)
                dispatch.record_id,
                argv=(*supervised, "--state-root", d.ws.store.path),
                cwd=plan.cwd,
                create=wrote,
            )
        )
        # a reused pane's creator (a deliverer that died after `ensure`) may not have had its spec
        # read yet: the spec stays for that pane's supervisor, which consumes it (`stop` discards
        # one nobody took)
    except OmsError:
        if (
            d.panes.observe(dispatch.record_id) is None
        ):  # no supervisor will read it: the credential goes
            launch_spec.discard(root, dispatch.record_id)
        raise
    return status, pane


def _live(pane: Pane | None) -> bool:
    return pane is not None and not pane.dead


def _earlier_launch(d: DeliveryContext, dispatch: Record, *, again: bool) -> bool:
    """May an earlier launch have started the agent? Its session exists, or (unless `again`) it
    began: its deliverer died before it registered the session, and its agent may have run."""
    if d.session(dispatch_payload(dispatch)["session_id"]) is not None:
        return True
    return not again and panefiles.read_begun(d.ws.store.state.root, dispatch.record_id) is not None


def _earlier_error(dispatch_id: str) -> AuthorityChangedError:
    """The worker is parked with this message (a park keeps no hint): it names what a person does
    next."""
    resume = f"`oms worker resume {dispatch_id}` continues it in a new pane"
    return AuthorityChangedError(
        f"an earlier launch of this worker has no live pane (its "
        f"deliverer stopped before the receipt): {resume}",
        hint=resume,
    )


def _begun(d: DeliveryContext, dispatch: Record) -> JsonObject:
    return {
        "format": "oms-launch-begun-v1",
        "dispatch_id": dispatch.record_id,
        "session_id": dispatch_payload(dispatch)["session_id"],
        "pid": os.getpid(),
        "begun_at": d.ws.now(),
    }


def park(
    d: DeliveryContext,
    dispatch: Record,
    event_id: str,
    prefix: str,
    exc: OmsError,
    reason: str = "",
) -> Launched:
    """Park the worker (unless it is parked already) with `reason`, else the error's one-line
    message."""
    person = isinstance(exc, WAITS_FOR_PERSON)  # its reason says what to do too
    said = f"{exc.message} ({exc.remedy})" if person and exc.remedy else exc.message
    message = one_line(reason or said, default="worker lifecycle request")

    def decide(worker: Record, now: str) -> Next[WorkerPayload] | None:
        if worker_payload(worker)["health"] == "parked":
            return None
        if (
            worker_payload(worker)["health"] == "stopped"
        ):  # `oms worker stop` ended it since this launch looked
            raise AuthorityChangedError(
                "the worker ended while it launched",
                hint=f"`oms worker observe {dispatch.record_id}` shows its end",
            )
        return workers.change(
            worker.state, worker.payload, now=now, health="parked", reason=message
        )

    d.move_worker(dispatch.record_id, decide, op=stable_id(prefix, dispatch.record_id, event_id))
    outcome: JsonObject = {"status": "parked", "dispatch_id": dispatch.record_id, "reason": message}
    if person:  # the conductor blocks the ticket, never retries it
        outcome["waits_for_person"] = True
    return Launched(outcome, exc)


def _unpark(worker: Record, now: str) -> Next[WorkerPayload] | None:
    if worker_payload(worker)["health"] != "parked":
        return None
    return workers.change(worker.state, worker.payload, now=now, health="healthy")


class HookWitness:
    """The agent has oms's tools once its bridge answered a `tools/list` in the pane its session
    names (`chain/liveness.tools_listed`: the broker's note, never the agent's word; a relaunch's
    new pane waits for its own bridge). The agent took the typed instruction when its session
    records a prompt taken since the text was typed (`last_prompted_at`: its UserPromptSubmit, or
    Codex's SessionStart: `gate.prompt`). Another hook proves nothing: Claude Code fires
    SessionStart once started, also after oms typed, with the text still in its composer (an Enter
    read as a newline). The first prompt since its registration or relaunch (`prompt_due_at`) is
    recorded at once (`gate.worth_writing`)."""

    def __init__(
        self, d: DeliveryContext, dispatch_id: str, guard: Callable[[], None] | None = None
    ) -> None:
        self.d = d
        self.dispatch_id = dispatch_id
        self.since: str | None = None
        self.guard = guard  # asked before each key: a message's end lock still held

    def listed(self) -> bool:
        """Has the bridge of the session's current pane listed oms's tools?"""
        session = self.d.session(dispatch_payload(self.d.dispatch(self.dispatch_id))["session_id"])
        return session is not None and liveness.tools_listed(self.d.ws, session)

    def typing(self) -> None:
        """Remember when the text was typed."""
        self.since = self.d.ws.now()

    def pressing(self) -> None:
        """Before each key: the guard, if any, raises to press none."""
        if self.guard is not None:
            self.guard()

    def taken(self) -> bool:
        """Has the agent taken a prompt since?"""
        session = self.d.session(dispatch_payload(self.d.dispatch(self.dispatch_id))["session_id"])
        if session is None or self.since is None:
            return False
        prompted = session_payload(session).get("last_prompted_at")
        return isinstance(prompted, str) and parse_ts(prompted) >= parse_ts(self.since)


def activate(
    d: DeliveryContext,
    plan: LaunchPlan,
    dispatch_id: str,
    guard: Callable[[], None] | None = None,
) -> None:
    """Make the agent start its work (`adapters/activation.py`), confirmed by its hooks; `guard`
    asked before each key (the lock the keys are typed under still held: a launch's delivery lock,
    a resume's typing lock)."""
    witness: Witness = HookWitness(d, dispatch_id, guard)
    d.keys.activate(plan, dispatch_id, witness)
    session = d.session(dispatch_payload(d.dispatch(dispatch_id))["session_id"])
    if session is not None:
        session_events.activated(d.ws, session)


def _end_pane(d: DeliveryContext, dispatch: Record, *, registry: bool) -> None:
    """A step after the pane exists failed (`domain/launch.py`: `EndPane`): the pane this launch
    created is ended — its session, every process of its group, its sandbox, the spec its
    supervisor did not take, the registry this launch wrote (`registry`)."""
    root = d.ws.store.state.root
    d.panes.stop(dispatch.record_id)
    reaper.end_sandbox(root, dispatch.record_id)
    launch_spec.discard(root, dispatch.record_id)
    if registry:
        panefiles.drop_registry(root, dispatch.record_id)


def _after_failed_activation(
    d: DeliveryContext,
    dispatch: Record,
    event_id: str,
    exc: OmsError,
    end: machine.EndAttempt,
) -> Launched:
    """The activation failed and its pane is dead (`domain/launch.py`: `EndAttempt`): the session
    and the worker end (the machine's message: `SERVER_GONE` when the whole tmux server ended)."""
    message = one_line(end.message)
    session = d.session(dispatch_payload(dispatch)["session_id"])
    if session is not None and session.state != SessionState.STOPPED:
        nxt = sessions.stop(session.state, session.payload, reason=message, now=d.after(session))
        d.session_step(session, nxt, stable_id("wkr-act-stop", dispatch.record_id, event_id))

    def decide(worker: Record, now: str) -> Next[WorkerPayload] | None:
        if worker_payload(worker)["health"] == "stopped":
            return None
        return workers.end(
            worker.state, worker_payload(worker), now=now, end_reason=end.end_reason, detail=message
        )

    d.move_worker(
        dispatch.record_id, decide, op=stable_id("wkr-act-hstop", dispatch.record_id, event_id)
    )
    return Launched(
        {"status": "stopped", "dispatch_id": dispatch.record_id, "reason": message}, exc
    )


def _seen(pane: Pane) -> delivery_rules.PaneSeen:
    return delivery_rules.PaneSeen(
        pane.pane_id,
        pane.dead,
        pane.dead_status,
        pane.dead_signal,
        pane.pane_pid,
    )
