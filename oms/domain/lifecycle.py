"""A launched worker's lifecycle as a pure machine (ADR 0009 "Panes", ADR 0042): `oms worker
park`, `resume` (a fresh launch of a worker that never started, keys typed into its live pane, or
its agent relaunched on its own native session once its pane ended) and `stop`. What was observed
of the step just run in, the next thing to do out. `services/delivery/lifecycle.py` and
`native_resume.py` are its shells: they read the records, tmux and the state root, tell the machine
what they saw, and perform what it answers; the rules it applies are `domain/delivery.py`'s
(`check_park`, `check_resume`, `native_ref`, `resume_keys`) and the records' machines
(`sessions`, `workers`).

    op        step        seen                               next
    park      session     no session                         Refuse (deliver it first)
    park      worker      `check_park` or the time refuses   Refuse (before any key is typed)
    park      worker      session not parked yet             Run interrupt, MoveSession park
    park      worker      not parked, a run that cannot pause MoveSession park, MoveWorker park,
                                                             Run halt (oms's own park: `halts`)
    park      halt        the pane ended, or not             Answer halted | running
    park      worker      parked already (same time)         Run plan (nothing typed)
    park      ...                                            MoveWorker park, Answer parked
    resume    fence       lapsed, or a result recorded       Refuse (nothing written)
    resume    session     none                               Run launch (a fresh launch)
    resume    launch      launched meanwhile / parked / ok   Answer none / Refuse / Answer
    resume    pane        `check_resume` refuses             Refuse
    resume    pane        ended, `native_ref` refuses        Refuse
    resume    pane        ended, a native session            Run relaunch → Answer native|none
    resume    pane        live                               Run contact (journaled first)
    resume    contact     `resume_keys`                      TypeKeys, MoveSession resume
    resume    refence     lapsed, or a result, meanwhile     Refuse (stays parked)
    resume    refence     live                               MoveWorker unpark, Answer keys
    relaunch  fence       lapsed, or a result recorded       Refuse
    relaunch  pane        live again (or no session)         Answer relaunched False
    relaunch  pane        ended, rules say native            Run prepare, Run start-pane
    relaunch  start-pane  reused (another launcher's)        Answer relaunched False
    relaunch  register    failed                             EndPane, Fail (the pane it made)
    relaunch  activate    failed, the pane lives             MoveWorker park-healthy, Fail
    relaunch  refence     lapsed meanwhile                   FencePark, Answer (no promote)
    relaunch  refence     live                               MoveWorker unpark, Answer
    stop      stop-pane   a process of the pane left         Refuse (only the kill marker)
    stop      session     not stopped yet                    MoveSession stop
    stop      worker      ended already / not                nothing kept / Run salvage
    stop      salvage     kept (or not)                      MoveWorker end, Cleanup, Answer

Every path ends in exactly one terminal effect (`Refuse`, `Fail`, `Answer`); a fenced attempt is
never resumed; a relaunch or a fresh launch is asked for only when no pane of the attempt lives
(and a fresh launch only when it has no session); a stop records an end only once its pane and
every process of it have ended, and at most once. `tests/unit/domain/test_lifecycle_machine.py`
holds it to that over every order of what the shells can see.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from functools import partial
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from oms.canonical import JsonObject, next_after, parse_ts, stable_id
from oms.domain import sessions, workers
from oms.domain.delivery import (
    End,
    ResumeKeys,
    ResumeWay,
    check_park,
    check_resume,
    native_ref,
    resume_keys,
)
from oms.domain.machine import Next
from oms.errors import IllegalTransitionError, InvalidInputError, one_line

if TYPE_CHECKING:
    from oms.schemas.payloads import SessionPayload, WorkerPayload

DEFAULT_WHY = "worker lifecycle request"
NOT_LAUNCHED_HINT = "fix the reason, then resume again"


class Op(StrEnum):
    """The lifecycle request the machine runs."""

    PARK = "park"
    RESUME = "resume"
    RELAUNCH = "relaunch"  # resume's relaunch on the native session (under the launch lock)
    STOP = "stop"


class Step(StrEnum):
    """What the shell runs next (and tells the machine what it saw)."""

    FENCE = "fence"  # the attempt's fence (and, for a relaunch, the dispatch's state)
    SESSION = "session"  # the session record (None: the worker never got one)
    WORKER = "worker"  # the worker record (and, for park, the time now)
    PANE = "pane"  # what tmux shows of the pane, its end if it ended, the time now
    INTERRUPT = "interrupt"  # the plan made, the running turn interrupted
    HALT = "halt"  # a run that cannot pause ended: its pane and its sandbox (parked first)
    PLAN = "plan"  # the plan made (a worker parked already: nothing typed)
    LAUNCH = "launch"  # a fresh launch under the deliverer's lock (`launch.launch_worker`)
    RELAUNCH = "relaunch"  # the native relaunch (`native_resume.relaunch`: this machine again)
    CONTACT = "contact"  # the receipt and plan read, a GitHub ticket's contact journaled
    REFENCE = "refence"  # the fence asked again once the keys were typed or the agent relaunched
    PREPARE = "prepare"  # a relaunch's authority, checks, plan and spec; its contact journaled
    START_PANE = "start-pane"  # the old sandbox ended, the new pane started
    REGISTER = "register"  # the new pane registered, the session moved to it
    ACTIVATE = "activate"  # the agent told to continue
    STOP_PANE = "stop-pane"  # the kill marker left, the pane stopped, its sandbox ended
    GROUP = "group"  # the registered process group of a pane tmux no longer shows
    SALVAGE = "salvage"  # the attempt's uncommitted work kept


class Refusal(StrEnum):
    """Which error a refusal is (the shell maps each to its class in `oms/errors.py`)."""

    INVALID = "invalid"  # InvalidInputError
    FENCED = "fenced"  # AttemptFencedError
    NO_SESSION = "no-session"  # RecordNotFoundError
    CHANGED = "changed"  # AuthorityChangedError
    NOT_LAUNCHED = "not-launched"  # ActivationError
    NOT_ENDED = "not-ended"  # PaneNotEndedError


class WorkerMove(StrEnum):
    """A worker transition (`worker_next`)."""

    PARK = "park"  # parked with a reason, unless parked already
    PARK_HEALTHY = "park-healthy"  # parked with a reason, only from healthy
    UNPARK = "unpark"  # healthy again, only from parked
    END = "end"  # its end recorded (`workers.end`: the first end stays)


class State(NamedTuple):
    """Where a request is: its step, and what it learnt on the way."""

    op: Op
    dispatch_id: str
    step: Step
    why: str = ""  # park's and stop's reason (one line)
    until: str = ""  # park's time
    halts: bool = False  # park: the run cannot pause, and this park ends it (oms's own park)
    end_reason: str = "stopped"  # stop's
    by: str = ""  # stop's
    session_id: str = ""
    session_state: str | None = None
    session_version: int = 0
    session_observed: str = ""
    session: JsonObject | None = None
    provider_mode: str = ""
    health: str = ""
    activity: str = ""
    now: str = ""
    typed: str = ""  # the keys a resume typed
    pgid: int = 0  # stop: the registered process group of a pane tmux no longer shows
    early: bool = False  # resume: due now, whatever its parked time (the park's cause is over)
    over: bool = False


# What the shell saw of the step it ran.
class FenceSeen(NamedTuple):
    """The fence's reason, or None: the attempt may still act; the dispatch's state."""

    reason: str | None
    dispatch_state: str = "accepted"


class SessionSeen(NamedTuple):
    """The session record (`state` None: none is registered) and the dispatch's provider mode;
    `now`: the time it was read."""

    session_id: str
    state: str | None
    version: int = 0
    observed_at: str = ""
    payload: JsonObject | None = None
    provider_mode: str = ""
    now: str = ""


class WorkerSeen(NamedTuple):
    """The worker record: its health and activity; `now`: the time it was read."""

    health: str
    activity: str
    now: str = ""


class PaneSeen(NamedTuple):
    """The pane: live, or its end (`domain/delivery.end_of`, None: not ended); the time now."""

    live: bool
    end: End | None
    now: str


class Interrupted(NamedTuple):
    """Whether a running turn was interrupted."""

    interrupted: bool


class Halted(NamedTuple):
    """Whether the halted run's pane and every process of it ended."""

    ended: bool


