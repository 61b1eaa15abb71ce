"""A dispatch's end lock: what an attempt's end is written under, and what a message is typed under
(ADR 0036 amendment `sendlock`).

An attempt ends by a record: its dispatch cancelled (`dispatches.cancel`), its lease lapsed
(`tickets.expire_due`), its result recorded (`results.record_result`). Each is written under this
per-dispatch lock, and `oms worker send` holds it from its fence check until its last key is typed:
an end is either recorded before the check (the message is refused with the reason) or after the
message was typed, later in the ledger. The lock names its holder (`fsio/locks.py`): a holder gone,
SIGKILLed too, leaves a lock the next taker breaks, so it never wedges an end. A holder's hold is
bounded: a message's typing by `activation_confirm_s` and `activation_late_s` (and two pauses), a
result's recording by its writes (its git work, tree jobs over files the agent chose, is done
before the lock: ADR 0036 amendment `attack8`); a taker waits `LIMITS.end_lock_wait_s`, then
`LockHeldError` (one line).

Taken outermost: nothing holds another oms lock while it waits for this one (the typing lock of
`delivery/messages.py` is the one taken before it)."""

from __future__ import annotations

from oms.limits import LIMITS
from oms.services.workspace import Workspace
from oms.store.outbox import ProcessingLock

END_LOCKS = "record-result"  # the outbox consumer whose per-dispatch locks these are (its old name)


def end_lock(
    ws: Workspace, dispatch_id: str, *, wait_s: float = LIMITS.end_lock_wait_s
) -> ProcessingLock:
    """Take `dispatch_id`'s end lock, waiting up to `wait_s` for its holder (`LockHeldError`)."""
    return ws.store.outbox(END_LOCKS).lock(dispatch_id, wait_s=wait_s)
