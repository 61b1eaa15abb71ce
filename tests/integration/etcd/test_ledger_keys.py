"""The ledger's order on keys (ADR 0043, amendment `etcdledger`), on a real 3-member cluster: every
record version, event and receipt is noted by a `ledger/<seq>` key created in its own transaction,
chained and MACed as a line of `ledger/log` is; `verify_keys` (`oms store verify`, `oms audit
verify`) names a deleted, edited or moved entry, a foreign key under `ledger/`, an entry whose key
is gone and a key in no entry; a write onto an entry oms did not write publishes nothing; two
writers never take one number. etcd is not trusted to vouch for any of it."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator

import pytest

from oms.adapters.etcd.client import Etcd, Put
from oms.adapters.etcd.store import EtcdStore, walk_keys
from oms.canonical import JsonObject
from oms.errors import IntegrityError
from oms.store import Store
from oms.store.ledger import GENESIS, entry_name, parse_key_entry
from tests.chain import Chain
from tests.etcd_cluster import Cluster, line_of
from tests.helpers import SESSION, OmsCommand, payload, ts
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd

BODY: JsonObject = {"session_id": SESSION, "dispatch_id": "dsp-1", "session_version": 0}


@pytest.fixture
def client(etcd_cluster: Cluster) -> Iterator[Etcd]:
    made = Etcd(etcd_cluster.endpoints)
    yield made
    made.close()


@pytest.fixture
def on_etcd(store: Store, client: Etcd, etcd_prefix: str) -> Store:
    return Store(store.state, backend=EtcdStore(client, etcd_prefix, line_of(store)))


def _backend(store: Store) -> EtcdStore:
    assert isinstance(store.backend, EtcdStore)
    return store.backend


def _fill(store: Store) -> None:
    """Entries 1..4: dsp-1 v0 and v1, dsp-2 v0, an event."""
    records = store.records("worker")
    for rid in ("dsp-1", "dsp-2"):
        records.create(
            rid,
            state="idle",
            payload=payload("worker"),
            operation_id="op-create",
            actor="oms-system",
            observed_at=ts(0),
        )
        if rid == "dsp-1":
            records.transition(
                "dsp-1",
                expected_version=0,
                state="working",
                payload=payload("worker"),
                operation_id="op-1",
                actor="oms-system",
                observed_at=ts(1),
            )
    store.events.create("evt-1", "session-registered", ts(2), BODY)


def _problems(store: Store) -> dict[str, str]:
    walked = walk_keys(_backend(store))
    return {p.key: p.problem for p in walked.problems}


def _entry_key(store: Store, seq: int) -> str:
    return _backend(store).key(entry_name(seq))


def _value(client: Etcd, key: str) -> bytes:
    found = client.get(key)
    assert found is not None, key
    return found.value


def test_every_write_is_noted_by_one_entry_created_with_it(on_etcd: Store, client: Etcd) -> None:
    _fill(on_etcd)
    backend = _backend(on_etcd)
    walked = walk_keys(backend)
    assert walked.problems == []
    assert (walked.entries, walked.noted) == (4, 4)
    paths = []
    prev = GENESIS
    for seq in range(1, 5):
        kv = client.get(_entry_key(on_etcd, seq))
        assert kv is not None
        entry = parse_key_entry(kv.value, backend.line)
        assert (entry.seq, entry.prev, entry.checked) == (seq, prev, True)
        noted = client.get(backend.key(entry.path))
        assert noted is not None
        assert noted.create_revision == kv.create_revision  # one transaction
        paths.append(entry.path)
        prev = entry.digest
    assert paths == [
        "records/worker/dsp-1/0.json",
        "records/worker/dsp-1/1.json",
        "records/worker/dsp-2/0.json",
        "events/evt-1.json",
    ]
    assert on_etcd.audit().ok, on_etcd.audit().problems  # `oms audit verify`'s view: the same


def test_a_deleted_entry_is_named(on_etcd: Store, client: Etcd) -> None:
    _fill(on_etcd)
    client.delete(_entry_key(on_etcd, 2))
    found = _problems(on_etcd)
    assert "ledger entry 2 is missing (deleted)" in found[_entry_key(on_etcd, 2)], found
    noted = _backend(on_etcd).key("records/worker/dsp-1/1.json")
    assert "is in no ledger entry" in found[noted], found


def test_an_edited_entry_is_named(on_etcd: Store, client: Etcd) -> None:
    _fill(on_etcd)
    key = _entry_key(on_etcd, 3)
    edited = _value(client, key).replace(b'"kind":"record"', b'"kind":"adopt"')
    client.delete(key)  # a fresh key: written once, as far as etcd's version counts
    client.put(key, edited)
    found = _problems(on_etcd)
    assert "its mac does not match" in found[key], found


def test_an_entry_put_back_with_its_own_bytes_is_named(on_etcd: Store, client: Etcd) -> None:
    """Deleted and written again byte for byte: its MAC holds, its create revision does not."""
    _fill(on_etcd)
    key = _entry_key(on_etcd, 2)
    same = _value(client, key)
    client.delete(key)
    client.put(key, same)
    found = _problems(on_etcd)
    noted = _backend(on_etcd).key("records/worker/dsp-1/1.json")
    assert "was not created with its ledger entry 2" in found[noted], found


def test_a_reordered_pair_is_named(on_etcd: Store, client: Etcd) -> None:
    _fill(on_etcd)
    two, three = _entry_key(on_etcd, 2), _entry_key(on_etcd, 3)
    first, second = _value(client, two), _value(client, three)
    client.delete(two)
    client.delete(three)
    client.put(two, second)
    client.put(three, first)
    found = _problems(on_etcd)
    assert "holds entry 3, not entry 2" in found[two], found
    assert "holds entry 2, not entry 3" in found[three], found


def test_a_foreign_key_under_the_ledger_is_named(on_etcd: Store, client: Etcd) -> None:
    _fill(on_etcd)
    planted = _backend(on_etcd).key("ledger/planted")
    client.put(planted, b"{}")
    forged = _entry_key(on_etcd, 5)  # the next number, not an entry oms writes
    client.put(forged, _value(client, _entry_key(on_etcd, 4)).replace(b'"seq":4', b'"seq":5'))
    found = _problems(on_etcd)
    assert "a foreign key" in found[planted], found
    assert "its mac does not match" in found[forged], found


def test_an_entry_whose_key_is_gone_is_named(on_etcd: Store, client: Etcd) -> None:
    _fill(on_etcd)
    gone = _backend(on_etcd).key("events/evt-1.json")
    client.delete(gone)
    found = _problems(on_etcd)
    assert "ledger entry 4: gone (deleted after it was written)" in found[gone], found


def test_a_key_replaced_or_put_by_hand_is_named(on_etcd: Store, client: Etcd) -> None:
    _fill(on_etcd)
    backend = _backend(on_etcd)
    event = backend.key("events/evt-1.json")
    data = _value(client, event)
    client.delete(event)
    client.put(event, data.replace(b"dsp-1", b"dsp-2"))  # schema-valid, written once
    client.put(backend.key("events/evt-2.json"), data.replace(b"evt-1", b"evt-2"))
    found = _problems(on_etcd)
    assert "ledger entry 4: changed after it was written" in found[event], found
    assert "is in no ledger entry" in found[backend.key("events/evt-2.json")], found


def test_a_newest_version_replaced_with_its_pointer_is_named(
    on_etcd: Store, client: Etcd, store: Store
) -> None:
    """SECURITY.md's known limit before the ledger was on keys: the newest version deleted and
    another written with its pointer in one transaction links, and was created once."""
    _fill(on_etcd)
    backend = _backend(on_etcd)
    other = Store(store.state, backend=EtcdStore(client, backend.prefix + "o/", backend.line))
    records = other.records("worker")
    records.create(
        "dsp-1",
        state="idle",
        payload=payload("worker"),
        operation_id="op-create",
        actor="oms-system",
        observed_at=ts(0),
    )
    records.transition(
        "dsp-1",
        expected_version=0,
        state="done",
        payload=payload("worker"),
        operation_id="op-1",
        actor="oms-system",
        observed_at=ts(1),
    )
    forged = _value(client, backend.key("o/records/worker/dsp-1/1.json"))
    client.delete(backend.key("o/"), prefix=True)
    key = backend.key("records/worker/dsp-1/1.json")
    client.delete(key)
    done = client.txn([], [Put(key, forged), Put(backend.key("latest/worker/dsp-1"), b"1")])
    assert done.succeeded
    assert on_etcd.records("worker").read("dsp-1").state == "done"  # served: it links
    found = _problems(on_etcd)
    assert list(found) == [key], found
    assert "ledger entry 2: changed after it was written" in found[key]


def test_a_write_onto_an_entry_oms_did_not_write_publishes_nothing(
    on_etcd: Store, client: Etcd, store: Store
) -> None:
    """The issue-24 lesson on keys: the entry and the record are one transaction, and a head
    that is not oms's stops the writer before it (with the head it cached, and without)."""
    _fill(on_etcd)
    forged = _entry_key(on_etcd, 5)
    client.put(forged, _value(client, _entry_key(on_etcd, 4)).replace(b'"seq":4', b'"seq":5'))
    backend = _backend(on_etcd)
    fresh = Store(store.state, backend=EtcdStore(client, backend.prefix, backend.line))
    for writer in (on_etcd, fresh):  # its head cached at entry 4; none cached
        with pytest.raises(IntegrityError, match="is not an entry oms wrote"):
            writer.records("worker").create(
                "dsp-3",
                state="idle",
                payload=payload("worker"),
                operation_id="op-create",
                actor="oms-system",
                observed_at=ts(0),
            )
        with pytest.raises(IntegrityError, match="is not an entry oms wrote"):
            writer.events.create("evt-9", "session-registered", ts(3), BODY)
    assert list(client.range_prefix(backend.key("records/worker/dsp-3/"))) == []
    assert client.get(backend.key("latest/worker/dsp-3")) is None
    assert client.get(backend.key("events/evt-9.json")) is None
    assert client.get(_entry_key(on_etcd, 6)) is None