class Done(NamedTuple):
    """The step succeeded."""

    step: Step


class Failed(NamedTuple):
    """The step failed with `message` (the shell keeps the error itself); `pane_live`: what tmux
    shows of the pane now (an activation's failure)."""

    step: Step
    message: str
    pane_live: bool = False


class LaunchSeen(NamedTuple):
    """A fresh launch: `meanwhile` another launcher did it; `parked` with `reason` and a
    `remedy`; else it launched."""

    meanwhile: bool
    parked: bool = False
    reason: str | None = None
    remedy: str | None = None


class Relaunched(NamedTuple):
    """The native relaunch: False when the pane was live again already."""

    relaunched: bool


class Contact(NamedTuple):
    """A keys resume's contact journaled: the receipt says `activation_pending`; the plan types a
    prompt (`prompted`)."""

    pending: bool
    prompted: bool


class PaneStarted(NamedTuple):
    """`Panes.ensure` answered `created` or `reused`."""

    status: str


class SessionMoved(NamedTuple):
    """The session's version once `MoveSession` wrote it."""

    version: int


class PaneStopped(NamedTuple):
    """`Panes.stop` answered `ended`; `shown`: tmux still shows the pane; `pgid`: the registry's
    process group (None: no registry, or a damaged one)."""

    ended: bool
    shown: bool = False
    pgid: object = None


