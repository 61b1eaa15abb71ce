"""Delivery's decisions, pure: what an observed pane, its exit record and a kill marker mean; what a
launch leaves behind when a step fails once its pane exists; what `oms worker park|resume` may do in
which state. The shell (`services/delivery/launch.py`, `lifecycle.py`, `reconcile.py`) reads tmux
and the state root, asks here, and writes.

Has a worker's pane ended (`end_of`)? Not while it lives, nor once the worker is `stopped` (its end
is recorded). A pane tmux no longer shows has ended when its supervisor recorded the end, or when
the registry delivery wrote names a process group of which nothing live is left (a zombie is not
alive: `fsio/procinfo.group_alive`). Without a registry the worker never had a pane (or was stopped
and forgotten); a group still alive is a tmux hiccup: neither ends anything. The end, first match
wins:

    a kill marker (`oms worker stop`)      stopped  "<its reason> (by <who>)"
    a signal (exit record's, else tmux's)  signal   "the agent was killed by signal N"
    a status (exit record's, else tmux's)  exit     "the agent exited with status N"
    no pane and no exit record             exit     "the pane and every process in it are gone ..."
    a dead pane without a status           exit     "the agent exited (its status was not recorded)"

and an exit record of a pane that is gone adds "; its tmux pane is gone".

After `Panes.ensure` (`after_ensure`): only the launcher that created the pane types the
instruction. One that found the pane made already (by another launcher) does not type it again: a
prompt-driven agent is parked `activation_pending` (`oms worker resume` activates it), a command
worker needs none.

A failed step once the pane exists leaves nothing half-launched (ADR 0009 "Once the pane exists"):
- registering the pane or the session (`after_pane_failure`): the pane is ended when this launch
  created it (one another launcher made is theirs), and the worker parked with a reason naming the
  step — there is no session, so nothing else refers to the pane;
- activating (`after_failed_activation`): a live pane parks the worker `activation_pending`; a pane
  already dead ends session and worker (`exit`; `stopped` when tmux no longer shows it; `exit`
  again, with `SERVER_GONE` as its plain reason, when the whole tmux server ended: retried).

Park (`check_park`): a `running`, `stalled` or `parked` session of a `healthy`, `stalled` or
`parked` worker; parking again must name the same time. Resume (`check_resume`): a `parked` or
`running` session of a `parked` or `healthy` worker, once due, either
- by keys (`resume_keys`), while its pane lives: a session never activated (`running`, version 0,
  worker parked, receipt `activation_pending`) is activated, a parked prompt-driven agent is told to
  continue; or
- natively (`native_ref`), once its pane has ended (`end_of` finds an end that no `oms worker stop`
  asked for) but before that end was recorded: an `idle` or `working` agent is relaunched in a new
  pane on its own session (`codex resume <id>`, `claude --resume <id>`), which must exist: Codex's
  id is the one its SessionStart hook reported (Codex fires it at its first turn); Claude Code's is
  oms's session id, once the agent took a prompt (`agent_prompted_at`). A command worker has no
  native session.
A pane not shown while its processes live (a tmux hiccup, or a pane still ending) resumes neither
way.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import NamedTuple

from oms.canonical import JsonObject, parse_ts
from oms.domain.gate import NO_RESULT
from oms.errors import InvalidInputError, one_line
from oms.provider_names import ENGINES


class PaneSeen(NamedTuple):
    """What tmux shows of a worker's pane."""

    pane_id: str
    dead: bool
    status: int | None
    signal: int | None
    pane_pid: int = 0  # its first process: the supervisor (0: not known)


LIMITS_REACHED = ("pids", "memory", "disk")  # an exit record's `limit`: end reason `limit: <it>`


class End(NamedTuple):
    """How a worker's pane ended: the end reason, its one-line detail, and the pane it is about."""

    reason: str
    detail: str
    pane_id: str