def test_a_store_opened_without_the_state_key_writes_nothing(
    store: Store, client: Etcd, etcd_prefix: str
) -> None:
    reader = Store(store.state, backend=EtcdStore(client, etcd_prefix))
    with pytest.raises(IntegrityError, match="without the state key"):
        reader.events.create("evt-1", "session-registered", ts(2), BODY)
    assert list(client.range_prefix(etcd_prefix)) == []


def test_racing_writers_never_take_one_number(
    on_etcd: Store, etcd_cluster: Cluster, store: Store
) -> None:
    """Four writers, each with a client and a cached head of its own, 5 records each: every write
    lands with its own entry, and the chain links."""
    writers, each = 4, 5
    start = threading.Barrier(writers)
    failures: list[BaseException] = []
    backend = _backend(on_etcd)

    def writer(w: int) -> None:
        own = Etcd(etcd_cluster.endpoints)
        mine = Store(store.state, backend=EtcdStore(own, backend.prefix, backend.line))
        start.wait()
        try:
            for i in range(each):
                mine.records("worker").create(
                    f"dsp-{w}-{i}",
                    state="idle",
                    payload=payload("worker"),
                    operation_id="op-create",
                    actor="oms-system",
                    observed_at=ts(0),
                )
        except BaseException as exc:  # reported below
            failures.append(exc)
        finally:
            own.close()

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    walked = walk_keys(backend)
    assert walked.problems == []
    assert (walked.entries, walked.noted) == (writers * each, writers * each)


