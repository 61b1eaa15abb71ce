"""The record store and the events on a real 3-member etcd cluster (ADR 0043): the same
compare-and-set, replay and conflict rules as on files, exactly once under a thread race, a write
fenced by a lapsed lock refused, nothing written to the state root, and `verify_keys` naming a
tampered or foreign key."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from oms.adapters.etcd import store as etcd_store
from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore
from oms.canonical import JsonObject
from oms.errors import (
    ConflictError,
    IntegrityError,
    LeaseError,
    LockHeldError,
    OperationConflictError,
    RecordNotFoundError,
    VersionConflictError,
)
from oms.store import Change, Record, Store
from tests.etcd_cluster import Cluster, line_of
from tests.helpers import SESSION, eventually, payload, ts

KIND = "session-registered"
BODY: JsonObject = {"session_id": SESSION, "dispatch_id": "dsp-1", "session_version": 0}


@pytest.fixture
def backend(etcd_cluster: Cluster, etcd_prefix: str, store: Store) -> Iterator[EtcdStore]:
    client = Etcd(etcd_cluster.endpoints)
    yield EtcdStore(client, etcd_prefix, line_of(store))
    client.close()


@pytest.fixture
def on_etcd(store: Store, backend: EtcdStore) -> Store:
    return Store(store.state, backend=backend)


def _create(store: Store, rid: str = "dsp-1") -> Record:
    return (
        store.records("worker")
        .create(
            rid,
            state="idle",
            payload=payload("worker"),
            operation_id="op-create",
            actor="oms-system",
            observed_at=ts(0),
        )
        .record
    )


def _step(store: Store, expected: int, op: str, n: int, state: str = "working") -> int:
    return (
        store.records("worker")
        .transition(
            "dsp-1",
            expected_version=expected,
            state=state,
            payload=payload("worker"),
            operation_id=op,
            actor="oms-system",
            observed_at=ts(n),
        )
        .record.version
    )


def test_versions_chain_replay_and_conflict_as_on_files(on_etcd: Store, store: Store) -> None:
    _create(on_etcd)
    assert _step(on_etcd, 0, "op-1", 1) == 1
    assert _step(on_etcd, 1, "op-2", 2, "done") == 2
    records = on_etcd.records("worker")
    history = records.history("dsp-1")
    assert [r.state for r in history] == ["idle", "working", "done"]
    assert history[2].previous_sha256 == history[1].sha256
    assert records.ids() == ["dsp-1"]
    # a replay of an older operation answers the version it produced (the op index)
    again = records.transition(
        "dsp-1",
        expected_version=0,
        state="working",
        payload=payload("worker"),
        operation_id="op-1",
        actor="oms-system",
        observed_at=ts(9),
    )
    assert (again.replayed, again.record.version) == (True, 1)
    with pytest.raises(OperationConflictError):
        _step(on_etcd, 0, "op-1", 9, state="done")  # the same operation, another change
    with pytest.raises(VersionConflictError):
        _step(on_etcd, 1, "op-3", 9)  # decided on version 1; 2 is the latest
    assert records.versions("dsp-1") == [0, 1, 2]
    with pytest.raises(RecordNotFoundError):
        on_etcd.records("worker").read("dsp-2")
    # the state root holds none of it
    assert store.records("worker").ids() == []


def test_racing_writers_through_update_lose_no_increment(
    on_etcd: Store, etcd_cluster: Cluster, backend: EtcdStore
) -> None:
    _create(on_etcd, "counter")
    writers, each = 6, 4
    start = threading.Barrier(writers)
    failures: list[BaseException] = []

    def writer(w: int) -> None:
        client = Etcd(etcd_cluster.endpoints)
        mine = Store(
            on_etcd.state, backend=EtcdStore(client, backend.prefix, backend.line)
        ).records("worker")
        start.wait()
        try:
            for i in range(each):

                def decide(current: Record, op: str = f"op-{w}-{i}") -> Change:
                    n = current.version + 1
                    return Change("working", payload("worker"), op, "oms-system", ts(n))

                mine.update("counter", decide, rounds=writers * each)
        except BaseException as exc:
            failures.append(exc)
        finally:
            client.close()

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    history = on_etcd.records("worker").history("counter")
    assert len(history) == 1 + writers * each  # every increment landed exactly once
    assert len({r.operation_id for r in history}) == len(history)
    assert etcd_store.verify_keys(backend)[0] == []


def test_events_are_created_once(on_etcd: Store) -> None:
    first, created = on_etcd.events.create("evt-1", KIND, ts(1), BODY)
    again, created_again = on_etcd.events.create("evt-1", KIND, ts(1), BODY)
    assert (created, created_again) == (True, False)
    assert first == again
    with pytest.raises(ConflictError):
        on_etcd.events.create("evt-1", KIND, ts(2), BODY)
    assert on_etcd.events.ids() == ["evt-1"]
    assert on_etcd.events.exists("evt-1")
    assert not on_etcd.events.exists("evt-2")
    assert on_etcd.events.read("evt-1").created_at == ts(1)


def test_a_write_fenced_by_a_lapsed_lock_is_refused(on_etcd: Store, backend: EtcdStore) -> None:
    _create(on_etcd)
    held = etcd_store.acquire(backend, "outbox", "host-a 101", ttl=1)
    with pytest.raises(LockHeldError, match="host-a 101"):
        etcd_store.acquire(backend, "outbox", "host-b 202")
    fenced = on_etcd.records("worker").fenced(held.fence)
    current = fenced.read("dsp-1")
    fenced.write_next(current, Change("working", payload("worker"), "op-a1", "oms-system", ts(1)))
    # host a stops keeping its lease (a pause, a partition): the lock goes, b takes it
    eventually(
        lambda: backend.client.get(held.fence.key) is None, timeout=10, what="the lease lapses"
    )
    assert not etcd_store.keep(backend, held)
    other = etcd_store.acquire(backend, "outbox", "host-b 202")
    latest = fenced.read("dsp-1")
    with pytest.raises(LeaseError, match="was lost"):
        fenced.write_next(latest, Change("done", payload("worker"), "op-a2", "oms-system", ts(2)))
    assert on_etcd.records("worker").read("dsp-1").version == 1  # nothing half-written
    on_etcd.records("worker").fenced(other.fence).write_next(
        latest, Change("done", payload("worker"), "op-b1", "oms-system", ts(3))
    )
    etcd_store.release(backend, other)
    assert backend.client.get(other.fence.key) is None


def test_verify_names_a_tampered_a_foreign_and_a_dangling_key(
    on_etcd: Store, backend: EtcdStore
) -> None:
    _create(on_etcd)
    _step(on_etcd, 0, "op-1", 1)
    on_etcd.events.create("evt-1", KIND, ts(1), BODY)
    assert etcd_store.verify_keys(backend)[0] == []
    client, prefix = backend.client, backend.prefix
    v0 = client.get(prefix + "records/worker/dsp-1/0.json")
    assert v0 is not None
    client.delete(prefix + "records/worker/dsp-1/0.json")  # deleted and made again: created once
    client.put(prefix + "records/worker/dsp-1/0.json", v0.value.replace(b"idle", b"done"))
    v1 = client.get(prefix + "records/worker/dsp-1/1.json")
    assert v1 is not None
    client.put(prefix + "records/worker/dsp-1/1.json", v1.value)  # the same bytes, put again
    client.put(prefix + "somewhere/else", b"x")
    client.put(prefix + "latest/worker/ghost", b"3")
    event = client.get(prefix + "events/evt-1.json")
    assert event is not None
    client.put(prefix + "events/evt-2.json", event.value)  # an event under another's name
    problems = [str(p) for p in etcd_store.verify_keys(backend)[0]]
    assert any("somewhere/else" in p and "foreign" in p for p in problems)
    assert any("dsp-1/1.json" in p and "written 2 times" in p for p in problems)
    assert any("dsp-1/0.json" in p and "not written with the latest" in p for p in problems)
    assert any("latest/worker/ghost" in p for p in problems)
    assert any("events/evt-2.json" in p for p in problems)
    assert all("\n" not in p for p in problems)


def test_a_receipt_is_committed_once_and_a_fenced_one_only_under_its_lock(
    on_etcd: Store, backend: EtcdStore
) -> None:
    outbox = on_etcd.outbox("deliverer")
    assert outbox.read_receipt("evt-1") is None
    assert not outbox.has_receipt("evt-1")
    first, created = outbox.commit_receipt(
        "evt-1", ts(1), {"status": "created", "dispatch_id": "dsp-1"}
    )
    again, created_again = outbox.commit_receipt(
        "evt-1", ts(2), {"status": "created", "dispatch_id": "dsp-1"}
    )
    assert (created, created_again) == (True, False)
    assert again == first
    with pytest.raises(ConflictError):
        outbox.commit_receipt("evt-1", ts(3), {"status": "created", "dispatch_id": "dsp-2"})
    assert outbox.has_receipt("evt-1")
    held = etcd_store.acquire(backend, "event-evt-2", "host-a 7", ttl=1)
    eventually(
        lambda: backend.client.get(held.fence.key) is None, timeout=10, what="the lease lapses"
    )
    with pytest.raises(LeaseError, match="was lost"):
        outbox.commit_receipt(
            "evt-2", ts(4), {"status": "created", "dispatch_id": "dsp-1"}, fence=held.fence
        )
    assert outbox.read_receipt("evt-2") is None  # nothing half-written
    taken = etcd_store.acquire(backend, "event-evt-2", "host-b 8")
    outbox.commit_receipt(
        "evt-2", ts(5), {"status": "created", "dispatch_id": "dsp-1"}, fence=taken.fence
    )
    etcd_store.release(backend, taken)
    assert etcd_store.verify_keys(backend)[0] == []


def test_a_read_is_one_transaction_and_a_pointer_off_the_newest_version_is_named(
    on_etcd: Store, backend: EtcdStore
) -> None:
    _create(on_etcd)
    _step(on_etcd, 0, "op-1", 1)
    assert on_etcd.records("worker").read("dsp-1").version == 1
    backend.client.put(backend.prefix + "latest/worker/dsp-1", b"0")  # rolled back by hand
    with pytest.raises(IntegrityError, match="not the newest key"):
        on_etcd.records("worker").read("dsp-1")


def test_a_write_wakes_a_watcher_with_the_record_it_changed(
    on_etcd: Store, backend: EtcdStore
) -> None:
    since = etcd_store.current_revision(backend)
    assert etcd_store.changed_since(backend, since, wait_s=0.2).records == []  # nothing yet
    _create(on_etcd)
    _step(on_etcd, 0, "op-1", 1)
    on_etcd.events.create("evt-1", KIND, ts(1), BODY)  # not a record: wakes nothing
    got = etcd_store.changed_since(backend, since, wait_s=5)
    assert got.records == [("worker", "dsp-1")]
    assert etcd_store.changed_since(backend, got.next_revision, wait_s=0.2).records == []


def test_writes_through_a_member_killed_mid_stream_land_exactly_once(
    on_etcd: Store, etcd_cluster: Cluster, backend: EtcdStore
) -> None:
    """The member the client asks first (its connection open) is SIGKILLed while a writer streams
    updates: the calls go to the next member, and every update lands exactly once (a resent write
    that had landed would fail its compare there and be replayed by its operation id)."""
    _create(on_etcd, "stream")
    records = on_etcd.records("worker")
    halfway, killed = threading.Event(), threading.Event()
    failures: list[BaseException] = []
    total = 30

    def writer() -> None:
        try:
            for i in range(total):

                def decide(current: Record, op: str = f"op-{i}") -> Change:
                    return Change(
                        "working", payload("worker"), op, "oms-system", ts(current.version + 1)
                    )

                records.update("stream", decide)
                if i == total // 3:
                    halfway.set()
                    assert killed.wait(60)  # the rest goes to a member that is gone
        except BaseException as exc:
            failures.append(exc)
            halfway.set()

    thread = threading.Thread(target=writer)
    thread.start()
    assert halfway.wait(60)
    etcd_cluster.kill(etcd_cluster.members[0])
    killed.set()
    thread.join()
    assert failures == []
    history = records.history("stream")
    assert [r.operation_id for r in history] == ["op-create"] + [f"op-{i}" for i in range(total)]
    assert etcd_store.verify_keys(backend)[0] == []
