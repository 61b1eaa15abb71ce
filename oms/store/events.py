"""Immutable events: `events/<event-id>.json`, written once, never changed.

Creating an event that already exists with identical bytes is an idempotent replay; with different
bytes it is a `ConflictError` and nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable
from stat import S_ISREG
from typing import NamedTuple

from oms.canonical import JsonObject, access, check, parse_ts
from oms.errors import (
    ConflictError,
    IntegrityError,
    NotFoundError,
    RecordNotFoundError,
)
from oms.fsio import Root
from oms.limits import LIMITS, Limits
from oms.store.backend import Backend, Fence, Files
from oms.store.documents import encode_document, parse_document

EVENTS_DIR = "events"


class Event(NamedTuple):
    """One parsed, validated event."""

    event_id: str
    event_type: str
    created_at: str
    payload: JsonObject


def parse_event(data: bytes, event_id: str, where: str) -> Event:
    """Parse an event file and check that it is the event its name says."""
    doc = parse_document(data, "event", where)
    event = Event(
        access.text(doc, "event_id"),
        access.text(doc, "event_type"),
        access.text(doc, "created_at"),
        access.obj(doc, "payload"),
    )
    check(event.event_id, f"{where}: event_id")
    parse_ts(event.created_at, f"{where}: created_at")
    if event.event_id != event_id:
        raise IntegrityError(f"{where}: holds event {event.event_id} (expected {event_id})")
    return event


class EventStore:
    """The events of a state root."""

    def __init__(
        self,
        root: Root,
        limits: Limits = LIMITS,
        *,
        backend: Backend | None = None,
        fenced_by: Callable[[], Fence | None] | None = None,
    ) -> None:
        self.root = root
        self.limits = limits
        self.backend: Backend = Files(root) if backend is None else backend
        self.fenced_by = fenced_by  # the fence of the lock held now, if any (`Store.fence`)

    def _rel(self, event_id: str) -> str:
        return f"{EVENTS_DIR}/{check(event_id, 'event id')}.json"

    def create(
        self, event_id: str, event_type: str, created_at: str, payload: JsonObject
    ) -> tuple[Event, bool]:
        """Write the event once; returns it and whether this call created it."""
        rel = self._rel(event_id)
        doc: JsonObject = {
            "format": "oms-event-v1",
            "event_id": event_id,
            "event_type": event_type,
            "created_at": created_at,
            "payload": payload,
        }
        data = encode_document(doc, "event", rel, self.limits.event_bytes)
        parse_ts(created_at, "created_at")
        fence = None if self.fenced_by is None else self.fenced_by()
        existing = self.backend.create_once(
            "event", rel, data, self.limits.event_bytes, fence=fence
        )
        if existing is None:
            return parse_event(data, event_id, rel), True
        if existing != data:
            raise ConflictError(f"event {event_id} already exists with different content")
        return parse_event(existing, event_id, rel), False

    def read(self, event_id: str, event_type: str | None = None) -> Event:
        """Read event `event_id`, optionally requiring its type."""
        rel = self._rel(event_id)
        data = self.backend.read(rel, self.limits.event_bytes)
        if data is None:
            raise RecordNotFoundError(f"no event {event_id}")
        event = parse_event(data, event_id, rel)
        if event_type is not None and event.event_type != event_type:
            raise IntegrityError(f"event {event_id} is {event.event_type} (expected {event_type})")
        return event

    def exists(self, event_id: str) -> bool:
        """Whether event `event_id` is stored as a regular file (one lookup, however many events
        exist)."""
        if not isinstance(self.backend, Files):
            return self.backend.read(self._rel(event_id), self.limits.event_bytes) is not None
        try:
            found = self.root.lstat(self._rel(event_id))
        except NotFoundError:
            return False
        return found is not None and S_ISREG(found.st_mode)

    def ids(self) -> list[str]:
        """Every event id (sorted)."""
        names = self.backend.names(EVENTS_DIR)
        return [
            name[: -len(".json")]
            for name in names
            if name.endswith(".json") and not name.startswith(".")
        ]
