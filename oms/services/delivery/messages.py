"""`oms worker send`: a person's message into a live agent's conversation (ADR 0036).

Refused first, before any lock is taken, for an agent that reads nothing from its terminal (its
provider's `takes_messages`: `codex exec`). Then read again and checked, in this order, before
anything is written: the fence (`chain/fence.reason`:
the dispatch, the lease, a GitHub ticket's live authorisation), then what the attempt is
(`domain/messages.check_send`: no result yet, not parked, its session running, its pane live). The
message is recorded — a `worker-message` event with the person's name and the text as typed, noted
in the ledger — before a key reaches the pane, all under the dispatch's typing lock (one message
typed at a time: a second meanwhile is refused), and then typed by the `Activator` that types the
instruction (`adapters/activation.Tui.say`), witnessed the same way (`launch.HookWitness`).

From the fence check until the last key is typed the dispatch's end lock is held too
(`chain/end_lock.py`, taken after the typing lock): a cancel, a lapse or a result takes it before it
writes, so it lands either before the check (the message is refused with its reason) or after the
message was typed, never between (ADR 0036 amendment `sendlock`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from oms.canonical import JsonObject, sha256_hex, stable_id
from oms.domain import messages
from oms.errors import AttemptFencedError, ConflictError, InvalidInputError, LockHeldError
from oms.limits import LIMITS
from oms.services.chain import fence
from oms.services.chain.end_lock import end_lock
from oms.services.delivery import plans
from oms.services.delivery.launch import HookWitness
from oms.store.payloads import dispatch_payload, worker_payload

if TYPE_CHECKING:
    from oms.services.delivery.context import DeliveryContext
    from oms.store.outbox import ProcessingLock

_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
MESSAGE = "worker-message"  # the event a person's message leaves, before it is typed
SENDING = "sending"  # the outbox consumer of the per-dispatch locks a message is typed under


def send(d: DeliveryContext, dispatch_id: str, text: str, *, person: str) -> JsonObject:
    """Record a person's message, then type it into the agent's pane; what was sent and how it
    went (`typed`: "taken", "queued" or "typed", `Tui.say`)."""
    messages.check_size(len(text.encode("utf-8", "surrogatepass")), LIMITS.send_text_bytes)
    said = messages.clean(text)
    who = person.strip()
    messages.check_utf8(who, "the person's name")
    if not who or len(who) > 128 or _CONTROLS.search(who):
        raise InvalidInputError("person must be 1-128 characters without control characters")
    mode = dispatch_payload(d.dispatch(dispatch_id))["provider_mode"]
    messages.check_reads(mode, plans.TAKES_MESSAGES.get(mode, True))  # before any lock or record
    with typing_lock(d, dispatch_id, "nothing sent"), _ending(d, dispatch_id) as ending:
        return _send(d, dispatch_id, said, who, ending)


def typing_lock(d: DeliveryContext, dispatch_id: str, outcome: str) -> ProcessingLock:
    """The dispatch's typing lock: one message or resume typed into its pane at a time (a message
    is its text, a pause and an Enter: a second typed meanwhile joined the first; two resumes at
    once each typed a nudge). Held: refused at once, in one line ending with `outcome`."""
    try:
        return d.ws.store.outbox(SENDING).lock(dispatch_id)
    except LockHeldError as exc:
        raise ConflictError(
            f"a message or a resume of {dispatch_id} is being typed already (by `oms worker "
            f"send`, `oms worker resume`, `oms web` or the conductor); {outcome}",
            hint="run it again once that one is typed",
        ) from exc


def _ending(d: DeliveryContext, dispatch_id: str) -> ProcessingLock:
    """The dispatch's end lock, waited for: an end being recorded meanwhile (a cancel, a lapse, a
    result) lands first, and the fence then refuses the message with its reason."""
    try:
        return end_lock(d.ws, dispatch_id)
    except LockHeldError as exc:
        raise ConflictError(
            f"the attempt of {dispatch_id} is being ended or its result recorded (its end lock "
            f"was held over {LIMITS.end_lock_wait_s:g}s); nothing sent",
            hint=f"see `oms worker observe {dispatch_id}`, then send it again if it still runs",
        ) from exc


def _send(
    d: DeliveryContext, dispatch_id: str, said: str, who: str, ending: ProcessingLock
) -> JsonObject:
    dispatch = d.dispatch(dispatch_id)
    why = fence.reason(d.ws, dispatch)
    if why is not None:
        raise AttemptFencedError(f"worker cannot be sent a message: {why}")
    worker = d.worker(dispatch_id)
    session_id = dispatch_payload(dispatch)["session_id"]
    session = d.session(session_id)
    pane = d.panes.observe(dispatch_id)
    messages.check_send(
        dispatch_state=dispatch.state,
        activity=worker.state,
        health=worker_payload(worker)["health"],
        session_state=None if session is None else session.state,
        pane_live=pane is not None and not pane.dead,
    )
    plan = d.native(dispatch)
    now = d.ws.now()
    digest = sha256_hex(said.encode("utf-8"))
    event_id = stable_id("evt-say", dispatch_id, now, digest)
    d.ws.store.events.create(
        event_id,
        MESSAGE,
        now,
        {
            "dispatch_id": dispatch_id,
            "session_id": session_id,
            "ticket_id": dispatch_payload(dispatch)["ticket_id"],
            "person": who,
            "text": said,
            "text_sha256": digest,
        },
    )
    # each key only while the end lock is still held: on etcd a sender paused or cut off past its
    # lease's TTL lost it, and an end may have been written meanwhile (ADR 0036 `sendlock`)
    typed = d.keys.say(plan, dispatch_id, said, HookWitness(d, dispatch_id, ending.confirm))
    return {
        "dispatch_id": dispatch_id,
        "event_id": event_id,
        "person": who,
        "chars": len(said),
        "typed": typed,
    }
