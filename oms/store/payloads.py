"""A record's payload typed: its kind's TypedDict (`oms/schemas/payloads.py`, generated from the
schemas; docs/adr/0044-typed-payloads.md).

Every `Record` the store hands out holds a payload its kind's schema accepted: a version read is
validated as it is parsed (`documents.parse_document`), a version written before it is published
(`documents.encode_document`), and the record summary keeps authenticated copies of those. So the
cast below states what the validator has already proven; this module is its one home. A payload is
read-only: a new version's payload is built as its kind's TypedDict (so mypy checks its keys and
values) and handed to the store as the JSON it is by `as_json`, the other cast here; the store
validates it against the schema before it is written, as every version.

The TypedDicts are imported for mypy only (the casts name them as strings): importing this module
costs no more than the store's, which the agent's doors count on
(docs/adr/0010-fast-agent-doors.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from oms.errors import IntegrityError

if TYPE_CHECKING:
    from typing import TypedDict

    from oms.canonical import JsonObject
    from oms.schemas.payloads import (
        AuthorizationPayload,
        ChangesRequested,
        DispatchPayload,
        PoolPayload,
        ProviderPayload,
        SessionPayload,
        TicketPayload,
        WorkerPayload,
    )
    from oms.store.events import Event
    from oms.store.records import Record

    class VerificationRecorded(TypedDict):
        """A `verification-recorded` event's payload (schemas/event.schema.json; ADR 0043
        amendment `results`): written by hand, as no event type has a generated TypedDict."""

        dispatch_id: str
        evidence: str
        host: str

    Typed = (
        AuthorizationPayload
        | DispatchPayload
        | PoolPayload
        | ProviderPayload
        | SessionPayload
        | TicketPayload
        | WorkerPayload
        | ChangesRequested
    )


def _of(record: Record, kind: str) -> JsonObject:
    if record.kind != kind:
        raise IntegrityError(f"{record.kind} {record.record_id} is not a {kind} record")
    return record.payload


def authorization_payload(record: Record) -> AuthorizationPayload:
    """An authorization record's payload."""
    return cast("AuthorizationPayload", _of(record, "authorization"))


def dispatch_payload(record: Record) -> DispatchPayload:
    """A dispatch record's payload."""
    return cast("DispatchPayload", _of(record, "dispatch"))


def pool_payload(record: Record) -> PoolPayload:
    """A pool record's payload."""
    return cast("PoolPayload", _of(record, "pool"))


def provider_payload(record: Record) -> ProviderPayload:
    """A provider record's payload."""
    return cast("ProviderPayload", _of(record, "provider"))


def session_payload(record: Record) -> SessionPayload:
    """A session record's payload."""
    return cast("SessionPayload", _of(record, "session"))


def ticket_payload(record: Record) -> TicketPayload:
    """A ticket record's payload."""
    return cast("TicketPayload", _of(record, "ticket"))


def worker_payload(record: Record) -> WorkerPayload:
    """A worker record's payload."""
    return cast("WorkerPayload", _of(record, "worker"))


def verification_recorded(event: Event) -> VerificationRecorded:
    """A `verification-recorded` event's payload: the event was validated against its type's
    payload schema as it was parsed, as a record's payload is."""
    if event.event_type != "verification-recorded":
        raise IntegrityError(f"event {event.event_id} is not a verification-recorded event")
    return cast("VerificationRecorded", event.payload)


def text_set(value: str | None, key: str) -> str:
    """A nullable text field of a typed payload that must be set by now (a ticket's `session_id`
    once leased, a dispatch's `accepted_at` once accepted): its value, or the IntegrityError
    `access.text` raises for it (the check is the point of such a read)."""
    if value is None:
        raise IntegrityError(f"field {key!r} is not text")
    return value


def as_json(payload: Typed) -> JsonObject:
    """A payload built as its kind's TypedDict (or a part of one), handed on as the JSON object it
    is: no copy, no conversion (the store validates a version before it writes it)."""
    return cast("JsonObject", payload)