class GroupSeen(NamedTuple):
    """Whether every process of the pane's group has ended."""

    ends: bool


class Salvaged(NamedTuple):
    """Where the uncommitted work was kept (the `salvage_*` fields), or None."""

    kept: JsonObject | None


Event: TypeAlias = (
    FenceSeen
    | SessionSeen
    | WorkerSeen
    | PaneSeen
    | Interrupted
    | Halted
    | Done
    | Failed
    | LaunchSeen
    | Relaunched
    | Contact
    | PaneStarted
    | SessionMoved
    | PaneStopped
    | GroupSeen
    | Salvaged
)


# What the shell does next.
class Run(NamedTuple):
    """Run `step`, then tell the machine what it saw."""

    step: Step


SessionRedo: TypeAlias = "Callable[[str, JsonObject, str], Next[SessionPayload]]"


class MoveSession(NamedTuple):
    """Write the session's next version (`op`: its operation id); the shell answers
    `SessionMoved`. `again`: the same move decided again on a version another writer wrote since
    the session was seen (a hook's beat), from its state, payload and time; None: that version
    is refused (`VersionConflictError`)."""

    op: str
    nxt: Next[SessionPayload]
    again: SessionRedo | None = None


class MoveWorker(NamedTuple):
    """Move the worker (`worker_next` decides on its latest version); `op`: its operation id."""

    op: str
    move: WorkerMove
    reason: str = ""
    end_reason: str = ""
    salvage: JsonObject | None = None


class TypeKeys(NamedTuple):
    """Type `keys` into the live pane (the instruction, or "continue")."""

    keys: ResumeKeys


class EndPane(NamedTuple):
    """End the pane this relaunch created, its sandbox and the spec it wrote."""


class FencePark(NamedTuple):
    """The attempt lapsed while the agent was relaunched: parked by the fence."""

    reason: str


class FinishRecorded(NamedTuple):
    """A recorded result ends the worker as it says (`results.finish_recorded`)."""


class Cleanup(NamedTuple):
    """Drop the stopped pane's files, its spec and proxy token; an idle pane server ends."""


class Refuse(NamedTuple):
    """Refuse (terminal): the error the caller sees."""

    refusal: Refusal
    message: str
    hint: str | None = None


class Fail(NamedTuple):
    """The step failed (terminal): the shell raises the error it kept."""


class Answer(NamedTuple):
    """Done (terminal): the fields the request's view adds; `promote`: the worker's liveness
    promoted first (`chain/liveness.promote`); `relaunched` (a relaunch's answer)."""

    fields: tuple[tuple[str, str], ...] = ()
    promote: bool = False
    relaunched: bool = False


Effect: TypeAlias = (
    Run
    | MoveSession
    | MoveWorker
    | TypeKeys
    | EndPane
    | FencePark
    | FinishRecorded
    | Cleanup
    | Refuse
    | Fail
    | Answer
)
TERMINAL = (Refuse, Fail, Answer)
ASKS = (Run, MoveSession)  # the effects the shell answers with an event (the last of a batch)


