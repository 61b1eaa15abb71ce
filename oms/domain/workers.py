"""The worker record (id = dispatch id): activity and health, two small machines. Pure.

Activity: `idle -> working -> done | blocked`, `idle -> blocked`; `done` and `blocked` are terminal.
Health: `healthy <-> parked`, `healthy <-> stalled`, `stalled -> parked`, anything `-> stopped`
(terminal).

What its agent is doing (`agent`, what `oms status`, `oms worker observe` and the conductor show
beside activity and health, which say what the attempt is): `ended` once the worker or its session
has ended, `not-started` before its session, `parked` while either is parked, `stopped` while the
agent rests — its Stop was let through (`agent_stopped_at`: its result is recorded, or the Stop
gate's cap let it go) and no hook came more than a beat after it (a Codex goal's next turn goes on
by itself) —, `starting` until both of its channels have spoken, else `working`.
"""

from __future__ import annotations

from enum import StrEnum

from oms.canonical import JsonObject, parse_ts
from oms.domain.machine import Next, Payload, step, with_fields, worker_with
from oms.errors import IllegalTransitionError, one_line
from oms.limits import LIMITS
from oms.schemas.payloads import WorkerPayload


class Activity(StrEnum):
    """What the worker is doing."""

    IDLE = "idle"
    WORKING = "working"
    DONE = "done"
    BLOCKED = "blocked"


class Health(StrEnum):
    """How the worker is."""

    HEALTHY = "healthy"
    PARKED = "parked"
    STALLED = "stalled"
    STOPPED = "stopped"


class Agent(StrEnum):
    """What the worker's agent is doing, as its worker and session records say."""

    NOT_STARTED = "not-started"
    STARTING = "starting"
    WORKING = "working"
    STOPPED = "stopped"
    PARKED = "parked"
    ENDED = "ended"


ACTIVITY: dict[str, dict[str, str]] = {
    "working": {"idle": "working"},
    "done": {"idle": "done", "working": "done"},
    "blocked": {"idle": "blocked", "working": "blocked"},
}
HEALTH: dict[str, dict[str, str]] = {
    "healthy": {"parked": "healthy", "stalled": "healthy"},
    "parked": {"healthy": "parked", "stalled": "parked"},
    "stalled": {"healthy": "stalled"},
    "stopped": {"healthy": "stopped", "parked": "stopped", "stalled": "stopped"},
}


def new(
    dispatch_id: str, dispatch: JsonObject, *, updated_at: str, host: str | None = None
) -> Next[WorkerPayload]:
    """The idle, healthy worker reserved by an accepted dispatch, on `host` (the host that accepted
    it, which delivers it: `domain/hosts.py`; None: a record without one, every reader's)."""
    payload: JsonObject = {
        "dispatch_id": dispatch_id,
        "ticket_id": dispatch["ticket_id"],
        "session_id": dispatch["session_id"],
        "role_id": dispatch["role_id"],
        "provider_mode": dispatch["provider_mode"],
        "worktree_id": dispatch["worktree_id"],
        "health": Health.HEALTHY,
        "updated_at": updated_at,
        "end_reason": None,
        "end_detail": None,
        "health_reason": None,
    }
    if host is not None:
        payload["host"] = host
    return Next(Activity.IDLE, worker_with(payload))


def set_activity(
    state: str,
    payload: Payload,
    activity: str,
    *,
    now: str,
    end_reason: str | None = None,
    end_detail: str | None = None,
) -> Next[WorkerPayload]:
    """Move the activity machine."""
    target = step("worker activity", ACTIVITY, state, activity)
    ended = with_fields(payload, end_reason=end_reason)  # a reason the schema checks
    return Next(target, worker_with(ended, updated_at=now, end_detail=end_detail))


def mark_parked(
    state: str, payload: WorkerPayload, *, now: str, reason: str
) -> Next[WorkerPayload]:
    """A parked worker stays parked, for another reason (e.g. its attempt was fenced while it was
    parked)."""
    if payload["health"] != "parked":
        raise IllegalTransitionError("worker health", payload["health"], "mark-parked")
    return Next(state, worker_with(payload, updated_at=now, health_reason=reason))


