"""The outbox: per-consumer processing locks and receipts created exactly once.

`outbox/<consumer>/<event-id>.lock` is held while a consumer processes an event (a holder-named
lock, stale only when that exact process is gone). `outbox/<consumer>/<event-id>.receipt.json` is
the consumer's durable answer: created once, never replaced. A consumer takes the lock, looks for a
receipt (present: replay it), does its work, commits the receipt, releases the lock.
"""

from __future__ import annotations

from typing import NamedTuple

from oms.canonical import JsonObject, access, check, operation_nonce, parse_ts
from oms.errors import ConflictError, IntegrityError
from oms.fsio import Root
from oms.fsio.locks import Lock, acquire, acquire_waiting
from oms.limits import LIMITS, Limits
from oms.store.backend import Backend, Fence, Files
from oms.store.documents import encode_document, parse_document

OUTBOX_DIR = "outbox"
RECEIPT_SUFFIX = ".receipt.json"
LOCK_SUFFIX = ".lock"


class Receipt(NamedTuple):
    """A committed receipt."""

    event_id: str
    consumer_id: str
    processed_at: str
    result: JsonObject


def parse_receipt(data: bytes, consumer_id: str, event_id: str, where: str) -> Receipt:
    """Parse a receipt file and check it belongs where it is stored."""
    doc = parse_document(data, "outbox-receipt", where)
    receipt = Receipt(
        access.text(doc, "event_id"),
        access.text(doc, "consumer_id"),
        access.text(doc, "processed_at"),
        access.obj(doc, "result"),
    )
    parse_ts(receipt.processed_at, f"{where}: processed_at")
    if (receipt.event_id, receipt.consumer_id) != (event_id, consumer_id):
        raise IntegrityError(f"{where}: receipt is for {receipt.consumer_id}/{receipt.event_id}")
    if receipt.result.get("operation_nonce") != operation_nonce(event_id, consumer_id):
        raise IntegrityError(f"{where}: operation nonce does not derive from (event, consumer)")
    return receipt


class Outbox:
    """One consumer's view of the outbox."""

    def __init__(
        self,
        root: Root,
        consumer_id: str,
        limits: Limits = LIMITS,
        *,
        backend: Backend | None = None,
    ) -> None:
        self.root = root
        self.consumer_id = check(consumer_id, "consumer id")
        self.limits = limits
        self.backend: Backend = Files(root) if backend is None else backend
        self._dir = f"{OUTBOX_DIR}/{consumer_id}"

    def lock(self, event_id: str, *, wait_s: float = 0.0) -> Lock:
        """Take the processing lock for `event_id` (raises `LockHeldError` if a live process still
        has it after `wait_s` seconds)."""
        self.root.mkdirs(self._dir)
        rel = f"{self._dir}/{check(event_id, 'event id')}{LOCK_SUFFIX}"
        return acquire_waiting(self.root, rel, wait_s) if wait_s > 0 else acquire(self.root, rel)

    def read_receipt(self, event_id: str) -> Receipt | None:
        """The committed receipt, if any."""
        rel = f"{self._dir}/{check(event_id, 'event id')}{RECEIPT_SUFFIX}"
        data = self.backend.read(rel, self.limits.receipt_bytes)
        return None if data is None else parse_receipt(data, self.consumer_id, event_id, rel)

    def has_receipt(self, event_id: str) -> bool:
        """Is a receipt committed for `event_id`? (Its name only: `read_receipt` checks it.)"""
        rel = f"{self._dir}/{check(event_id, 'event id')}{RECEIPT_SUFFIX}"
        if isinstance(self.backend, Files):
            return self.root.exists(rel)
        return self.backend.read(rel, self.limits.receipt_bytes) is not None

    def nonce(self, event_id: str) -> str:
        """The operation nonce every receipt for `event_id` by this consumer carries."""
        return operation_nonce(event_id, self.consumer_id)

    def commit_receipt(
        self, event_id: str, processed_at: str, result: JsonObject, *, fence: Fence | None = None
    ) -> tuple[Receipt, bool]:
        """Create the receipt once; the nonce is added here. Returns it and whether this call
        created it. With `fence` (etcd), it lands only while that lock is still held."""
        rel = f"{self._dir}/{check(event_id, 'event id')}{RECEIPT_SUFFIX}"
        doc: JsonObject = {
            "format": "oms-receipt-v1",
            "event_id": event_id,
            "consumer_id": self.consumer_id,
            "processed_at": processed_at,
            "result": {**result, "operation_nonce": self.nonce(event_id)},
        }
        data = encode_document(doc, "outbox-receipt", rel, self.limits.receipt_bytes)
        if isinstance(self.backend, Files):
            self.root.mkdirs(self._dir)
        found = self.backend.create_once(
            "receipt", rel, data, self.limits.receipt_bytes, fence=fence
        )
        if found is None:
            return parse_receipt(data, self.consumer_id, event_id, rel), True
        existing = parse_receipt(found, self.consumer_id, event_id, rel)
        if existing.result != doc["result"]:
            raise ConflictError(f"receipt for {self.consumer_id}/{event_id} already exists")
        return existing, False