def start_park(
    dispatch_id: str, reason: str, until: str, *, halts: bool = False
) -> tuple[State, list[Effect]]:
    """`oms worker park`: interrupt the turn that runs, park session and worker until `until`.
    `halts`: the agent cannot pause (`codex exec`) and this park is oms's own (a quota's rest, a
    pool's drain): its run is ended, once parked, so nothing runs while the records say parked;
    its resume relaunches it on its own session."""
    why = one_line(reason, default=DEFAULT_WHY)
    state = State(Op.PARK, dispatch_id, Step.SESSION, why=why, until=until, halts=halts)
    return state, [Run(Step.SESSION)]


def start_resume(dispatch_id: str, *, early: bool = False) -> tuple[State, list[Effect]]:
    """`oms worker resume`: the fence first (a refusal writes nothing). `early`: the conductor's
    resume of a worker whose park's cause is over before its time (a forced drain's slot made
    active again: ADR 0016, amendment `drainclock`), due now."""
    return State(Op.RESUME, dispatch_id, Step.FENCE, early=early), [Run(Step.FENCE)]


def start_relaunch(dispatch_id: str, *, early: bool = False) -> tuple[State, list[Effect]]:
    """The native relaunch, under the deliverer's lock, on records read again (`early`: as the
    resume's)."""
    return State(Op.RELAUNCH, dispatch_id, Step.FENCE, early=early), [Run(Step.FENCE)]


def start_stop(
    dispatch_id: str, reason: str, *, end_reason: str = "stopped", by: str = "oms-cli"
) -> tuple[State, list[Effect]]:
    """`oms worker stop`: the pane and every process of it first; the end recorded after."""
    why = one_line(reason, default=DEFAULT_WHY)
    state = State(Op.STOP, dispatch_id, Step.STOP_PANE, why=why, end_reason=end_reason, by=by)
    return state, [Run(Step.STOP_PANE)]


def decide(state: State, event: Event) -> tuple[State, list[Effect]]:
    """The lifecycle machine: the next state and effects once the shell saw `event`."""
    if state.over or getattr(event, "step", state.step) is not state.step:
        raise IllegalTransitionError("lifecycle", state.step.value, type(event).__name__)
    state = _learn(state, event)
    effects = _decide(state, event)
    if effects is None:
        raise IllegalTransitionError(
            "lifecycle", f"{state.op.value} {state.step.value}", type(event).__name__
        )
    asks = [e for e in effects if isinstance(e, ASKS)]
    if asks and isinstance(asks[-1], Run):
        state = state._replace(step=asks[-1].step)
    if any(isinstance(e, TERMINAL) for e in effects):
        state = state._replace(over=True)
    return state, effects


def _learn(state: State, event: Event) -> State:
    """What the machine keeps of `event`."""
    if isinstance(event, SessionSeen):
        return state._replace(
            session_id=event.session_id,
            session_state=event.state,
            session_version=event.version,
            session_observed=event.observed_at,
            session=event.payload,
            provider_mode=event.provider_mode,
            now=event.now or state.now,
        )
    if isinstance(event, WorkerSeen):
        return state._replace(
            health=event.health, activity=event.activity, now=event.now or state.now
        )
    if isinstance(event, PaneSeen):
        return state._replace(now=event.now)
    if isinstance(event, SessionMoved):
        return state._replace(session_version=event.version)
    if isinstance(event, PaneStopped) and isinstance(event.pgid, int):
        return state._replace(pgid=event.pgid)
    if isinstance(event, Contact):
        keys = resume_keys(
            state.session_state or "",
            state.session_version,
            state.health,
            activation_pending=event.pending,
            prompted=event.prompted,
        )
        return state._replace(typed=keys.value)
    return state


def _decide(state: State, event: Event) -> list[Effect] | None:
    """The effects of `event` at `state` (None: not an event of this step)."""
    if state.op is Op.PARK:
        return _park(state, event)
    if state.op is Op.STOP:
        return _stop(state, event)
    return _resume(state, event)


def _session(state: State) -> tuple[str, JsonObject]:
    """The session's state and payload (seen before every step that asks)."""
    if state.session_state is None or state.session is None:
        raise IllegalTransitionError("lifecycle", state.step.value, "no session seen")
    return state.session_state, state.session


def _refused(exc: InvalidInputError) -> Refuse:
    return Refuse(Refusal.INVALID, exc.message, exc.remedy)


def _fenced(reason: str) -> Refuse:
    return Refuse(Refusal.FENCED, f"worker cannot resume: {reason}")


