"""Session lifecycle events (seed 003): registered, activated, parked, resumed, stopped.

One immutable event per lifecycle step of a session, so the timeline shows each step and a consumer
(the conductor) can react to it without diffing records. The event is derived from the session
version it follows: its id names that version and its time is the version's, so writing it again (a
retry, a second deliverer) produces the same bytes and is a no-op, never a conflict.
"""

from __future__ import annotations

from oms.canonical import JsonObject, stable_id
from oms.domain import sessions
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import session_payload, text_set


def event_id(session_id: str, version: int, event_type: str) -> str:
    """The id of the `event_type` event that follows version `version` of session `session_id`."""
    return stable_id("ses-life", session_id, str(version), event_type)


def after_step(ws: Workspace, before: str | None, session: Record) -> None:
    """Record the lifecycle event the step from `before` to `session` is, if it is one."""
    event_type = sessions.lifecycle_event(before, session.state)
    if event_type is not None:
        _record(ws, event_type, session)


def activated(ws: Workspace, session: Record) -> None:
    """The agent took its instruction (delivery saw its first prompt)."""
    _record(ws, "session-activated", session)


def _record(ws: Workspace, event_type: str, session: Record) -> None:
    payload: JsonObject = {
        "session_id": session.record_id,
        "dispatch_id": session_payload(session)["dispatch_id"],
        "session_version": session.version,
    }
    if event_type == "session-parked":
        payload["parked_until"] = text_set(session_payload(session)["parked_until"], "parked_until")
    if event_type == "session-stopped":
        payload["reason"] = text_set(session_payload(session)["stop_reason"], "stop_reason")
    eid = event_id(session.record_id, session.version, event_type)
    if not ws.store.events.exists(eid):
        ws.store.events.create(eid, event_type, session.observed_at, payload)
