"""The etcd client against a real 3-member cluster (ADR 0043): compare-and-set races, create-once,
a lock's lease lapsing and its fencing token refusing the old holder's write, a member killed and
started again, an unreachable cluster named in one line within the timeout, paging, watch."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oms.adapters.etcd.client import Compare, Delete, Etcd, Get, Put
from oms.errors import EtcdError, EtcdUnavailableError, StoreError
from oms.limits import LIMITS
from tests.etcd_cluster import Cluster, free_ports
from tests.helpers import eventually


@pytest.fixture
def etcd(etcd_cluster: Cluster) -> Iterator[Etcd]:
    client = Etcd(etcd_cluster.endpoints)
    yield client
    client.close()


def test_put_get_and_a_missing_key(etcd: Etcd, etcd_prefix: str) -> None:
    key = etcd_prefix + "a"
    assert etcd.get(key) is None
    revision = etcd.put(key, b"\x00bytes\xff")
    found = etcd.get(key)
    assert found is not None
    assert (found.value, found.create_revision, found.mod_revision) == (
        b"\x00bytes\xff",
        revision,
        revision,
    )
    assert etcd.delete(key) == 1
    assert etcd.get(key) is None


def test_create_once_lets_one_create_and_tells_the_second(etcd: Etcd, etcd_prefix: str) -> None:
    key = etcd_prefix + "event"
    first = etcd.txn([Compare.absent(key)], [Put(key, b"one")], [Get(key)])
    second = etcd.txn([Compare.absent(key)], [Put(key, b"two")], [Get(key)])
    assert first.succeeded
    assert not second.succeeded
    assert second.reads[0] is not None
    assert second.reads[0].value == b"one"


def test_two_writers_racing_one_compare_and_set_one_wins(
    etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    key = etcd_prefix + "latest"
    seed = Etcd(etcd_cluster.endpoints)
    seen = seed.put(key, b"0")
    won: list[str] = []
    start = threading.Barrier(8)

    def writer(name: str) -> None:
        client = Etcd(etcd_cluster.endpoints)  # each its own connection, through a member
        try:
            start.wait()
            if client.txn([Compare.modified_at(key, seen)], [Put(key, name.encode())]).succeeded:
                won.append(name)
        finally:
            client.close()

    threads = [threading.Thread(target=writer, args=(f"w{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1
    found = seed.get(key)
    assert found is not None
    assert found.value == won[0].encode()
    seed.close()


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(writes=st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=12))
def test_compare_and_set_from_a_stale_revision_always_loses(
    etcd: Etcd, etcd_prefix: str, writes: list[str]
) -> None:
    """Writers that each read, then write at what they read, interleaved with a stale one: only
    writes from the latest revision land, and the key holds exactly the landed writes' last."""
    key = f"{etcd_prefix}cas-{time.monotonic_ns()}"
    etcd.put(key, b"start")
    stale = etcd.get(key)
    assert stale is not None
    landed = []
    for value in writes:
        current = etcd.get(key)
        assert current is not None
        if etcd.txn(
            [Compare.modified_at(key, current.mod_revision)], [Put(key, value.encode())]
        ).succeeded:
            landed.append(value)
        assert not etcd.txn(
            [Compare.modified_at(key, stale.mod_revision)], [Put(key, b"stale")]
        ).succeeded
    assert landed == writes
    final = etcd.get(key)
    assert final is not None
    assert final.value == writes[-1].encode()


def test_a_lapsed_lock_refuses_the_old_holders_fenced_write(etcd: Etcd, etcd_prefix: str) -> None:
    lock, record = etcd_prefix + "locks/outbox", etcd_prefix + "records/r"
    first = etcd.grant(1)
    taken = etcd.txn(
        [Compare.absent(lock)], [Put(lock, b"host-a 1", lease=first.lease_id)], [Get(lock)]
    )
    assert taken.succeeded
    held = etcd.get(lock)
    assert held is not None
    token = held.create_revision
    assert held.lease == first.lease_id
    # the holder keeps it alive: a fenced write lands
    assert etcd.keepalive(first.lease_id) > 0
    fenced = etcd.txn([Compare.created_at(lock, token)], [Put(record, b"by a")])
    assert fenced.succeeded
    # then it stops (a pause, a partition): the lease lapses and the key goes with it
    eventually(lambda: etcd.get(lock) is None, timeout=10, what="the lock's lease lapses")
    assert etcd.keepalive(first.lease_id) == 0
    second = etcd.grant(LIMITS.etcd_lock_ttl_s)
    assert etcd.txn(
        [Compare.absent(lock)], [Put(lock, b"host-b 2", lease=second.lease_id)]
    ).succeeded
    late = etcd.txn([Compare.created_at(lock, token)], [Put(record, b"late by a")])
    assert not late.succeeded
    found = etcd.get(record)
    assert found is not None
    assert found.value == b"by a"
    assert etcd.revoke(second.lease_id)
    assert etcd.get(lock) is None
    assert not etcd.revoke(second.lease_id)