# ------------------------------------------------------------------------------------------ park
def _park(state: State, event: Event) -> list[Effect] | None:
    step = state.step
    if isinstance(event, SessionSeen) and step is Step.SESSION:
        if event.state is None:
            message = f"dispatch {state.dispatch_id} has no session yet (deliver it first)"
            return [Refuse(Refusal.NO_SESSION, message)]
        return [Run(Step.WORKER)]
    if isinstance(event, WorkerSeen) and step is Step.WORKER:
        # everything validated before any key reaches the pane (a past time: refused untouched)
        session_state, session = _session(state)
        try:
            parse_ts(state.until, "parked-until")
            check_park(session_state, state.health, session.get("parked_until"), state.until)
            if session_state != "parked":
                _park_next(state)
        except InvalidInputError as exc:
            return [_refused(exc)]
        if session_state == "parked":
            return [Run(Step.PLAN)]
        if state.halts:  # parked first: a pane's end seen meanwhile is a parked worker's
            op = stable_id("wkr-park", state.dispatch_id, state.why, state.until)
            move = _park_worker(state, "halted")[0]
            return [_park_session(state, op), move, Run(Step.HALT)]
        return [Run(Step.INTERRUPT)]
    if isinstance(event, Halted) and step is Step.HALT:
        return [Answer((("parked", "halted" if event.ended else "running"),))]
    if isinstance(event, Interrupted) and step is Step.INTERRUPT:
        op = stable_id("wkr-park", state.dispatch_id, state.why, state.until)
        parked = "interrupted" if event.interrupted else "idle"
        return [_park_session(state, op), *_park_worker(state, parked)]
    if isinstance(event, Done) and step is Step.PLAN:
        return _park_worker(state, "already")
    return None


def _park_next(state: State) -> Next[SessionPayload]:
    session_state, session = _session(state)
    return _park_on(state.until, state.now, session_state, session, state.session_observed)


def _park_on(
    until: str, now: str, session_state: str, session: JsonObject, observed_at: str
) -> Next[SessionPayload]:
    """The park of a session version (the one seen, or one a hook wrote since)."""
    return sessions.park(session_state, session, until=until, now=next_after(observed_at, now))


def _park_session(state: State, op: str) -> MoveSession:
    """The session's park, decided again on a version written since it was seen: a hook's beat
    between the look and the write is not a reason to leave the worker running."""
    return MoveSession(op, _park_next(state), partial(_park_on, state.until, state.now))


def _park_worker(state: State, parked: str) -> list[Effect]:
    op = stable_id("wkr-hlth-park", state.dispatch_id, state.why, state.until)
    return [MoveWorker(op, WorkerMove.PARK, reason=state.why), Answer((("parked", parked),))]


# ------------------------------------------------------------------------- resume and relaunch
def _resume(state: State, event: Event) -> list[Effect] | None:
    step, relaunch = state.step, state.op is Op.RELAUNCH
    if isinstance(event, FenceSeen) and step is Step.FENCE:
        return _resume_fence(state, event)
    if isinstance(event, SessionSeen) and step is Step.SESSION:
        if event.state is not None:
            return [Run(Step.WORKER)]
        # it never got a session: a relaunch has nothing to continue; a resume launches it
        return [Answer(relaunched=False)] if relaunch else [Run(Step.LAUNCH)]
    if isinstance(event, WorkerSeen) and step is Step.WORKER:
        return [Run(Step.PANE)]
    if isinstance(event, PaneSeen) and step is Step.PANE:
        return _resume_pane(state, event)
    if relaunch:
        return _relaunch(state, event)
    if isinstance(event, LaunchSeen) and step is Step.LAUNCH:
        if event.meanwhile:  # a deliverer or another resume launched it
            return [Answer((("resumed", "none"),))]
        if event.parked:
            message = f"worker was not launched: {event.reason}"
            return [Refuse(Refusal.NOT_LAUNCHED, message, event.remedy or NOT_LAUNCHED_HINT)]
        return [Answer((("resumed", "launched"),))]
    if isinstance(event, Relaunched) and step is Step.RELAUNCH:
        return [Answer((("resumed", "native" if event.relaunched else "none"),))]
    if isinstance(event, Contact) and step is Step.CONTACT:
        return _resume_contact(state)
    if isinstance(event, SessionMoved) and step is Step.CONTACT:
        return _resume_unpark(state)
    if isinstance(event, FenceSeen) and step is Step.REFENCE:
        if event.reason is not None:  # lapsed while resuming: it stays parked
            return [_fenced(event.reason)]
        if event.dispatch_state not in OPEN:  # a result recorded while resuming: it stays parked
            return [_over(state, event)]
        op = stable_id("wkr-hlth-res", state.dispatch_id, state.session_version)
        return [MoveWorker(op, WorkerMove.UNPARK), _resumed(state)]
    return None