def end_of(
    *,
    health: str,
    pane: PaneSeen | None,
    registry: JsonObject | None,
    ended: JsonObject | None,
    kill: JsonObject | None,
    group_alive: Callable[[int], bool],
) -> End | None:
    """The end to record for a worker (its `health`, the pane tmux shows, the registry, the
    supervisor's exit record and the kill marker), or None while there is none; `group_alive(pgid)`
    is asked only about a pane tmux no longer shows and whose end was not recorded. An exit record
    names the pane whose supervisor wrote it: one that names another pane is not this pane's end
    (ADR 0014, GAP_STALE_EXIT)."""
    if (pane is not None and not pane.dead) or health == "stopped":
        return None
    pid = (
        pane.pane_pid
        if pane is not None
        else registry.get("pane_pid")
        if registry is not None
        else None
    )
    if ended is not None and isinstance(ended.get("pane_pid"), int) and ended["pane_pid"] != pid:
        ended = None  # an earlier pane's record (its supervisor named itself): not this pane's end
    if pane is None:
        if registry is None:
            return None
        pane_id = str(registry["pane_id"])
        pgid = registry["pane_pid"]
        if ended is None and isinstance(pgid, int) and group_alive(pgid):
            return None
    else:
        pane_id = pane.pane_id
    status = ended["status"] if ended is not None else pane.status if pane is not None else None
    signum = ended["signal"] if ended is not None else pane.signal if pane is not None else None
    if kill is not None:
        reason, detail = "stopped", f"{kill['reason']} (by {kill['by']})"
    elif (
        ended is None
    ):  # the supervisor records every end it lives to see: it did not (seed 004's parent-gone)
        reason = "parent-gone"
        if pane is None:
            detail = "the pane and every process in it are gone (the end was not recorded)"
        elif signum:
            detail = (
                f"the agent's supervisor was killed by signal {signum} before it recorded the end"
            )
        elif status is not None:
            detail = f"the agent's supervisor exited with status {status} without recording the end"
        else:
            detail = "the agent's supervisor ended without recording the end"
    elif ended.get("limit") in LIMITS_REACHED:  # the supervisor ended it at a bound (ADR 0025)
        reason = f"limit: {ended['limit']}"
        detail = str(ended.get("detail") or reason)
    elif signum:
        reason, detail = "signal", f"the agent was killed by signal {signum}"
    elif status is not None:
        reason, detail = "exit", f"the agent exited with status {status}"
    else:
        reason, detail = "exit", "the agent exited (its status was not recorded)"
    if pane is None and ended is not None:
        detail += "; its tmux pane is gone"
    return End(reason, one_line(detail), pane_id)


class AfterEnsure(StrEnum):
    """What a launch does once `Panes.ensure` answered."""

    ACTIVATE = "activate"  # this launcher created the pane: it (alone) types the instruction
    PARK_PENDING = (
        "park-pending"  # another launcher made it: park `activation_pending`, type nothing
    )
    NOTHING = "nothing"  # nothing to type (a command worker) in a pane another launcher made


def after_ensure(status: str, *, prompted: bool) -> AfterEnsure:
    """`status` is `created` or `reused`; `prompted`: the agent starts work only once told to."""
    if status == "created":
        return AfterEnsure.ACTIVATE
    return AfterEnsure.PARK_PENDING if prompted else AfterEnsure.NOTHING


STEPS = {"pane": "registering the pane", "session": "registering the session"}


class Aftermath(NamedTuple):
    """What a failed step after the pane exists leaves: end the pane?, and why the worker is
    parked."""

    end_pane: bool
    reason: str


def after_pane_failure(step: str, message: str, *, created: bool) -> Aftermath:
    """A step of `STEPS` failed with `message`; `created`: this launch created the pane."""
    return Aftermath(created, one_line(f"{STEPS[step]} failed: {message}"))


SERVER_GONE = "the pane's tmux server ended before the agent was ready"


def after_failed_activation(pane: PaneSeen | None, *, server_gone: bool = False) -> str | None:
    """None: the pane lives, park `activation_pending`; else the end reason of session and
    worker. A pane gone with the whole tmux server (`server_gone`: no server answers, and no person
    stopped the worker) is `exit`, a failed attempt the conductor retries (ADR 0029: nothing a
    person must put right; `SERVER_GONE` says so plainly); a pane gone from a live server, a stop
    (`stopped`: a person decides)."""
    if pane is not None and not pane.dead:
        return None
    return "exit" if pane is not None or server_gone else "stopped"


def check_park(session_state: str, health: str, parked_until: object, until: str) -> None:
    """May a worker park until `until`? (`InvalidInputError` says why not.)"""
    if session_state not in ("running", "stalled", "parked"):
        raise InvalidInputError(f"worker cannot park from session {session_state}")
    if health not in ("healthy", "stalled", "parked"):
        raise InvalidInputError(f"worker cannot park from health {health}")
    if session_state == "parked" and parked_until != until:
        raise InvalidInputError("worker is already parked until a different time")


class ResumeWay(StrEnum):
    """How `oms worker resume` resumes a launched worker (what its `--json` says as `resumed`)."""

    KEYS = "keys"  # its pane lives: keys typed into it (or none)
    NATIVE = (
        "native"  # its pane ended: the agent relaunched in a new pane on its own native session
    )


