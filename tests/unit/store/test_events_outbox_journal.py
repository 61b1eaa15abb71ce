"""Events (immutable), the outbox (lock + receipt once), journals (append-only, chained)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.canonical import operation_nonce
from oms.errors import (
    ConflictError,
    IntegrityError,
    InvalidIdError,
    LockHeldError,
    RecordNotFoundError,
    SchemaValidationError,
)
from oms.store import Store
from tests.helpers import SESSION, T0, contact_entry


def _event(store: Store, eid: str = "evt-1", dispatch: str = "dsp-1") -> bool:
    return store.events.create(
        eid,
        "session-registered",
        T0,
        {"session_id": SESSION, "dispatch_id": dispatch, "session_version": 0},
    )[1]


def test_event_created_once_and_replayed_identically(store: Store) -> None:
    assert _event(store)
    assert not _event(store)
    with pytest.raises(ConflictError):
        _event(store, dispatch="dsp-2")
    assert store.events.read("evt-1").payload["dispatch_id"] == "dsp-1"
    assert store.events.ids() == ["evt-1"]


def test_event_exists_only_as_a_stored_regular_file(store: Store) -> None:
    assert not store.events.exists("evt-1")  # no events directory yet
    _event(store)
    assert store.events.exists("evt-1")
    assert not store.events.exists("evt-2")
    events = Path(store.path) / "events"
    (events / "evt-dir.json").mkdir()
    (events / "evt-link.json").symlink_to(events / "evt-1.json")
    assert not store.events.exists("evt-dir")  # a liveness proof cannot be faked with a directory
    assert not store.events.exists("evt-link")  # or with a symlink to another session's proof
    with pytest.raises(InvalidIdError):
        store.events.exists("../records")


def test_event_type_and_payload_validated(store: Store) -> None:
    with pytest.raises(SchemaValidationError):
        store.events.create("evt-1", "session-registered", T0, {"session_id": SESSION})
    with pytest.raises(SchemaValidationError):
        store.events.create("evt-1", "made-up", T0, {})
    _event(store)
    with pytest.raises(IntegrityError, match="expected dispatch-delivery-requested"):
        store.events.read("evt-1", "dispatch-delivery-requested")
    with pytest.raises(RecordNotFoundError):
        store.events.read("evt-2")


def test_outbox_lock_receipt_and_replay(store: Store) -> None:
    _event(store)
    box = store.outbox("oms-worker-delivery")
    with box.lock("evt-1"):
        with pytest.raises(LockHeldError):
            box.lock("evt-1")
        assert box.read_receipt("evt-1") is None
        receipt, created = box.commit_receipt(
            "evt-1", T0, {"status": "created", "dispatch_id": "dsp-1"}
        )
        assert created
    assert receipt.result["operation_nonce"] == operation_nonce("evt-1", "oms-worker-delivery")
    again, created = box.commit_receipt("evt-1", T0, {"status": "created", "dispatch_id": "dsp-1"})
    assert not created
    assert again == receipt
    with pytest.raises(ConflictError):
        box.commit_receipt("evt-1", T0, {"status": "parked", "dispatch_id": "dsp-1"})
    assert box.read_receipt("evt-1") == receipt


def test_receipt_with_forged_nonce_is_refused(store: Store, state_path: Path) -> None:
    _event(store)
    box = store.outbox("consumer-a")
    box.commit_receipt("evt-1", T0, {"status": "done"})
    other = store.outbox("consumer-b")
    src = state_path / "outbox" / "consumer-a" / "evt-1.receipt.json"
    (state_path / "outbox" / "consumer-b").mkdir(mode=0o700, exist_ok=True)
    dst = state_path / "outbox" / "consumer-b" / "evt-1.receipt.json"
    dst.write_bytes(src.read_bytes().replace(b'"consumer-a"', b'"consumer-b"'))
    os.chmod(dst, 0o600)
    with pytest.raises(IntegrityError, match="nonce"):
        other.read_receipt("evt-1")


def test_journal_appends_and_chains(store: Store, state_path: Path) -> None:
    journal = store.journal("live-contact")
    assert [journal.append(contact_entry(i), T0) for i in range(3)] == [0, 1, 2]
    entries = journal.entries()
    assert [e["entry"] for e in entries] == [contact_entry(0), contact_entry(1), contact_entry(2)]
    assert entries[0]["previous_sha256"] is None
    os.unlink(state_path / "journals" / "live-contact" / "1.json")
    with pytest.raises(IntegrityError, match="missing"):
        journal.entries()


def test_unknown_journal_refused(store: Store) -> None:
    with pytest.raises(IntegrityError):
        store.journal("diary")
