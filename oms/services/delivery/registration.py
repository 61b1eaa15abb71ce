"""Registering a launched worker's pane (`panes/<dispatch>.json`) and its session record, with the
session's lifecycle event (`services/delivery/launch.py` and
`services/delivery/native_resume.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.adapters.panes import Pane
from oms.canonical import JsonObject, stable_id
from oms.domain import sessions
from oms.domain.config import role as configured_role
from oms.errors import AuthorityChangedError
from oms.services.delivery import plans, session_events, start_guard
from oms.services.workspace import SYSTEM_ACTOR
from oms.store import Record, panefiles
from oms.store.payloads import as_json, dispatch_payload, session_payload

if TYPE_CHECKING:
    from oms.services.delivery.context import DeliveryContext


def register_pane(d: DeliveryContext, dispatch: Record, pane: Pane) -> bool:
    """Register the pane; True if this call wrote the registry."""
    doc: JsonObject = {
        "format": "oms-pane-v1",
        "dispatch_id": dispatch.record_id,
        "session": pane.session,
        "pane_id": pane.pane_id,
        "pane_pid": pane.pane_pid,
        "provider_mode": dispatch_payload(dispatch)["provider_mode"],
        "created_at": d.ws.now(),
    }
    return panefiles.write_registry(d.ws.store.state.root, doc)


def register_session(d: DeliveryContext, dispatch: Record, pane: Pane, event_id: str) -> Record:
    session_id = dispatch_payload(dispatch)["session_id"]
    now = d.ws.now()
    role = configured_role(d.ws.config(), dispatch_payload(dispatch)["role_id"])
    nxt = sessions.register(
        dispatch=dispatch.payload,
        dispatch_id=dispatch.record_id,
        mode=plans.SESSION_MODE[dispatch_payload(dispatch)["provider_mode"]],
        pane_id=pane.pane_id,
        source_event_id=event_id,
        now=now,
        max_turns=role.max_turns_without_result,
        max_minutes=role.max_minutes_without_result,
        pane_process=start_guard.pane_process(pane.pane_pid).to_json(),  # its supervisor's
    )
    existing = d.session(session_id)
    if existing is not None:
        if session_payload(existing)["dispatch_id"] != dispatch.record_id:
            raise AuthorityChangedError(
                f"session {session_id} belongs to another dispatch",
                hint="a session record was altered outside oms: run `oms store verify`",
            )
        # a launch interrupted after the session was created: its registration event may be missing
        first = d.ws.store.records("session").read_version(session_id, 0)
        session_events.after_step(d.ws, None, first)
        return existing
    op = stable_id("wkr-reg", dispatch.record_id, event_id)
    created = (
        d.ws.store.records("session")
        .create(
            session_id,
            state=nxt.state,
            payload=as_json(nxt.payload),
            operation_id=op,
            actor=SYSTEM_ACTOR,
            observed_at=now,
        )
        .record
    )
    session_events.after_step(d.ws, None, created)
    return created