def _resume_fence(state: State, event: FenceSeen) -> list[Effect]:
    if event.reason is not None:
        return [_fenced(event.reason)]
    if event.dispatch_state not in OPEN:
        return [_over(state, event)]
    return [Run(Step.SESSION)]


OPEN = ("accepted", "acknowledged")  # a dispatch whose agent may go on (no result recorded yet)


def _over(state: State, event: FenceSeen) -> Refuse:
    """A recorded result (also one recorded after the worker was parked): nothing to continue, and
    so neither relaunched nor resumed (no keys typed, the worker left parked)."""
    done = "relaunched" if state.op is Op.RELAUNCH else "resumed"
    message = f"dispatch {state.dispatch_id} is {event.dispatch_state}: its agent is not {done}"
    hint = f"`oms worker stop {state.dispatch_id}` ends the worker with its recorded result"
    return Refuse(Refusal.CHANGED, message, hint)


def _resume_pane(state: State, event: PaneSeen) -> list[Effect]:
    session_state, session = _session(state)
    if state.op is Op.RELAUNCH and event.live:
        return [Answer(relaunched=False)]  # another resume relaunched it, or a launcher made it
    try:
        way = check_resume(
            session_state,
            state.health,
            pane_live=event.live,
            pane_end=event.end,
            parked_until=session.get("parked_until"),
            now=_due_at(state, session.get("parked_until"), event.now),
        )
        if way is ResumeWay.NATIVE:
            resume_ref(state)
    except InvalidInputError as exc:
        return [_refused(exc)]
    if state.op is Op.RELAUNCH:
        return [Run(Step.PREPARE)]
    return [Run(Step.RELAUNCH if way is ResumeWay.NATIVE else Step.CONTACT)]


def _due_at(state: State, parked_until: object, now: str) -> str:
    """The time a resume is judged at: now, or — an `early` one — its parked time once it is
    later (the park's cause is over)."""
    if not state.early or not isinstance(parked_until, str):
        return now
    return max(now, parked_until, key=lambda t: parse_ts(t, "parked-until"))


def resume_ref(state: State) -> str:
    """The agent's own session id a relaunch continues (`native_ref`, once the pane is seen)."""
    _, session = _session(state)
    return native_ref(state.provider_mode, state.activity, state.session_id, session)


def _resume_contact(state: State) -> list[Effect]:
    session_state, session = _session(state)
    keys = ResumeKeys(state.typed)
    typing: list[Effect] = [] if keys is ResumeKeys.NOTHING else [TypeKeys(keys)]
    if session_state != "parked":
        return [*typing, *_resume_unpark(state)]
    now = next_after(state.session_observed, state.now)
    nxt = sessions.resume(session_state, session, now=now)
    op = stable_id("wkr-resume", state.dispatch_id, str(session.get("parked_until")))
    return [*typing, MoveSession(op, nxt)]


def _resume_unpark(state: State) -> list[Effect]:
    if state.health == "parked":
        return [Run(Step.REFENCE)]  # lapsed while resuming: it stays parked
    return [_resumed(state)]


def _resumed(state: State) -> Answer:
    return Answer((("resumed", "keys"), ("typed", state.typed)), promote=True)


