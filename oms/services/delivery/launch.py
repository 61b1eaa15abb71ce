"""One launch of an accepted dispatch's worker (ADR 0008, ADR 0009 "Delivery"), for `deliver` and
for `resume` of a worker that never started — both under the deliverer's outbox lock.

Authority (`services/chain/authority.py`) → the worker is an idle, healthy or parked reservation →
alone in its worktree → agent CLI version and bubblewrap → a first launch's checkout made ready (an
earlier attempt's work salvaged, its commit restored: `checkout.ready`) → checkout verification →
plan, home and launch spec → live contact journaled → pane → pane registry → session → activation →
the worker healthy (`working` once hooks and bridge prove themselves: `chain/liveness.py`).

Any refusal before the pane parks the worker with a one-line reason (the receipt records it, so the
event is not retried blindly). What a failure leaves once the pane exists is `domain/delivery.py`'s.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

from oms.adapters import bwrap, cgroups
from oms.adapters.activation import ActivationError, Witness
from oms.adapters.panes import Pane
from oms.canonical import Json, JsonObject, access, parse_ts, stable_id
from oms.domain import delivery as delivery_rules
from oms.domain import sandbox_limits, sessions, workers
from oms.domain.machine import Next
from oms.domain.policy import role_tools
from oms.errors import WAITS_FOR_PERSON, AuthorityChangedError, OmsError, one_line
from oms.fsio import Root
from oms.services.chain import fence, live, liveness
from oms.services.chain.authority import Authority, check_dispatch
from oms.services.checkout import planned as checkout
from oms.services.containment import reaper
from oms.services.delivery import plans, registration, session_events, start_guard
from oms.services.delivery import spec as launch_spec
from oms.services.delivery.homes import adopt_legacy, home_path, materialise
from oms.services.workspace import SYSTEM_ACTOR
from oms.store import Record, panefiles

if TYPE_CHECKING:
    from oms.adapters.providers.base import LaunchPlan
    from oms.services.delivery.context import DeliveryContext


REUSED = (
    "another launcher made this worker's pane: it types the "
    "instruction (`oms worker resume` does, if it could not)"
)


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
) -> Launched:
    """Launch `dispatch`'s worker (only an accepted dispatch launches, on every path). A launch that
    finds an earlier one begun (`panes/<dispatch>.begun.json`) or its session, with no live pane,
    parks the worker: only `again` — `oms worker resume`, a person's decision — starts it in a new
    pane then."""
    if dispatch.state != "accepted":
        raise AuthorityChangedError(
            f"dispatch {dispatch.record_id} is {dispatch.state}; only an accepted one launches"
        )
    try:
        authority = check_dispatch(d.ws, dispatch)
    except OmsError as exc:
        return park(d, dispatch, event_id, "wkr-pre-park", exc)
    worker = d.worker(dispatch.record_id)
    if worker.state != "idle" or worker.payload["health"] not in ("healthy", "parked"):
        raise AuthorityChangedError(
            "worker delivery requires one idle healthy or parked reservation",
            hint=(
                f"`oms worker observe {dispatch.record_id}`: a worker "
                f"that started or ended is not launched again"
            ),
        )
    session_id = access.text(dispatch.payload, "session_id")
    try:
        if _earlier_launch(d, dispatch, again=again) and not _live(
            d.panes.observe(dispatch.record_id)
        ):
            raise _earlier_error(
                dispatch.record_id
            )  # parks: a second start of the agent is never made here
        plan, spec = prepare(d, dispatch, authority)
    except OmsError as exc:
        return park(d, dispatch, event_id, "wkr-pre-park", exc)
    try:
        live.disclose_worker(
            d.ws,
            authority.ticket,
            dispatch,
            operation="worker-session",
            surface=plans.surface(plan),
        )
    except OmsError as exc:
        return park(d, dispatch, event_id, "wkr-auth-park", exc)
    try:
        status, pane = start_pane(d, dispatch, plan, spec, again=again)
    except OmsError as exc:
        return park(d, dispatch, event_id, "wkr-lch-park", exc)
    stopping = start_guard.stopped(d.ws.store.state.root, dispatch.record_id)
    if (
        stopping is not None
    ):  # `stop` came between the reservation check and the pane: it must not run on
        if status == "created":
            d.panes.stop(dispatch.record_id)
            launch_spec.discard(d.ws.store.state.root, dispatch.record_id)
        raise AuthorityChangedError(
            stopping, hint=f"`oms worker observe {dispatch.record_id}` shows its end"
        )
    step, registry_ours = (
        "pane",
        False,
    )  # from here on the pane exists: nothing may be left half-launched
    try:
        registry_ours = registration.register_pane(d, dispatch, pane)
        step = "session"
        registration.register_session(d, dispatch, pane, event_id)
    except OmsError as exc:
        return _after_pane_failure(
            d, dispatch, event_id, step, exc, created=status == "created", registry=registry_ours
        )
    typing = delivery_rules.after_ensure(status, prompted=plan.prompt is not None)
    # its creator types the instruction; never twice
    if typing is delivery_rules.AfterEnsure.PARK_PENDING:
        parked = park(d, dispatch, event_id, "wkr-reuse-park", ActivationError(REUSED))
        return Launched({**parked.outcome, "activation_pending": True}, parked.cause)
    if typing is delivery_rules.AfterEnsure.ACTIVATE:
        try:
            activate(d, plan, dispatch.record_id)
        except OmsError as exc:
            return _after_failed_activation(d, dispatch, event_id, exc)
    fenced = fence.reason(d.ws, dispatch)  # lapsed while the agent was activated: it stays parked
    if fenced is not None:
        fence.park(d.ws, dispatch.record_id, fenced, SYSTEM_ACTOR)
        return Launched(
            {"status": "parked", "dispatch_id": dispatch.record_id, "reason": one_line(fenced)}
        )
    d.move_worker(
        dispatch.record_id, _unpark, op=stable_id("wkr-pre-res", dispatch.record_id, event_id)
    )
    liveness.promote(
        d.ws, dispatch.record_id, session_id
    )  # else `working` waits for hooks and bridge
    return Launched(
        {
            "status": status,
            "dispatch_id": dispatch.record_id,
            "session_id": session_id,
            "pane_id": pane.pane_id,
            "provider_mode": dispatch.payload["provider_mode"],
        }
    )


def prepare(
    d: DeliveryContext, dispatch: Record, authority: Authority, resume: str | None = None
) -> tuple[LaunchPlan, JsonObject]:
    """Everything a launch checks and prepares before its pane — alone in the worktree, the CLI's
    version, bubblewrap, the checkout, the plan, the home, the launch spec — for a first launch or,
    with `resume` (the agent's own session id), a relaunch of the attempt on that session
    (`native_resume.py`)."""
    payload = dispatch.payload
    running = [
        p.dispatch_id for p in d.panes.list() if not p.dead
    ]  # one tmux call for both questions
    fence.require_alone(d.ws, dispatch, running)
    plans.check_cli_version(
        str(payload["provider_mode"])
    )  # the cheap refusals before anything is reset
    bwrap.probe()  # no sandbox, no launch: a missing or unusable bubblewrap parks with its reason
    limits = sandbox_limits.from_json(access.obj(payload, "role_limits"))  # approved (`check_role`)
    cgroups.trial(limits)  # no cgroup, no launch: parks with its reason (ADR 0025)
    if resume is None:  # a first launch: an earlier attempt's work salvaged, the commit restored
        prior = payload.get("prior_failure_evidence")
        evidence = d.ws.store.evidence.get(prior).body if isinstance(prior, str) else None
        bound = (
            d.session(access.text(payload, "session_id")) is not None
            or dispatch.record_id in running
        )
        checkout.ready(payload, evidence, d.ws.config_root, bound=bound)
    else:
        checkout.verify(payload, d.ws.config_root, own_work=True)
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
    return plan, {**spec, "limits": limits.to_json(), "disk_trees": trees}


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
    if d.session(access.text(dispatch.payload, "session_id")) is not None:
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
        "session_id": access.text(dispatch.payload, "session_id"),
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

    def decide(worker: Record, now: str) -> Next | None:
        if worker.payload["health"] == "parked":
            return None
        if (
            worker.payload["health"] == "stopped"
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


def _unpark(worker: Record, now: str) -> Next | None:
    if worker.payload["health"] != "parked":
        return None
    return workers.change(worker.state, worker.payload, now=now, health="healthy")


class HookWitness:
    """The agent took the typed instruction when its session records a prompt taken since the text
    was typed (`last_prompted_at`: its UserPromptSubmit, or Codex's SessionStart: `gate.prompt`).
    Another hook proves nothing: Claude Code fires SessionStart once started, also after oms typed,
    with the text still in its composer (an Enter read as a newline). The first prompt since its
    registration or relaunch (`prompt_due_at`) is recorded at once (`gate.worth_writing`)."""

    def __init__(self, d: DeliveryContext, dispatch_id: str) -> None:
        self.d = d
        self.dispatch_id = dispatch_id
        self.since: str | None = None

    def typing(self) -> None:
        """Remember when the text was typed."""
        self.since = self.d.ws.now()

    def taken(self) -> bool:
        """Has the agent taken a prompt since?"""
        session = self.d.session(
            access.text(self.d.dispatch(self.dispatch_id).payload, "session_id")
        )
        if session is None or self.since is None:
            return False
        prompted = session.payload.get("last_prompted_at")
        return isinstance(prompted, str) and parse_ts(prompted) >= parse_ts(self.since)


def activate(d: DeliveryContext, plan: LaunchPlan, dispatch_id: str) -> None:
    """Make the agent start its work (`adapters/activation.py`), confirmed by its hooks."""
    witness: Witness = HookWitness(d, dispatch_id)
    d.keys.activate(plan, dispatch_id, witness)
    session = d.session(access.text(d.dispatch(dispatch_id).payload, "session_id"))
    if session is not None:
        session_events.activated(d.ws, session)


PARK_OP = {"pane": "wkr-lch-park", "session": "wkr-reg-park"}


def _after_pane_failure(
    d: DeliveryContext,
    dispatch: Record,
    event_id: str,
    step: str,
    exc: OmsError,
    *,
    created: bool,
    registry: bool,
) -> Launched:
    """A step after the pane exists failed (`domain/delivery.after_pane_failure`): the pane is ended
    if this launch created it — its session, every process of its group, its sandbox, the spec its
    supervisor did not take, the registry this launch wrote — and the worker parked with a reason
    naming the step."""
    after = delivery_rules.after_pane_failure(step, exc.message, created=created)
    if after.end_pane:
        root = d.ws.store.state.root
        d.panes.stop(dispatch.record_id)
        reaper.end_sandbox(root, dispatch.record_id)
        launch_spec.discard(root, dispatch.record_id)
        if registry:
            panefiles.drop_registry(root, dispatch.record_id)
    return park(d, dispatch, event_id, PARK_OP[step], exc, after.reason)


def _after_failed_activation(
    d: DeliveryContext,
    dispatch: Record,
    event_id: str,
    exc: OmsError,
) -> Launched:
    pane = d.panes.observe(dispatch.record_id)
    server_gone = (
        pane is None
        and not d.panes.server_running()
        and panefiles.read_kill(d.ws.store.state.root, dispatch.record_id) is None
    )  # not a person's stop: the whole server ended (killed, crashed), no raw tmux error shown
    end_reason = delivery_rules.after_failed_activation(
        None if pane is None else _seen(pane), server_gone=server_gone
    )
    if end_reason is None:
        parked = park(d, dispatch, event_id, "wkr-act-park", exc)
        return Launched({**parked.outcome, "activation_pending": True}, exc)
    message = delivery_rules.SERVER_GONE if server_gone else one_line(exc.message)
    session = d.session(access.text(dispatch.payload, "session_id"))
    if session is not None and session.state != "stopped":
        nxt = sessions.stop(session.state, session.payload, reason=message, now=d.after(session))
        d.session_step(session, nxt, stable_id("wkr-act-stop", dispatch.record_id, event_id))

    def decide(worker: Record, now: str) -> Next | None:
        if worker.payload["health"] == "stopped":
            return None
        return workers.end(
            worker.state, worker.payload, now=now, end_reason=end_reason, detail=message
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
