"""Layer 4: the versioned store on fsio (DESIGN.md §2.4, §3).

`Store.open(path)` gives records (per kind), events, the outbox, signed evidence and journals of one
state root. Every read and write goes through fsio, is bounded, canonical and schema-valid.
"""

from __future__ import annotations

from oms.canonical import JsonObject
from oms.fsio import FsioOptions
from oms.limits import LIMITS, Limits
from oms.store.content import TicketContent, WorktreeRecords
from oms.store.events import Event, EventStore
from oms.store.evidence import Evidence, EvidenceStore
from oms.store.journal import Journal
from oms.store.outbox import Outbox, Receipt
from oms.store.records import Record, RecordStore, WriteResult
from oms.store.stateroot import RECORD_KINDS, StateRoot, default_state_root


class Store:
    """All stores of one opened state root."""

    def __init__(self, state: StateRoot, limits: Limits = LIMITS) -> None:
        self.state = state
        self.limits = limits
        self.events = EventStore(state.root, limits)
        self.evidence = EvidenceStore(state.root, state.meta.public_key, state.meta.key_id, limits)
        self.ticket_content = TicketContent(state.root, limits)
        self.worktrees = WorktreeRecords(state.root, limits)

    @classmethod
    def open(cls, path: str, *, options: FsioOptions | None = None, limits: Limits = LIMITS) -> Store:
        """Open an initialised state root."""
        return cls(StateRoot.open(path, options=options), limits)

    @property
    def path(self) -> str:
        """The state root path."""
        return self.state.path

    def records(self, kind: str) -> RecordStore:
        """The records of `kind`."""
        return RecordStore(self.state.root, kind, self.limits)

    def outbox(self, consumer_id: str) -> Outbox:
        """One consumer's outbox."""
        return Outbox(self.state.root, consumer_id, self.limits)

    def journal(self, name: str) -> Journal:
        """An append-only journal."""
        return Journal(self.state.root, name, self.limits)

    def put_evidence(self, body: JsonObject) -> Evidence:
        """Sign `body` with the state key and store it."""
        return self.evidence.put(body, self.state.signer())

    def close(self) -> None:
        """Close the state root."""
        self.state.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "RECORD_KINDS",
    "Event",
    "EventStore",
    "Evidence",
    "EvidenceStore",
    "Journal",
    "Outbox",
    "Receipt",
    "Record",
    "RecordStore",
    "StateRoot",
    "Store",
    "TicketContent",
    "WorktreeRecords",
    "WriteResult",
    "default_state_root",
]
