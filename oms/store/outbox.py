"""The outbox: per-consumer processing locks and receipts created exactly once.

`outbox/<consumer>/<event-id>.lock` is held while a consumer processes an event (a holder-named
lock, stale only when that exact process is gone). On a backend that keeps its own locks
(`KeepsLocks`: etcd) it is `locks/outbox/<consumer>/<event-id>` under a lease instead, and while it
is held the store's `fence` is its token: every record version, event and receipt written through
that store lands only while the lock is still the one taken (ADR 0043 amendment `etcddeliver`).
`outbox/<consumer>/<event-id>.receipt.json` is the consumer's durable answer: created once, never
replaced. A consumer takes the lock, looks for a receipt (present: replay it), does its work,
commits the receipt, releases the lock.
"""

from __future__ import annotations

import os
import socket
from types import TracebackType
from typing import NamedTuple, Protocol

from oms.canonical import JsonObject, access, check, operation_nonce, parse_ts
from oms.errors import ConflictError, IntegrityError, LeaseError
from oms.fsio import Root
from oms.fsio.locks import Lock, acquire, acquire_waiting
from oms.limits import LIMITS, Limits
from oms.store.backend import Backend, Fence, Files, KeepsLocks, LeaseHeld
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


class Scope(Protocol):
    """What a held lock's fence is set on while it is held (the `Store`)."""

    def hold_fence(self, fence: Fence) -> None:
        """Carry `fence` on every write from now on (the innermost lock's)."""
        ...

    def drop_fence(self, fence: Fence) -> None:
        """`fence`'s lock was let go: the fence of the lock still held innermost comes back."""
        ...

    @property
    def fence(self) -> Fence | None:
        """The fence the writes carry now."""
        ...


class ProcessingLock:
    """A held processing lock: a lock file (`fence` None: a file lock cannot lapse while its
    holder lives) or a backend's own (`fence` its token). While a fenced one is held, its scope's
    `fence` is its fence (the innermost lock's: the fence of the lock still held innermost comes
    back on release, in whatever order they are let go), so the code under the lock writes
    through a fenced store by construction."""

    def __init__(
        self,
        held: Lock | LeaseHeld,
        fence: Fence | None,
        scope: Scope | None,
    ) -> None:
        self._held: Lock | LeaseHeld | None = held
        self.fence = fence
        self._scope = scope if fence is not None else None
        if self._scope is not None and fence is not None:
            self._scope.hold_fence(fence)

    @property
    def held(self) -> bool:
        """False once released."""
        return self._held is not None

    def confirm(self) -> None:
        """Raise unless the lock is still held: released, or a backend's lock lost (its lease
        lapsed while the holder was paused or cut off), `LeaseError`. A lock file cannot be lost
        while its holder lives. For what a lock guards besides the store's writes (those carry its
        fence): keys typed into a pane."""
        if self._held is None:
            raise LeaseError("the lock was let go")
        if self.fence is not None and not isinstance(self._held, Lock):
            self._held.confirm()

    def release(self) -> None:
        """Let the lock go (idempotent); its fence leaves the scope first."""
        if self._held is None:
            return
        held, self._held = self._held, None
        if self._scope is not None and self.fence is not None:
            self._scope.drop_fence(self.fence)
        held.release()

    def __enter__(self) -> ProcessingLock:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


class Outbox:
    """One consumer's view of the outbox."""

    def __init__(
        self,
        root: Root,
        consumer_id: str,
        limits: Limits = LIMITS,
        *,
        backend: Backend | None = None,
        scope: Scope | None = None,
    ) -> None:
        self.root = root
        self.consumer_id = check(consumer_id, "consumer id")
        self.limits = limits
        self.backend: Backend = Files(root) if backend is None else backend
        self.scope = scope  # what a held lock's fence is set on (the `Store`), if any
        self._dir = f"{OUTBOX_DIR}/{consumer_id}"

    def lock(self, event_id: str, *, wait_s: float = 0.0) -> ProcessingLock:
        """Take the processing lock for `event_id` (raises `LockHeldError` naming the holder if
        a live process still has it after `wait_s` seconds): the state root's lock file, or the
        backend's own lock under a lease (`KeepsLocks`: etcd), whose fence the scope's writes
        carry while it is held."""
        check(event_id, "event id")
        if isinstance(self.backend, KeepsLocks):
            # a label in the refusal a second taker reads: the host's name as its processes are
            # given it (`OMS_HOST`, ADR 0043 amendment `hosts`), else the machine's
            host = os.environ.get("OMS_HOST") or socket.gethostname()
            holder = f"host {host[:63]} pid {os.getpid()}"
            held = self.backend.hold(
                f"{OUTBOX_DIR}/{self.consumer_id}/{event_id}", holder, wait_s=wait_s
            )
            return ProcessingLock(held, held.fence, self.scope)
        self.root.mkdirs(self._dir)
        rel = f"{self._dir}/{event_id}{LOCK_SUFFIX}"
        found = acquire_waiting(self.root, rel, wait_s) if wait_s > 0 else acquire(self.root, rel)
        return ProcessingLock(found, None, None)

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
        created it. With `fence` (etcd; by default the fence of the lock held now, the scope's),
        it lands only while that lock is still held."""
        if fence is None and self.scope is not None:
            fence = self.scope.fence
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
