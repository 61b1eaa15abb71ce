"""Versioned records: create, transition, replay, conflict, history, bounds and validation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.errors import (
    FileTooLargeError,
    IntegrityError,
    InvalidIdError,
    InvalidInputError,
    RecordNotFoundError,
    SchemaValidationError,
    VersionConflictError,
)
from oms.store import Store
from tests.helpers import payload, ts


def _create(store: Store, rid: str = "dsp-1", op: str = "op-create") -> None:
    store.records("worker").create(
        rid,
        state="idle",
        payload=payload("worker"),
        operation_id=op,
        actor="oms-system",
        observed_at=ts(0),
    )


def _step(
    store: Store, expected: int, op: str, n: int, state: str = "working", rid: str = "dsp-1"
) -> int:
    res = store.records("worker").transition(
        rid,
        expected_version=expected,
        state=state,
        payload=payload("worker"),
        operation_id=op,
        actor="oms-system",
        observed_at=ts(n),
    )
    return res.record.version


def test_create_and_transition_build_a_linked_chain(store: Store) -> None:
    _create(store)
    assert _step(store, 0, "op-1", 1) == 1
    assert _step(store, 1, "op-2", 2, "done") == 2
    history = store.records("worker").history("dsp-1")
    assert [r.version for r in history] == [0, 1, 2]
    assert [r.state for r in history] == ["idle", "working", "done"]
    assert history[1].previous_sha256 == history[0].sha256
    assert history[2].expected_version == 1
    assert store.records("worker").read("dsp-1").state == "done"


def test_replay_returns_the_version_the_operation_produced(store: Store) -> None:
    _create(store)
    _step(store, 0, "op-1", 1)
    _step(store, 1, "op-2", 2)
    records = store.records("worker")
    again = records.transition(
        "dsp-1",
        expected_version=0,
        state="working",
        payload=payload("worker"),
        operation_id="op-1",
        actor="oms-system",
        observed_at=ts(9),
    )
    assert again.replayed
    assert again.record.version == 1
    latest = records.transition(
        "dsp-1",
        expected_version=1,
        state="working",
        payload=payload("worker"),
        operation_id="op-2",
        actor="oms-system",
        observed_at=ts(9),
    )
    assert (latest.replayed, latest.record.version) == (True, 2)
    created = records.create(
        "dsp-1",
        state="idle",
        payload=payload("worker"),
        operation_id="op-create",
        actor="oms-system",
        observed_at=ts(0),
    )
    assert (created.replayed, created.record.version) == (True, 0)
    assert records.versions("dsp-1") == [0, 1, 2]


def test_stale_expected_version_conflicts_and_writes_nothing(store: Store) -> None:
    _create(store)
    _step(store, 0, "op-1", 1)
    with pytest.raises(VersionConflictError) as info:
        _step(store, 0, "op-other", 2)
    assert (info.value.expected, info.value.actual) == (0, 1)
    with pytest.raises(VersionConflictError):
        _step(store, 5, "op-future", 3)
    assert store.records("worker").versions("dsp-1") == [0, 1]


def test_second_create_of_same_id_conflicts(store: Store) -> None:
    _create(store)
    with pytest.raises(VersionConflictError):
        _create(store, op="op-another-create")


def test_observed_time_must_advance(store: Store) -> None:
    _create(store)
    with pytest.raises(InvalidInputError, match="after"):
        store.records("worker").transition(
            "dsp-1",
            expected_version=0,
            state="working",
            payload=payload("worker"),
            operation_id="op-1",
            actor="oms-system",
            observed_at=ts(0),
        )


def test_transition_of_missing_record(store: Store) -> None:
    with pytest.raises(RecordNotFoundError):
        _step(store, 0, "op-1", 1, rid="nope")
    with pytest.raises(RecordNotFoundError):
        store.records("worker").read("nope")
    assert store.records("worker").read_if_exists("nope") is None


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("state", "flying", SchemaValidationError),
        ("payload", {"health": "great"}, SchemaValidationError),
        ("operation_id", "op\n", InvalidIdError),
        ("operation_id", "../op", InvalidIdError),
        ("actor", "Oms System", InvalidIdError),
        ("observed_at", "yesterday", InvalidInputError),
    ],
)
def test_invalid_writes_change_nothing(
    store: Store, state_path: Path, field: str, value: object, error: type[Exception]
) -> None:
    _create(store)
    before = sorted(str(p.relative_to(state_path)) for p in state_path.rglob("*"))
    kwargs: dict[str, object] = {
        "state": "working",
        "payload": payload("worker"),
        "operation_id": "op-1",
        "actor": "oms-system",
        "observed_at": ts(1),
    }
    kwargs[field] = value
    with pytest.raises(error):
        store.records("worker").transition("dsp-1", expected_version=0, **kwargs)  # type: ignore[arg-type]
    after = sorted(str(p.relative_to(state_path)) for p in state_path.rglob("*"))
    assert before == after


@pytest.mark.parametrize("rid", ["", "..", "a/b", "x\x00", "x\n", "A", "a" * 129])
def test_bad_record_ids_refused(store: Store, rid: str) -> None:
    with pytest.raises(InvalidIdError):
        _create(store, rid=rid)


def test_unknown_kind_refused(store: Store) -> None:
    with pytest.raises(InvalidInputError):
        store.records("widget")


def test_oversized_record_refused(store: Store) -> None:
    small = Store(store.state, type(store.limits)(record_bytes=300))
    with pytest.raises(FileTooLargeError, match="at most 300"):
        small.records("ticket").create(
            "tkt-2",
            state="open",
            payload=payload("ticket"),
            operation_id="op",
            actor="oms-system",
            observed_at=ts(0),
        )
    assert small.records("ticket").versions("tkt-2") == []


def test_edited_middle_version_breaks_the_chain(store: Store, state_path: Path) -> None:
    _create(store)
    _step(store, 0, "op-1", 1)
    _step(store, 1, "op-2", 2)
    path = state_path / "records" / "worker" / "dsp-1" / "1.json"
    data = path.read_bytes().replace(b'"working"', b'"done"')  # still canonical and schema-valid
    os.unlink(path)
    path.write_bytes(data)
    os.chmod(path, 0o600)
    assert store.records("worker").read_version("dsp-1", 1).state == "done"
    with pytest.raises(IntegrityError, match="does not follow"):
        store.records("worker").history("dsp-1")


def test_non_canonical_version_is_refused_on_read(store: Store, state_path: Path) -> None:
    _create(store)
    path = state_path / "records" / "worker" / "dsp-1" / "0.json"
    data = path.read_bytes().replace(b'"idle"', b' "idle"')
    os.unlink(path)
    path.write_bytes(data)
    os.chmod(path, 0o600)
    with pytest.raises(InvalidInputError, match="canonical"):
        store.records("worker").read("dsp-1")


def test_misplaced_version_file_is_refused(store: Store, state_path: Path) -> None:
    _create(store)
    src = state_path / "records" / "worker" / "dsp-1" / "0.json"
    dst_dir = state_path / "records" / "worker" / "dsp-2"
    dst_dir.mkdir(mode=0o700)
    (dst_dir / "0.json").write_bytes(src.read_bytes())
    os.chmod(dst_dir / "0.json", 0o600)
    with pytest.raises(IntegrityError, match="expected worker/dsp-2/0"):
        store.records("worker").read("dsp-2")


def test_ids_lists_records(store: Store) -> None:
    assert store.records("worker").ids() == []
    _create(store, "dsp-b")
    _create(store, "dsp-a")
    assert store.records("worker").ids() == ["dsp-a", "dsp-b"]
