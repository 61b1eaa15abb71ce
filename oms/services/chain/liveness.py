"""The liveness proof: a delivered worker counts as alive only once both channels have spoken.

The hooks (any provider hook, carrying the delivery nonce) and the bridge (`acknowledge_dispatch`,
carrying the same nonce) each record one immutable event the first time they prove themselves. The
nonce is derived from (delivery event, consumer) and handed to hooks and bridge through their
environment, so a hook or bridge of another session cannot stand in. If either channel is still
silent at the deadline, the worker is parked with `hooks_silent` or `bridge_silent` and its pane is
kept for inspection. Delivery leaves the worker `idle`; whichever channel proves itself second moves
it to `working`.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from oms.canonical import JsonObject, access, add_ms, equal, operation_nonce, parse_ts, stable_id
from oms.domain import workers
from oms.domain.machine import Next
from oms.errors import AuthorityChangedError, ConflictError
from oms.schemas.payloads import SessionState, WorkerState
from oms.services.chain import worker_moves
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import dispatch_payload, worker_payload

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload

CONSUMER = "oms-worker-delivery"
DEADLINE_MS = 120_000


def expected_nonce(dispatch: Record) -> str:
    """The nonce of the dispatch's delivery."""
    return operation_nonce(access.text(dispatch.payload, "delivery_event_id"), CONSUMER)


def _check(dispatch: Record, nonce: str | None, channel: str) -> str:
    want = expected_nonce(dispatch)
    if nonce is None or not equal(nonce, want):
        raise AuthorityChangedError(f"{channel} did not present this delivery's nonce")
    return want


def bridge_event_id(session_id: str) -> str:
    """The event that proves the bridge of `session_id`."""
    return stable_id("live-bridge", session_id)


def hook_event_id(session_id: str) -> str:
    """The event that proves the hooks of `session_id`."""
    return stable_id("live-hook", session_id)


def _record(ws: Workspace, event_id: str, event_type: str, payload: JsonObject) -> None:
    if ws.store.events.exists(event_id):
        return
    with contextlib.suppress(
        ConflictError
    ):  # another hook of the session won the race: proven either way
        ws.store.events.create(event_id, event_type, ws.now(), payload)


def record_bridge(ws: Workspace, dispatch: Record, nonce: str | None) -> None:
    """The bridge proved itself (called by `acknowledge_dispatch`)."""
    session_id = dispatch_payload(dispatch)["session_id"]
    _record(
        ws,
        bridge_event_id(session_id),
        "bridge-acknowledged",
        {
            "session_id": session_id,
            "dispatch_id": dispatch.record_id,
            "nonce": _check(dispatch, nonce, "bridge"),
        },
    )
    promote(ws, dispatch.record_id, session_id)


def record_hook(
    ws: Workspace,
    dispatch: Record,
    nonce: str | None,
    provider: str,
    hook_event: str,
    native_ref: str,
) -> None:
    """A hook proved itself."""
    session_id = dispatch_payload(dispatch)["session_id"]
    _record(
        ws,
        hook_event_id(session_id),
        "hook-observed",
        {
            "session_id": session_id,
            "dispatch_id": dispatch.record_id,
            "nonce": _check(dispatch, nonce, "hook"),
            "provider": provider,
            "hook_event": hook_event,
            "native_session_ref": native_ref,
        },
    )
    promote(ws, dispatch.record_id, session_id)


def promote(ws: Workspace, dispatch_id: str, session_id: str) -> bool:
    """Move a healthy `idle` worker to `working` once both channels are proven; True if it is
    working."""
    if not all(channels(ws, session_id).values()):
        return False

    def decide(
        worker: Record, now: str
    ) -> Next[WorkerPayload] | None:  # the two channels race to be second
        if worker.state != WorkerState.IDLE or worker_payload(worker)["health"] != "healthy":
            return None
        return workers.set_activity(worker.state, worker.payload, "working", now=now)

    def op(worker: Record) -> str:
        return stable_id("wkr-live", dispatch_id, worker.version)

    moved = worker_moves.move(ws, dispatch_id, decide, op=op, actor="oms-liveness")
    return (moved or ws.store.records("worker").read(dispatch_id)).state == WorkerState.WORKING


def channels(ws: Workspace, session_id: str) -> JsonObject:
    """Which channels have proven themselves."""
    events = ws.store.events
    return {
        "hooks": events.exists(hook_event_id(session_id)),
        "bridge": events.exists(bridge_event_id(session_id)),
    }


def silent(ws: Workspace, session: Record, since: str) -> str | None:
    """`hooks_silent` / `bridge_silent` once the deadline after the session's registration (or
    `since`, the worker's last transition, e.g. a resume) has passed without that channel, else
    None."""
    if session.state != SessionState.RUNNING:
        return None
    live = channels(ws, session.record_id)
    registered = ws.store.records("session").read_version(session.record_id, 0).observed_at
    start = max(registered, since, key=parse_ts)
    if parse_ts(ws.now()) < parse_ts(add_ms(start, DEADLINE_MS)):
        return None
    if not live["hooks"]:
        return "hooks_silent"
    if not live["bridge"]:
        return "bridge_silent"
    return None
