"""The agent session record (id = session UUID): `running <-> parked`, `running -> stalled ->
running`, anything `-> stopped` (terminal). Pure.

A `running` or `parked` session whose pane ended is `relaunch`ed (`oms worker resume`): the same
session (the dispatch binds its id), its agent started again in a new pane on its own native session
— running, bound to the new pane, with a fresh heartbeat deadline.

A session's heartbeat deadline is 15 minutes after its last observation (ADR 0016 "Decision 1");
parking needs a parked-until in the future. A session carries its role's bound on a dispatch's life
without a result (`domain/gate.py`): registering and resuming start that bound afresh (no turns
counted since now). Registering and relaunching start the agent, which oms then types a prompt
into: `prompt_due_at` makes the first prompt the agent takes since worth a session version at once
(`gate.worth_writing`), which delivery's witness of the typed text reads.
"""

from __future__ import annotations

from oms.canonical import JsonObject, add_ms, parse_ts
from oms.domain.machine import Next, Payload, session_with, step, with_fields
from oms.errors import InvalidInputError, one_line
from oms.limits import LIMITS
from oms.schemas.payloads import SessionPayload

TABLE: dict[str, dict[str, str]] = {
    "park": {"running": "parked", "stalled": "parked"},
    "resume": {"parked": "running", "stalled": "running"},
    "stall": {"running": "stalled"},
    "observe": {"running": "running"},
    "stop": {"running": "stopped", "parked": "stopped", "stalled": "stopped"},
    "relaunch": {"running": "running", "parked": "running"},
}


def register(
    *,
    dispatch: JsonObject,
    dispatch_id: str,
    mode: str,
    pane_id: str | None,
    source_event_id: str,
    now: str,
    max_turns: int = LIMITS.turns_without_result,
    max_minutes: int = LIMITS.minutes_without_result,
    pane_process: JsonObject | None = None,
) -> Next[SessionPayload]:
    """A new running session bound to a dispatch and its pane (`pane_process`: the pane's first
    process, its supervisor, which starts the agent only on a session naming it:
    `domain/own_pane.py`), with its role's bounds."""
    fields: JsonObject = {
        "dispatch_id": dispatch_id,
        "ticket_id": dispatch["ticket_id"],
        "role_id": dispatch["role_id"],
        "engine": dispatch["engine"],
        "mode": mode,
        "native_session_ref": dispatch["session_id"],
        "tmux_pane_id": pane_id,
    }
    if pane_process is not None:
        fields["pane_process"] = pane_process
    return Next(
        "running",
        session_with(
            fields,
            source_event_id=source_event_id,
            last_observed_at=now,
            heartbeat_deadline_at=add_ms(now, LIMITS.session_heartbeat_ms),
            parked_until=None,
            stop_reason=None,
            stop_blocks=0,
            agent_stopped_at=None,
            turns_without_result=0,
            progress_since=now,
            max_turns_without_result=max_turns,
            max_minutes_without_result=max_minutes,
            agent_prompted_at=None,
            prompt_due_at=now,
        ),
    )


def park(state: str, payload: JsonObject, *, until: str, now: str) -> Next[SessionPayload]:
    """Park until `until` (which must be in the future)."""
    if parse_ts(until) <= parse_ts(now):
        raise InvalidInputError(f"parked-until {until} must be in the future (now {now})")
    return Next(
        step("session", TABLE, state, "park"),
        session_with(payload, parked_until=until, last_observed_at=now),
    )


def resume(state: str, payload: JsonObject, *, now: str) -> Next[SessionPayload]:
    """Back to running, with a fresh heartbeat deadline and a fresh bound (the Stop gate
    re-armed)."""
    return Next(
        step("session", TABLE, state, "resume"),
        session_with(
            payload,
            parked_until=None,
            last_observed_at=now,
            heartbeat_deadline_at=add_ms(now, LIMITS.session_heartbeat_ms),
            turns_without_result=0,
            progress_since=now,
            stop_blocks=0,
            agent_stopped_at=None,
        ),
    )


def relaunch(
    state: str,
    payload: JsonObject,
    *,
    pane_id: str,
    now: str,
    pane_process: JsonObject | None = None,
) -> Next[SessionPayload]:
    """The agent relaunched in a new pane (`pane_process`: its first process) on its native
    session."""
    if pane_process is not None:
        payload = with_fields(payload, pane_process=pane_process)
    return Next(
        step("session", TABLE, state, "relaunch"),
        session_with(
            payload,
            tmux_pane_id=pane_id,
            parked_until=None,
            stop_blocks=0,
            agent_stopped_at=None,
            last_observed_at=now,
            heartbeat_deadline_at=add_ms(now, LIMITS.session_heartbeat_ms),
            # like a resume: the bound on a life without a result starts afresh
            turns_without_result=0,
            progress_since=now,
            prompt_due_at=now,
        ),
    )


def heartbeat(state: str, payload: Payload, *, now: str) -> Next[SessionPayload]:
    """An observation: extends the heartbeat deadline."""
    return Next(
        step("session", TABLE, state, "observe"),
        session_with(
            payload,
            last_observed_at=now,
            heartbeat_deadline_at=add_ms(now, LIMITS.session_heartbeat_ms),
        ),
    )


def stop(state: str, payload: JsonObject, *, reason: str, now: str) -> Next[SessionPayload]:
    """End the session."""
    return Next(
        step("session", TABLE, state, "stop"),
        session_with(
            payload, stop_reason=one_line(reason, default="stopped"), last_observed_at=now
        ),
    )


def lifecycle_event(before: str | None, after: str) -> str | None:
    """The lifecycle event a session transition from `before` (None: registration) to `after` is, if
    any (seed 003: registered, parked, resumed, stopped; a heartbeat or a stall is none)."""
    if before is None:
        return "session-registered" if after == "running" else None
    if after == "stopped" and before != "stopped":
        return "session-stopped"
    if after == "parked" and before != "parked":
        return "session-parked"
    if after == "running" and before in ("parked", "stalled"):
        return "session-resumed"
    return None