def set_health(
    state: str, payload: WorkerPayload, health: str, *, now: str, reason: str | None = None
) -> Next[WorkerPayload]:
    """Move the health machine (the activity state is unchanged); `reason` says why (e.g.
    `hooks_silent`)."""
    step("worker health", HEALTH, str(payload["health"]), health)
    moved = with_fields(payload, health=health)  # a health the table allowed
    return Next(state, worker_with(moved, updated_at=now, health_reason=reason))


def change(
    state: str,
    payload: Payload,
    *,
    now: str,
    health: str | None = None,
    reason: str | None = None,
    activity: str | None = None,
    end_reason: str | None = None,
    end_detail: str | None = None,
) -> Next[WorkerPayload]:
    """Health first (with its reason), then activity (with its end reason); at least one is
    given."""
    if health is None and activity is None:
        raise IllegalTransitionError("worker", state, "change nothing")
    nxt = Next(state, worker_with(payload))
    if health is not None:
        nxt = set_health(nxt.state, nxt.payload, health, now=now, reason=reason)
    if activity is not None:
        nxt = set_activity(
            nxt.state, nxt.payload, activity, now=now, end_reason=end_reason, end_detail=end_detail
        )
    return nxt


def unsalvaged(error: str) -> str:
    """How an end whose salvage failed says so (its work was left in the worktree)."""
    return f"its work was NOT salvaged ({error}); it stays in the worktree"


def end(
    state: str,
    payload: WorkerPayload,
    *,
    now: str,
    end_reason: str,
    detail: str,
    salvage: JsonObject | None = None,
) -> Next[WorkerPayload] | None:
    """The worker whose pane ended or was stopped: health `stopped`, an `idle` or `working` activity
    `blocked`, and the end reason recorded — the first one stays; `salvage` (the `salvage_*` fields
    naming where its uncommitted work was kept) is recorded with it, and a salvage that failed is
    said in the end's detail too. None when nothing is left to change."""
    health = Health.STOPPED if payload["health"] != "stopped" else None
    activity = Activity.BLOCKED if state in (Activity.IDLE, Activity.WORKING) else None
    if health is None and activity is None:
        return None
    kept = {
        k: v for k, v in (salvage or {}).items() if k.startswith("salvage_") and k not in payload
    }
    failed = kept.get("salvage_error")
    if isinstance(failed, str):  # said where every end is shown, not only in its own field
        detail = f"{detail}; {unsalvaged(failed)}"
    nxt = Next(state, worker_with(with_fields(payload, **kept)))
    if health is not None:
        nxt = set_health(nxt.state, nxt.payload, health, now=now)
    if activity is not None:
        return set_activity(
            nxt.state,
            nxt.payload,
            activity,
            now=now,
            end_reason=end_reason,
            end_detail=one_line(detail),
        )
    if nxt.payload.get("end_reason") is None:
        ended = with_fields(nxt.payload, end_reason=end_reason)
        return Next(nxt.state, worker_with(ended, end_detail=one_line(detail)))
    return nxt


def agent(
    health: object,
    activity: str,
    session_state: str | None,
    session: JsonObject | None,
) -> Agent:
    """What the worker's agent is doing (the module's docstring): from its worker's health and
    activity and its session's state and payload (None: no session yet)."""
    if health == Health.STOPPED or session_state == "stopped":
        return Agent.ENDED
    if session_state is None or session is None:
        return Agent.NOT_STARTED
    if health == Health.PARKED or session_state == "parked":
        return Agent.PARKED
    stopped, heard = session.get("agent_stopped_at"), session.get("last_observed_at")
    if isinstance(stopped, str):
        quiet = (
            not isinstance(heard, str) or parse_ts(heard) <= parse_ts(stopped) + LIMITS.hook_beat_ms
        )
        if quiet:
            return Agent.STOPPED
    return Agent.STARTING if activity == Activity.IDLE else Agent.WORKING
