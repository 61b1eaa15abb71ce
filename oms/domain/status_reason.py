"""Why a ticket is where it is, in one short phrase (`oms status`'s reason column): what it waits
for, why it is blocked, why its worker is parked, what a person must fix — and the one phrase of a
dispatch that waits for a person's approval (`awaits_approval`: its role needs one, ADR 0008's
amendment `waits`), which every view of it, and the conductor's tick, shows as it is.

A wait for a person's approval is bounded (`past_wait`): past `[pool] approval_wait_minutes` since
the dispatch was proposed, the conductor rejects it with `waited_out`'s reason and blocks its
ticket, freeing its pool slot; nothing is launched.
"""

from __future__ import annotations

from oms.canonical import parse_ts
from oms.domain.conductor import NEEDS_PERSON
from oms.errors import InvalidInputError
from oms.schemas.payloads import TicketPayload, WorkerPayload


def awaits_approval(dispatch_id: str, role_id: str) -> str:
    """What a proposed dispatch whose role needs a person's approval waits for, with the commands
    that decide it."""
    return (
        f"{dispatch_id} waits for a person's approval (role {role_id} needs one): "
        f"oms dispatch approve {dispatch_id} (or oms dispatch reject {dispatch_id} --reason WHY)"
    )


def approved_waits_rest(dispatch_id: str, rest: str) -> str:
    """What a dispatch a person approved waits for while its provider rests by a rest begun since
    its routing (`rest`: that rest, as `providers.rest_since_routed` says it)."""
    return f"{dispatch_id}, approved by a person, waits: {rest}"


def past_wait(created_at: str, wait_minutes: int, now: str) -> bool:
    """Has a dispatch proposed at `created_at` waited `wait_minutes` or more for its approval?"""
    return parse_ts(now) - parse_ts(created_at) >= wait_minutes * 60_000


def waited_out(dispatch_id: str, ticket_id: str, role_id: str, wait_minutes: int) -> str:
    """Why the conductor rejected a dispatch whose person's approval never came, and blocked its
    ticket."""
    return (
        f"no person approved {dispatch_id} within {wait_minutes} minutes (role {role_id} needs "
        f"one): the conductor rejected it; oms ticket reopen {ticket_id} to try again"
    )


def ticket_reason(
    state: str,
    payload: TicketPayload,
    worker: WorkerPayload | None,
    now_ms: int | None = None,
    awaiting: str | None = None,
) -> str:
    """The phrase for a ticket in `state` with `payload`, its current attempt's worker's payload
    (None: no worker yet), the time now in ms since the epoch (for a backoff still running), and
    what its attempt's dispatch waits for (`awaits_approval`; None: no person is waited for)."""
    said = payload["reason"] or None
    if state == "open":
        if said is not None and said.startswith(NEEDS_PERSON):
            return said
        retry = payload.get("retry_after")
        if retry is not None and (now_ms is None or _ms(retry) > now_ms):
            return f"waits to retry at {retry}" + (f" ({said})" if said else "")
        attempt = payload["attempt"]
        nth = f"attempt {attempt}: " if attempt > 1 else ""
        if said is not None:
            return f"waits for a free slot ({nth}{said})"
        return "waits for a free slot"
    if state == "leased":
        if worker is None and awaiting is not None:
            return awaiting
        if worker is None:
            return "leased: its dispatch is on its way (review, acceptance)"
        health, why = worker["health"], worker["health_reason"]
        because = f": {why}" if why else ""
        if health == "parked":
            return f"worker parked{because}"
        if health == "stalled":
            return f"worker stalled{because or ': no heartbeat'}"
        if health == "stopped":
            return f"worker ended ({worker['end_reason']}): its result is being decided"
        return "worker running"
    if state == "blocked":
        return f"blocked: {said or 'a person decides'}"
    return said or ""


def _ms(at: str) -> int:
    try:
        return parse_ts(at)
    except InvalidInputError:
        return 0


def fit(text: str, width: int) -> str:
    """`text` cut to `width` characters (its end shown as `…`; nothing at width 0 or less)."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"