def check_parkable(transport: str, parkable: bool) -> None:
    """May a person park a worker of `transport` (`oms worker park`)? Only one whose provider says
    so (`Provider.parkable`, the registry): `codex exec` has no keys that pause it, and a park
    would say it rests while it runs on to its end (ADR 0045 amendment `ends`)."""
    if not parkable:
        raise InvalidInputError(
            f"worker cannot be parked: its agent ({transport}) cannot pause and would run on to "
            "its end; nothing was changed",
            hint="let it finish, or stop it (`oms worker stop`)",
        )


def check_resume(
    session_state: str,
    health: str,
    *,
    pane_live: bool,
    pane_end: End | None,
    parked_until: object,
    now: str,
) -> ResumeWay:
    """May a launched worker resume now, and how? (`InvalidInputError` says why not.) `pane_end` is
    `end_of`'s answer for a pane that is not live."""
    if session_state not in ("parked", "running") or health not in ("parked", "healthy"):
        raise InvalidInputError(
            f"worker cannot resume from session {session_state} and health {health}"
        )
    if not pane_live and pane_end is None:
        raise InvalidInputError(
            "worker cannot resume without its live bound pane (nor has that pane ended)"
        )
    if pane_end is not None and pane_end.reason == "stopped":
        raise InvalidInputError(f"worker cannot resume: it is being stopped ({pane_end.detail})")
    due = isinstance(parked_until, str) and parse_ts(now) >= parse_ts(parked_until)
    if session_state == "parked" and not due:
        raise InvalidInputError(f"worker resume is not due (parked until {parked_until})")
    return ResumeWay.KEYS if pane_live else ResumeWay.NATIVE


def native_ref(provider_mode: str, activity: str, session_id: str, session: JsonObject) -> str:
    """The agent's own session id to relaunch it on, once its pane has ended (`InvalidInputError`:
    none)."""
    if activity not in ("idle", "working"):
        raise InvalidInputError(f"worker cannot resume from activity {activity}")
    if provider_mode == "command":
        raise InvalidInputError(
            "a command worker cannot resume once its pane has ended (it has no native session to "
            "continue): stop it (`oms worker stop`) and dispatch the ticket again"
        )
    ref = session.get("native_session_ref")
    if ENGINES.get(provider_mode) == "codex":  # (every Codex transport: `codex_goal`, `codex_exec`)
        known = (
            isinstance(ref, str) and ref != session_id
        )  # Codex's own id, from its SessionStart hook
    else:
        known = ref == session_id and isinstance(session.get("agent_prompted_at"), str)
    if not known or not isinstance(ref, str):
        raise InvalidInputError(
            "worker cannot resume: its pane ended before the agent took its instruction, so it "
            "has no native session to continue; stop it (`oms worker stop`) and dispatch the "
            "ticket again"
        )
    return ref


PANE_ENDED = "its pane ended"


def halted_park(parkable: bool, health: str, reason: object) -> bool:
    """A parked run that cannot pause (its provider's `parkable` False) whose park is oms's own
    (a quota's rest, a pool's drain: not `no_result`, whose run ended by itself for a person to
    look at): that park ended its run, and its pane's end keeps the park, under a conductor as
    under a person's look, for its resume to relaunch it on its own session."""
    return not parkable and health == "parked" and reason != NO_RESULT


def kept_resumable(
    end: End,
    *,
    dispatch_state: str,
    provider_mode: str,
    activity: str,
    session_id: str,
    session_state: str,
    session: JsonObject,
) -> str | None:
    """The park reason that records `end` while keeping the worker resumable natively (`oms worker
    observe` looks: it does not decide), or None when the end is to be recorded as the worker's
    end: a stop asked for it, the dispatch has a result or was cancelled, the session has ended, or
    the agent has no native session to continue (`native_ref`)."""
    if end.reason == "stopped" or dispatch_state not in ("accepted", "acknowledged"):
        return None
    if session_state not in ("running", "parked"):
        return None
    try:
        native_ref(provider_mode, activity, session_id, session)
    except InvalidInputError:
        return None
    how = "`oms worker resume` continues its agent's own session"
    return one_line(f"{PANE_ENDED} ({end.detail}): {how}", 512)


class ResumeKeys(StrEnum):
    """What `oms worker resume` types into the pane."""

    ACTIVATE = "activate"  # the instruction: the agent never took it
    NUDGE = "nudge"  # "continue": it was interrupted
    NOTHING = "nothing"


def resume_keys(
    session_state: str,
    session_version: int,
    health: str,
    *,
    activation_pending: bool,
    prompted: bool,
) -> ResumeKeys:
    """The keys a resume types (after `check_resume`)."""
    never_activated = session_state == "running" and session_version == 0 and health == "parked"
    if never_activated and activation_pending:
        return ResumeKeys.ACTIVATE
    if (session_state == "parked" or health == "parked") and prompted:
        return ResumeKeys.NUDGE
    return ResumeKeys.NOTHING
