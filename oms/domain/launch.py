"""One launch of an attempt's worker as a pure machine (ADR 0009 "Delivery"): what was observed of
the step just run in, the next thing to do out. `services/delivery/launch.py` is its shell: it runs
each `Run` step (authority, reservation, prepare, disclose, pane, …) against the store, git, tmux
and the sandbox, tells the machine what it saw, and performs the effects it answers.

    step              seen                         next
    (start)           dispatch not accepted        Refuse (only an accepted dispatch launches)
    authority         refused                      Park wkr-pre-park
    reservation       not one idle, healthy or     Refuse (a worker that started or ended is
                      parked reservation             never launched again)
    prepare           refused                      Park wkr-pre-park
    disclose          refused                      Park wkr-auth-park
    pane              refused                      Park wkr-lch-park
    stop-check        a stop came meanwhile        StopPane (if this launch created it), Refuse
    register-pane     failed                       EndPane (if created), Park wkr-lch-park
    register-session  failed                       EndPane (if created), Park wkr-reg-park
    register-session  done                         `delivery.after_ensure`: Run activate, or Park
                                                   wkr-reuse-park activation_pending, or fence
    activate          failed, its pane lives       Park wkr-act-park activation_pending
    activate          failed, its pane is dead     EndAttempt (session and worker end)
    fence             lapsed meanwhile             FenceParked
    unpark            done                         Launched

Every path ends in exactly one terminal effect (`Park`, `Refuse`, `EndAttempt`, `FenceParked`,
`Launched`), and once the pane exists nothing is left half-launched: a failure before the session
is registered ends a pane this launch created. `tests/unit/domain/test_launch_machine.py` holds the
machine to that over every order of outcomes.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple, TypeAlias

from oms.domain.delivery import (
    SERVER_GONE,
    AfterEnsure,
    PaneSeen,
    after_failed_activation,
    after_pane_failure,
)
from oms.domain.delivery import after_ensure as _after_ensure
from oms.errors import MESSAGE_LIMIT, IllegalTransitionError, one_line

REUSED = (
    "another launcher made this worker's pane: it types the "
    "instruction (`oms worker resume` does, if it could not)"
)
RESERVATION = "worker delivery requires one idle healthy or parked reservation"


class Step(StrEnum):
    """What the shell runs next."""

    AUTHORITY = "authority"  # the store still authorises the dispatch (ADR 0008)
    RESERVATION = "reservation"  # the worker is one idle, healthy or parked reservation
    PREPARE = "prepare"  # no earlier launch without a live pane; checks, checkout, plan, spec
    DISCLOSE = "disclose"  # a GitHub ticket's contact journaled
    PANE = "pane"  # the pane ensured: created by this launch, or reused
    STOP_CHECK = "stop-check"  # did an `oms worker stop` come meanwhile?
    REGISTER_PANE = "register-pane"
    REGISTER_SESSION = "register-session"
    ACTIVATE = "activate"  # the instruction typed, taken by the agent
    FENCE = "fence"  # did the attempt's authority lapse while it was activated?
    UNPARK = "unpark"  # the worker healthy (`working` once hooks and bridge speak)


class State(NamedTuple):
    """Where a launch is: its step, and what it learnt on the way."""

    dispatch_id: str
    step: Step
    created: bool = False  # this launch created the pane
    registry: bool = False  # this launch wrote the pane registry
    prompted: bool = False  # the agent starts work only once told to (its plan types a prompt)
    over: bool = False  # a terminal effect was given: nothing more happens


# What the shell saw of the step it ran.
class Done(NamedTuple):
    """The step succeeded (`prompted`: prepare's plan types a prompt; `registry`: register-pane
    wrote it)."""

    step: Step
    prompted: bool = False
    registry: bool = False


class Failed(NamedTuple):
    """The step was refused or failed with `message` (the shell keeps the error itself)."""

    step: Step
    message: str


class Reservation(NamedTuple):
    """The worker record as the reservation step read it."""

    state: str
    health: str


class PaneStarted(NamedTuple):
    """`Panes.ensure` answered: `created` by this launch, or `reused` (another launcher's)."""

    status: str


class StopSeen(NamedTuple):
    """The stop marker's reason, or None: no `oms worker stop` came meanwhile."""

    reason: str | None


class ActivationFailed(NamedTuple):
    """Activation failed with `message`; `pane`: what tmux shows of the pane now (None: gone);
    `server_gone`: no tmux server answers and no person left a stop (the whole server ended)."""

    message: str
    pane: PaneSeen | None
    server_gone: bool = False


class FenceSeen(NamedTuple):
    """The fence's reason, or None: the attempt may still act."""

    reason: str | None


Event: TypeAlias = (
    Done | Failed | Reservation | PaneStarted | StopSeen | ActivationFailed | FenceSeen
)


# What the shell does next.
class Run(NamedTuple):
    """Run `step`, then tell the machine what it saw."""

    step: Step


class Park(NamedTuple):
    """Park the worker (terminal): `op` prefixes its operation id; `reason` replaces the error's
    message when given; `pending`: the outcome says `activation_pending`; `error`: the shell has no
    error of its own for it and makes one with this text."""

    op: str
    reason: str = ""
    pending: bool = False
    error: str | None = None


class Refuse(NamedTuple):
    """Refuse the launch (terminal): the error the caller sees, and its hint."""

    message: str
    hint: str


class StopPane(NamedTuple):
    """Stop the pane this launch created and discard the spec its supervisor did not take."""


class EndPane(NamedTuple):
    """End the pane this launch created — its session, every process of its group, its sandbox,
    the spec — and its registry when this launch wrote it (`registry`)."""

    registry: bool


class EndAttempt(NamedTuple):
    """The activation found the pane dead (terminal): session and worker end, `end_reason`."""

    end_reason: str
    message: str


class FenceParked(NamedTuple):
    """The attempt's authority lapsed while it was activated (terminal): parked by the fence."""

    reason: str


class Launched(NamedTuple):
    """The launch is done (terminal)."""


Effect: TypeAlias = Run | Park | Refuse | StopPane | EndPane | EndAttempt | FenceParked | Launched
TERMINAL = (Park, Refuse, EndAttempt, FenceParked, Launched)

PARK_BEFORE_PANE = {
    Step.AUTHORITY: "wkr-pre-park",
    Step.PREPARE: "wkr-pre-park",
    Step.DISCLOSE: "wkr-auth-park",
    Step.PANE: "wkr-lch-park",
}
PARK_AFTER_PANE = {
    Step.REGISTER_PANE: ("pane", "wkr-lch-park"),
    Step.REGISTER_SESSION: ("session", "wkr-reg-park"),
}
# the steps whose failure the machine decides (a failure of any other is the caller's error)
DECIDES_FAILURE = frozenset({*PARK_BEFORE_PANE, *PARK_AFTER_PANE, Step.ACTIVATE})
NEXT = {
    Step.AUTHORITY: Step.RESERVATION,
    Step.PREPARE: Step.DISCLOSE,
    Step.DISCLOSE: Step.PANE,
    Step.REGISTER_PANE: Step.REGISTER_SESSION,
    Step.ACTIVATE: Step.FENCE,
}


def start(dispatch_id: str, dispatch_state: str) -> tuple[State, list[Effect]]:
    """A launch of `dispatch_id`'s worker: only an accepted dispatch launches, on every path."""
    state = State(dispatch_id, Step.AUTHORITY)
    if dispatch_state != "accepted":
        message = f"dispatch {dispatch_id} is {dispatch_state}; only an accepted one launches"
        return state._replace(over=True), [Refuse(message, "")]
    return state, [Run(Step.AUTHORITY)]


def decide(state: State, event: Event) -> tuple[State, list[Effect]]:
    """The launch machine: the next state and effects once the shell saw `event` at `state.step`."""
    step = state.step
    if state.over or getattr(event, "step", step) is not step:
        raise IllegalTransitionError("launch", step.value, type(event).__name__)
    effects = _decide(state, event)
    nxt = state
    if isinstance(event, Done):
        nxt = nxt._replace(prompted=state.prompted or event.prompted)
        nxt = nxt._replace(registry=state.registry or event.registry)
    if isinstance(event, PaneStarted):
        nxt = nxt._replace(created=event.status == "created")
    runs = [e for e in effects if isinstance(e, Run)]
    if runs:
        nxt = nxt._replace(step=runs[-1].step)
    if any(isinstance(e, TERMINAL) for e in effects):
        nxt = nxt._replace(over=True)
    return nxt, effects


def _decide(state: State, event: Event) -> list[Effect]:
    step = state.step
    if isinstance(event, Failed):
        return _failed(state, event)
    if isinstance(event, Reservation) and step is Step.RESERVATION:
        if event.state != "idle" or event.health not in ("healthy", "parked"):
            hint = (
                f"`oms worker observe {state.dispatch_id}`: a worker that started or ended is not "
                "launched again"
            )
            return [Refuse(RESERVATION, hint)]
        return [Run(Step.PREPARE)]
    if isinstance(event, PaneStarted) and step is Step.PANE:
        return [Run(Step.STOP_CHECK)]
    if isinstance(event, StopSeen) and step is Step.STOP_CHECK:
        if event.reason is None:
            return [Run(Step.REGISTER_PANE)]
        stop: list[Effect] = [StopPane()] if state.created else []
        hint = f"`oms worker observe {state.dispatch_id}` shows its end"
        return [*stop, Refuse(event.reason, hint)]
    if isinstance(event, Done) and step is Step.REGISTER_SESSION:
        status = "created" if state.created else "reused"
        typing = _after_ensure(status, prompted=state.prompted or event.prompted)
        if typing is AfterEnsure.PARK_PENDING:
            return [Park("wkr-reuse-park", pending=True, error=REUSED)]
        return [Run(Step.ACTIVATE if typing is AfterEnsure.ACTIVATE else Step.FENCE)]
    if isinstance(event, ActivationFailed) and step is Step.ACTIVATE:
        end_reason = after_failed_activation(event.pane, server_gone=event.server_gone)
        if end_reason is None:
            return [Park("wkr-act-park", pending=True)]
        return [EndAttempt(end_reason, SERVER_GONE if event.server_gone else event.message)]
    if isinstance(event, FenceSeen) and step is Step.FENCE:
        return [Run(Step.UNPARK)] if event.reason is None else [FenceParked(event.reason)]
    if isinstance(event, Done) and step is Step.UNPARK:
        return [Launched()]
    if isinstance(event, Done) and step in NEXT:
        return [Run(NEXT[step])]
    raise IllegalTransitionError("launch", step.value, type(event).__name__)


def _failed(state: State, event: Failed) -> list[Effect]:
    if event.step is Step.PANE:  # its pane failed or vanished: a person may start it again
        return [Park(PARK_BEFORE_PANE[event.step], resumable(event.message, state.dispatch_id))]
    if event.step in PARK_BEFORE_PANE:
        return [Park(PARK_BEFORE_PANE[event.step])]
    if event.step in PARK_AFTER_PANE:
        which, op = PARK_AFTER_PANE[event.step]
        after = after_pane_failure(which, event.message, created=state.created)
        registry = state.registry and event.step is Step.REGISTER_SESSION
        end: list[Effect] = [EndPane(registry)] if after.end_pane else []
        return [*end, Park(op, resumable(after.reason, state.dispatch_id))]
    raise IllegalTransitionError("launch", state.step.value, f"failed {event.step.value}")


def resumable(reason: str, dispatch_id: str) -> str:
    """A park's reason for a launch whose pane failed: it names what a person does next (a park
    keeps no hint), unless it does already."""
    if "oms worker resume" in reason:
        return reason
    resume = f": `oms worker resume {dispatch_id}` starts it again in a new pane"
    return one_line(reason, MESSAGE_LIMIT - len(resume)) + resume  # the way back is never cut off