@pytest.mark.cli
def test_oms_audit_verify_walks_the_keys_of_a_cluster(
    chain: Chain, oms: OmsCommand, client: Etcd, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for title in ("First", "Second"):
        code, out = _oms(oms, chain, "ticket", "add", "--title", title, "--no-body")
        assert code == 0, out
    code, out = _oms(oms, chain, "audit", "verify", "--json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["ok"], doc
    assert not any("etcd" in note for note in doc["notes"]), doc  # every entry's MAC checked
    code, out = _oms(oms, chain, "audit", "log", "--json")
    assert code == 0, out
    rows = json.loads(out)["entries"]
    whats = [(r["seq"], r["what"].split(" by ")[0].split(" (")[0]) for r in rows]
    assert whats[0][0] == 1, whats  # the state root's first write claims its host name first
    assert re.fullmatch(r"names/[^/]+\.json", whats[0][1]), whats
    assert whats[1:] == [  # (amendment `cross6`)
        (2, "ticket content of tkt-1"),  # its body, on the cluster (amendment `etcdtick`)
        (3, "ticket tkt-1 v0 -> open"),
        (4, "ticket content of tkt-2"),
        (5, "ticket tkt-2 v0 -> open"),
    ]
    first = f"{etcd_prefix}ledger/{1:020d}"
    client.delete(first)
    code, out = _oms(oms, chain, "audit", "verify")
    assert code == 1, out
    assert f"bad: etcd:{first}: ledger entry 1 is missing (deleted)" in out, out
    assert f"bad: etcd:{etcd_prefix}{whats[0][1]}: is in no ledger entry" in out, out  # entry 1's
    assert "oms: error: the ledger does not hold: etcd:" in out, out
    assert "Traceback" not in out
    code, out = _oms(oms, chain, "audit", "log")  # the timeline stops where the chain breaks
    assert code == 1, out
    assert "ledger entry 2 on etcd does not start the chain" in out, out
    code, out = _oms(oms, chain, "store", "verify")  # the same finding, by the other walk
    assert code == 1, out
    assert f"etcd:{first}" in out, out
