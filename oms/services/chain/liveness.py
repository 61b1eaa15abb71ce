"""The liveness proof: a delivered worker counts as alive only once both channels have spoken.

The hooks (any provider hook, carrying the delivery nonce) and the bridge (`acknowledge_dispatch`,
carrying the same nonce) each record one immutable event the first time they prove themselves. The
nonce is derived from (delivery event, consumer) and handed to hooks and bridge through their
environment, so a hook or bridge of another session cannot stand in. If either channel is still
silent at the deadline, the worker is parked with `hooks_silent` or `bridge_silent` and its pane is
kept for inspection. Delivery leaves the worker `idle`; whichever channel proves itself second moves
it to `working`.

Before any of that, the deliverer types the instruction only once the agent has oms's tools: its
bridge's first `tools/list` on a connection is noted by the broker (`record_listing`), one
create-once `bridge-listed` event per session and pane — the pane's first process the session names
(`pane_process`), the supervisor that hosts the broker —, so a relaunch in a new pane waits for its
own bridge (ADR 0011 amendment `toolsready`). Only the broker's own observation counts, under the
same nonce check as the bridge's proof; `tools_listed` is the deliverer's question.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from oms.canonical import JsonObject, add_ms, equal, operation_nonce, parse_ts, stable_id
from oms.domain import own_pane, workers
from oms.domain.machine import Next
from oms.errors import AuthorityChangedError, ConflictError
from oms.limits import LIMITS
from oms.schemas.payloads import SessionState, WorkerState
from oms.services.chain import worker_moves
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import dispatch_payload, text_set, worker_payload

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload

CONSUMER = "oms-worker-delivery"


def expected_nonce(dispatch: Record) -> str:
    """The nonce of the dispatch's delivery."""
    return operation_nonce(
        text_set(dispatch_payload(dispatch)["delivery_event_id"], "delivery_event_id"), CONSUMER
    )


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


def listing_event_id(session_id: str, pane: own_pane.PaneProcess | None) -> str:
    """The event that notes the first `tools/list` of `session_id`'s bridge in `pane` (None: a
    session written before sessions named their pane)."""
    if pane is None:
        return stable_id("live-listed", session_id)
    return stable_id("live-listed", session_id, pane.boot_id, pane.pid, pane.start_ticks)


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


def record_listing(
    ws: Workspace,
    dispatch: Record,
    session_id: str,
    nonce: str | None,
    own: tuple[own_pane.PaneProcess, ...],
) -> None:
    """The bridge of `session_id` answered a `tools/list` in the pane whose first process is one of
    `own` (the broker's supervisor, or a onefile build's bootloader): noted once for that pane.
    Refused (`AuthorityChangedError`) for another session, another delivery's nonce, a session not
    registered, or one that names another pane (a stale pane's bridge never stands in for the
    new one)."""
    if dispatch_payload(dispatch)["session_id"] != session_id:
        raise AuthorityChangedError("the bridge is not bound to the dispatch's session")
    want = _check(dispatch, nonce, "bridge")
    session = ws.store.records("session").read_if_exists(session_id)
    if session is None:
        raise AuthorityChangedError("the bridge listed its tools before its session was registered")
    pane = own_pane.named(session.payload)
    if pane is not None and pane not in own:
        raise AuthorityChangedError(
            f"the bridge listed its tools in a pane not its session's: {own_pane.ANOTHER_PANE}"
        )
    payload: JsonObject = {
        "session_id": session_id,
        "dispatch_id": dispatch.record_id,
        "nonce": want,
    }
    if pane is not None:
        payload["pane_process"] = pane.to_json()
    _record(ws, listing_event_id(session_id, pane), "bridge-listed", payload)


def tools_listed(ws: Workspace, session: Record) -> bool:
    """Has the bridge of `session`'s current pane answered a `tools/list` (`record_listing`)?"""
    pane = own_pane.named(session.payload)
    return ws.store.events.exists(listing_event_id(session.record_id, pane))


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
    if parse_ts(ws.now()) < parse_ts(add_ms(start, LIMITS.channels_silent_ms)):
        return None
    if not live["hooks"]:
        return "hooks_silent"
    if not live["bridge"]:
        return "bridge_silent"
    return None
