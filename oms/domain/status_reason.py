"""Why a ticket is where it is, in one short phrase (`oms status`'s reason column): what it waits
for, why it is blocked, why its worker is parked, what a person must fix."""

from __future__ import annotations

from oms.canonical import parse_ts
from oms.domain.conductor import NEEDS_PERSON
from oms.errors import InvalidInputError
from oms.schemas.payloads import TicketPayload, WorkerPayload


def ticket_reason(
    state: str,
    payload: TicketPayload,
    worker: WorkerPayload | None,
    now_ms: int | None = None,
) -> str:
    """The phrase for a ticket in `state` with `payload`, its current attempt's worker's payload
    (None: no worker yet), and the time now in ms since the epoch (for a backoff still running)."""
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
