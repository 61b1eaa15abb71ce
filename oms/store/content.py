"""Ticket content and worktree records: write-once documents beside the versioned records.

`tickets/<ticket-id>/<sha256>.json` holds a ticket's materialised content, named by the sha256 of
its exact bytes and re-verified (sha256, canonical form, schema, ticket id) on every read, so
tampered content is refused; on an etcd store it is that key under the store's prefix, created once
with its ledger entry, so every host reads the ticket it fills (ADR 0043, amendment `etcdtick`).
`worktree-records/<ticket-id>.json` is the worktree oms created for a
ticket, written once.
"""

from __future__ import annotations

from oms.canonical import JsonObject, check, equal, sha256_hex
from oms.canonical.ids import SHA256
from oms.errors import (
    AlreadyExistsError,
    ConflictError,
    IntegrityError,
    NotFoundError,
    RecordNotFoundError,
)
from oms.fsio import Root
from oms.limits import LIMITS, Limits
from oms.store import ledger
from oms.store.backend import Backend
from oms.store.documents import encode_document, parse_document

TICKETS_DIR = "tickets"
WORKTREES_DIR = "worktree-records"


def parse_content(data: bytes, ticket_id: str, sha256: str, where: str) -> JsonObject:
    """Verify stored ticket content against its address and owner."""
    if not equal(sha256_hex(data), sha256):
        raise IntegrityError(f"{where}: content does not match its sha256 (tampered)")
    doc = parse_document(data, "ticket-content", where)
    if doc["ticket_id"] != ticket_id:
        raise IntegrityError(f"{where}: content belongs to ticket {doc['ticket_id']}")
    return doc


def parse_worktree(data: bytes, ticket_id: str, where: str) -> JsonObject:
    """Verify a stored worktree record."""
    doc = parse_document(data, "worktree-record", where)
    if doc["ticket_id"] != ticket_id:
        raise IntegrityError(f"{where}: record belongs to ticket {doc['ticket_id']}")
    return doc


class TicketContent:
    """Content-addressed ticket bodies."""

    def __init__(
        self, root: Root, limits: Limits = LIMITS, *, backend: Backend | None = None
    ) -> None:
        self.root = root
        self.limits = limits
        self.backend = backend  # None: the state root's files

    def _encode(self, doc: JsonObject) -> tuple[str, bytes]:
        ticket_id = check(doc.get("ticket_id"), "ticket id")
        return ticket_id, encode_document(
            doc, "ticket-content", f"{TICKETS_DIR}/{ticket_id}", self.limits.evidence_bytes
        )

    def address(self, doc: JsonObject) -> str:
        """The sha256 `put` would store `doc` under, storing nothing (schema-checked the same
        way)."""
        return sha256_hex(self._encode(doc)[1])

    def put(self, doc: JsonObject) -> str:
        """Store `doc` (schema `ticket-content`); returns its sha256. Idempotent."""
        ticket_id, data = self._encode(doc)
        sha = sha256_hex(data)
        if self.backend is not None:  # etcd: created once with its ledger entry
            rel = f"{TICKETS_DIR}/{ticket_id}/{sha}.json"
            there = self.backend.create_once("content", rel, data, self.limits.evidence_bytes)
            if there is not None:
                parse_content(there, ticket_id, sha, f"etcd:{rel}")
            return sha
        self.root.mkdirs(f"{TICKETS_DIR}/{ticket_id}")
        try:
            rel = f"{TICKETS_DIR}/{ticket_id}/{sha}.json"
            ledger.publish_noted(self.root, "content", rel, data)
        except AlreadyExistsError:
            self.get(ticket_id, sha)  # same address: must be the same, verified bytes
        return sha

    def get(self, ticket_id: str, sha256: str) -> JsonObject:
        """Read and verify content `sha256` of `ticket_id`."""
        check(ticket_id, "ticket id")
        check(sha256, "content sha256", SHA256)
        rel = f"{TICKETS_DIR}/{ticket_id}/{sha256}.json"
        if self.backend is not None:
            found = self.backend.read(rel, self.limits.evidence_bytes)
            if found is None:
                raise RecordNotFoundError(f"no content {sha256[:12]} for ticket {ticket_id}")
            return parse_content(found, ticket_id, sha256, f"etcd:{rel}")
        try:
            data = self.root.read_bytes(rel, self.limits.evidence_bytes)
        except NotFoundError as exc:
            raise RecordNotFoundError(f"no content {sha256[:12]} for ticket {ticket_id}") from exc
        return parse_content(data, ticket_id, sha256, rel)


class WorktreeRecords:
    """One write-once worktree record per ticket."""

    def __init__(self, root: Root, limits: Limits = LIMITS) -> None:
        self.root = root
        self.limits = limits

    def put(self, doc: JsonObject) -> JsonObject:
        """Write the record once; an identical rewrite is a no-op, a different one a
        `ConflictError`."""
        ticket_id = check(doc.get("ticket_id"), "ticket id")
        rel = f"{WORKTREES_DIR}/{ticket_id}.json"
        data = encode_document(doc, "worktree-record", rel, self.limits.record_bytes)
        try:
            ledger.publish_noted(self.root, "worktree", rel, data)  # with its entry, or not at all
        except AlreadyExistsError:
            if self.root.read_bytes(rel, self.limits.record_bytes) != data:
                raise ConflictError(
                    f"ticket {ticket_id} already has a different worktree record"
                ) from None
        return doc

    def get(self, ticket_id: str) -> JsonObject | None:
        """The worktree record of `ticket_id`, or None."""
        rel = f"{WORKTREES_DIR}/{check(ticket_id, 'ticket id')}.json"
        data = self.root.read_optional(rel, self.limits.record_bytes)
        return None if data is None else parse_worktree(data, ticket_id, rel)