def test_a_member_killed_and_started_again_the_cluster_keeps_serving(
    etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    first = etcd_cluster.members[0]
    client = Etcd(etcd_cluster.endpoints)  # asks the first member first
    try:
        client.put(etcd_prefix + "before", b"1")
        etcd_cluster.kill(first)
        client.put(etcd_prefix + "during", b"2")  # the next member answers
        found = client.get(etcd_prefix + "before")
        assert found is not None
        assert found.value == b"1"
        etcd_cluster.restart(first)
        etcd_cluster.wait_healthy([first])
        alone = Etcd([first.client_url])
        try:
            got = eventually(
                lambda: alone.get(etcd_prefix + "during"), timeout=10, what="the member caught up"
            )
            assert got.value == b"2"
        finally:
            alone.close()
    finally:
        client.close()


def test_an_unreachable_cluster_is_one_line_within_the_timeout() -> None:
    ports = free_ports(2)
    limits = LIMITS._replace(etcd_call_s=0.5)
    client = Etcd([f"http://127.0.0.1:{p}" for p in ports], limits)
    began = time.monotonic()
    with pytest.raises(EtcdUnavailableError) as caught:
        client.get("/oms/x")
    assert time.monotonic() - began < 2 * 0.5 + 1
    assert isinstance(caught.value, StoreError)
    assert "\n" not in caught.value.message
    assert caught.value.message.startswith("etcd unreachable")
    assert str(ports[0]) in caught.value.message
    assert caught.value.remedy


def test_a_member_that_accepts_and_never_answers_is_left_within_the_timeout() -> None:
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    try:
        client = Etcd(
            [f"http://127.0.0.1:{listener.getsockname()[1]}"], LIMITS._replace(etcd_call_s=0.3)
        )
        began = time.monotonic()
        with pytest.raises(EtcdUnavailableError):
            client.put("/oms/x", b"y")
        assert time.monotonic() - began < 2
    finally:
        listener.close()


def test_an_error_answer_is_an_etcd_error(etcd: Etcd) -> None:
    with pytest.raises(EtcdError, match="lease not found"):
        etcd.put("/oms-test/x", b"y", lease=12345)


def test_a_prefix_is_read_in_pages_at_one_revision(etcd_cluster: Cluster, etcd_prefix: str) -> None:
    client = Etcd(etcd_cluster.endpoints, LIMITS._replace(etcd_range_page=3))
    try:
        for i in range(10):
            client.put(f"{etcd_prefix}p/{i:02d}", str(i).encode())
        client.put(f"{etcd_prefix}p0", b"outside")  # next to the prefix, not under it
        walk = client.range_prefix(etcd_prefix + "p/")
        first = next(walk)
        client.put(f"{etcd_prefix}p/99", b"after the walk began")
        keys = [first.key] + [kv.key for kv in walk]
        assert keys == [f"{etcd_prefix}p/{i:02d}" for i in range(10)]
    finally:
        client.close()


def test_a_watch_wakes_on_a_change_and_resumes_from_its_revision(
    etcd: Etcd, etcd_prefix: str
) -> None:
    start = etcd.put(etcd_prefix + "w/a", b"1")
    got = etcd.watch(etcd_prefix + "w/", start, wait_s=5)
    assert [(e.kind, e.key, e.value) for e in got.events] == [("PUT", etcd_prefix + "w/a", b"1")]
    assert not etcd.watch(etcd_prefix + "w/", got.next_revision, wait_s=0.3).events
    etcd.txn([], [Delete(etcd_prefix + "w/a")])
    later = etcd.watch(etcd_prefix + "w/", got.next_revision, wait_s=5)
    assert [(e.kind, e.key) for e in later.events] == [("DELETE", etcd_prefix + "w/a")]


def test_a_watch_goes_past_a_dead_member_and_a_revision_cut_at_its_bound_comes_again(
    etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """A revision's events cut by `LIMITS.etcd_watch_events` are not skipped: the next watch starts
    at that revision again (a wake, not a log; a transaction holds at most 128 changes, far under
    the default bound)."""
    dead = f"http://127.0.0.1:{free_ports(1)[0]}"
    client = Etcd([dead, *etcd_cluster.endpoints], LIMITS._replace(etcd_watch_events=2))
    try:
        keys = [f"{etcd_prefix}t/{k}" for k in "abc"]
        done = client.txn([], [Put(k, b"v") for k in keys])  # three events at one revision
        got = client.watch(etcd_prefix + "t/", done.revision, wait_s=5)
        assert [e.key for e in got.events] == keys[:2]
        assert got.next_revision == done.revision
        whole = Etcd(etcd_cluster.endpoints)
        try:
            again = whole.watch(etcd_prefix + "t/", got.next_revision, wait_s=5)
        finally:
            whole.close()
        assert [e.key for e in again.events] == keys
        assert again.next_revision == done.revision + 1
    finally:
        client.close()
