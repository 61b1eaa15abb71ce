"""Delivery's decisions, pure: what an observed pane, its exit record and a kill marker mean; what a
launch leaves behind when a step fails once its pane exists; what `oms worker park|resume` may do in
which state. The shell (`services/launcher.py`, `lifecycle.py`, `reconcile.py`) reads tmux and the
state root, asks here, and writes.

Has a worker's pane ended (`end_of`)? Not while it lives, nor once the worker is `stopped` (its end is
recorded). A pane tmux no longer shows has ended when its supervisor recorded the end, or when the
registry delivery wrote names a process group of which nothing live is left (a zombie is not alive:
`fsio/procinfo.group_alive`). Without a registry the worker never had a pane (or was stopped and
forgotten); a group still alive is a tmux hiccup: neither ends anything. The end, first match wins:

    a kill marker (`oms worker stop`)          stopped  "<its reason> (by <who>)"
    a signal (the exit record's, else tmux's)  signal   "the agent was killed by signal N"
    a status (the exit record's, else tmux's)  exit     "the agent exited with status N"
    no pane and no exit record                 exit     "the pane and every process in it are gone ..."
    a dead pane without a status               exit     "the agent exited (its status was not recorded)"

and an exit record of a pane that is gone adds "; its tmux pane is gone".

After `Panes.ensure` (`after_ensure`): only the launcher that created the pane types the instruction.
One that found the pane made already (by another launcher) does not type it again: a prompt-driven
agent is parked `activation_pending` (`oms worker resume` activates it), a command worker needs none.

A failed step once the pane exists leaves nothing half-launched (DESIGN.md §5.7, ADR 0009):
- registering the pane or the session (`after_pane_failure`): the pane is ended when this launch
  created it (one another launcher made is theirs), and the worker parked with a reason naming the
  step — there is no session, so nothing else refers to the pane;
- activating (`after_failed_activation`): a live pane parks the worker `activation_pending`; a pane
  already dead ends session and worker (`exit`; `stopped` when tmux no longer shows it).

Park (`check_park`): a `running`, `stalled` or `parked` session of a `healthy`, `stalled` or `parked`
worker; parking again must name the same time. Resume (`check_resume`, `resume_keys`): a `parked` or
`running` session of a `parked` or `healthy` worker whose pane lives, once due; a session never
activated (`running`, version 0, worker parked, receipt `activation_pending`) is activated, a parked
prompt-driven agent is told to continue.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import NamedTuple

from oms.canonical import JsonObject, parse_ts
from oms.errors import InvalidInputError, one_line


class PaneSeen(NamedTuple):
    """What tmux shows of a worker's pane."""

    pane_id: str
    dead: bool
    status: int | None
    signal: int | None


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
    """The end to record for a worker (its `health`, the pane tmux shows, the registry, the supervisor's
    exit record and the kill marker), or None while there is none; `group_alive(pgid)` is asked only
    about a pane tmux no longer shows and whose end was not recorded."""
    if (pane is not None and not pane.dead) or health == "stopped":
        return None
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
    elif signum:
        reason, detail = "signal", f"the agent was killed by signal {signum}"
    elif status is not None:
        reason, detail = "exit", f"the agent exited with status {status}"
    elif pane is None:
        reason, detail = "exit", "the pane and every process in it are gone (the end was not recorded)"
    else:
        reason, detail = "exit", "the agent exited (its status was not recorded)"
    if pane is None and ended is not None:
        detail += "; its tmux pane is gone"
    return End(reason, one_line(detail), pane_id)


class AfterEnsure(StrEnum):
    """What a launch does once `Panes.ensure` answered."""

    ACTIVATE = "activate"  # this launcher created the pane: it (alone) types the instruction
    PARK_PENDING = "park-pending"  # another launcher made it: park `activation_pending`, type nothing
    NOTHING = "nothing"  # nothing to type (a command worker) in a pane another launcher made


def after_ensure(status: str, *, prompted: bool) -> AfterEnsure:
    """`status` is `created` or `reused`; `prompted`: the agent starts work only once told to."""
    if status == "created":
        return AfterEnsure.ACTIVATE
    return AfterEnsure.PARK_PENDING if prompted else AfterEnsure.NOTHING


STEPS = {"pane": "registering the pane", "session": "registering the session"}


class Aftermath(NamedTuple):
    """What a failed step after the pane exists leaves: end the pane?, and why the worker is parked."""

    end_pane: bool
    reason: str


def after_pane_failure(step: str, message: str, *, created: bool) -> Aftermath:
    """A step of `STEPS` failed with `message`; `created`: this launch created the pane."""
    return Aftermath(created, one_line(f"{STEPS[step]} failed: {message}"))


def after_failed_activation(pane: PaneSeen | None) -> str | None:
    """None: the pane lives, park `activation_pending`; else the end reason of session and worker."""
    if pane is not None and not pane.dead:
        return None
    return "exit" if pane is not None else "stopped"


def check_park(session_state: str, health: str, parked_until: object, until: str) -> None:
    """May a worker park until `until`? (`InvalidInputError` says why not.)"""
    if session_state not in ("running", "stalled", "parked"):
        raise InvalidInputError(f"worker cannot park from session {session_state}")
    if health not in ("healthy", "stalled", "parked"):
        raise InvalidInputError(f"worker cannot park from health {health}")
    if session_state == "parked" and parked_until != until:
        raise InvalidInputError("worker is already parked until a different time")


def check_resume(session_state: str, health: str, *, pane_live: bool, parked_until: object, now: str) -> None:
    """May a launched worker resume now? (`InvalidInputError` says why not.)"""
    if session_state not in ("parked", "running") or health not in ("parked", "healthy"):
        raise InvalidInputError(f"worker cannot resume from session {session_state} and health {health}")
    if not pane_live:
        raise InvalidInputError("worker cannot resume without its live bound pane")
    due = isinstance(parked_until, str) and parse_ts(now) >= parse_ts(parked_until)
    if session_state == "parked" and not due:
        raise InvalidInputError(f"worker resume is not due (parked until {parked_until})")


class ResumeKeys(StrEnum):
    """What `oms worker resume` types into the pane."""

    ACTIVATE = "activate"  # the instruction: the agent never took it
    NUDGE = "nudge"  # "continue": it was interrupted
    NOTHING = "nothing"


def resume_keys(
    session_state: str, session_version: int, health: str, *, activation_pending: bool, prompted: bool
) -> ResumeKeys:
    """The keys a resume types (after `check_resume`)."""
    never_activated = session_state == "running" and session_version == 0 and health == "parked"
    if never_activated and activation_pending:
        return ResumeKeys.ACTIVATE
    if (session_state == "parked" or health == "parked") and prompted:
        return ResumeKeys.NUDGE
    return ResumeKeys.NOTHING