def _relaunch(state: State, event: Event) -> list[Effect] | None:
    step = state.step
    if isinstance(event, Done) and step is Step.PREPARE:
        return [Run(Step.START_PANE)]
    if isinstance(event, PaneStarted) and step is Step.START_PANE:
        if event.status == "reused":
            return [Answer(relaunched=False)]  # another launcher made it: it types into it
        return [Run(Step.REGISTER)]
    if isinstance(event, SessionMoved) and step is Step.REGISTER:
        return [Run(Step.ACTIVATE)]  # the pane registered, the session moved to it
    if isinstance(event, Failed) and step is Step.REGISTER:
        return [EndPane(), Fail()]  # the pane this relaunch made: nothing half-done
    if isinstance(event, Done) and step is Step.ACTIVATE:
        return [Run(Step.REFENCE)]
    if isinstance(event, Failed) and step is Step.ACTIVATE:
        if not event.pane_live:
            return [Fail()]  # the agent exited: its end is `observe`'s
        message = one_line(f"the relaunched agent did not take the continuation: {event.message}")
        op = stable_id("wkr-rel-park", state.dispatch_id, state.session_version)
        return [MoveWorker(op, WorkerMove.PARK_HEALTHY, reason=message), Fail()]
    if isinstance(event, FenceSeen) and step is Step.REFENCE:
        if event.reason is not None:  # lapsed while the agent was relaunched: it stays parked
            return [FencePark(event.reason), Answer(relaunched=True)]
        op = stable_id("wkr-rel-res", state.dispatch_id, state.session_version)
        return [MoveWorker(op, WorkerMove.UNPARK), Answer(promote=True, relaunched=True)]
    return None


# ------------------------------------------------------------------------------------------ stop
def _stop(state: State, event: Event) -> list[Effect] | None:
    step = state.step
    if isinstance(event, PaneStopped) and step is Step.STOP_PANE:
        if not event.ended:
            return [_not_ended(state, "the process group of its pane")]
        if event.shown or not isinstance(event.pgid, int) or event.pgid <= 1:
            return [Run(Step.SESSION)]
        return [Run(Step.GROUP)]
    if isinstance(event, GroupSeen) and step is Step.GROUP:
        if not event.ends:
            left = f"process group {state.pgid} of its pane (which tmux no longer shows)"
            return [_not_ended(state, left)]
        return [Run(Step.SESSION)]
    if isinstance(event, SessionSeen) and step is Step.SESSION:
        if event.state is None or event.state == "stopped":
            return [FinishRecorded(), Run(Step.WORKER)]
        session_state, session = _session(state)
        now = next_after(state.session_observed, state.now)
        nxt = sessions.stop(session_state, session, reason=state.why, now=now)
        return [MoveSession(stable_id("wkr-stop", state.dispatch_id, state.why), nxt)]
    if isinstance(event, SessionMoved) and step is Step.SESSION:
        return [FinishRecorded(), Run(Step.WORKER)]  # a recorded result ends it as it says
    if isinstance(event, WorkerSeen) and step is Step.WORKER:
        if event.health == "stopped":  # ended already: nothing left to keep
            return _stop_end(state, None)
        return [Run(Step.SALVAGE)]
    if isinstance(event, Salvaged) and step is Step.SALVAGE:
        return _stop_end(state, event.kept)
    return None


def _not_ended(state: State, left: str) -> Refuse:
    """Nothing recorded: the kill marker stays, `observe` records the end once it comes."""
    message = f"worker {state.dispatch_id} was not stopped: {left} still has live processes"
    return Refuse(Refusal.NOT_ENDED, message)


def _stop_end(state: State, kept: JsonObject | None) -> list[Effect]:
    op = stable_id("wkr-stop-end", state.dispatch_id, state.why)
    end = MoveWorker(
        op,
        WorkerMove.END,
        reason=f"{state.why} (by {state.by})",
        end_reason=state.end_reason,
        salvage=kept,
    )
    return [end, Cleanup(), Answer()]


def salvage_why(state: State) -> str:
    """What a stop's salvage says it kept the work for."""
    return f"{state.end_reason}: {state.why}"


def worker_next(
    move: MoveWorker, state: str, last: WorkerPayload, *, now: str
) -> Next[WorkerPayload] | None:
    """The worker's next version for `move`, decided on its latest version (None: nothing to
    write)."""
    health = last.get("health")
    if move.move is WorkerMove.PARK:
        if health == "parked":
            return None
        return workers.change(state, last, now=now, health="parked", reason=move.reason)
    if move.move is WorkerMove.PARK_HEALTHY:
        if health != "healthy":
            return None
        return workers.change(state, last, now=now, health="parked", reason=move.reason)
    if move.move is WorkerMove.UNPARK:
        if health != "parked":
            return None
        return workers.change(state, last, now=now, health="healthy")
    return workers.end(
        state,
        last,
        now=now,
        end_reason=move.end_reason,
        detail=move.reason,
        salvage=move.salvage,
    )
