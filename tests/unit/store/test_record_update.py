"""`RecordStore.update`: the one read-decide-write-retry of a record's next version.

Concurrent writers lose no update (every successful update is one version, in one chain), a lost
race is decided again on the version that won, and the retry bound is respected.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oms.canonical import add_ms, now
from oms.errors import IllegalTransitionError, RecordNotFoundError, VersionConflictError
from oms.store import Change, Record, Store
from oms.store.stateroot import StateRoot
from tests.helpers import payload, ts


def _create(store: Store, rid: str = "dsp-1") -> None:
    store.records("worker").create(
        rid,
        state="idle",
        payload=payload("worker"),
        operation_id="op-create",
        actor="oms-system",
        observed_at=ts(0),
    )


def _next(current: Record, op: str) -> Change:
    return Change(
        "working" if current.state == "idle" else "idle",
        current.payload,
        op,
        "oms-system",
        add_ms(current.observed_at, 1),
    )


def _fresh(tmp: Path) -> Store:
    path = tmp / "state"
    state, _ = StateRoot.create(str(path), now())
    state.close()
    return Store.open(str(path))


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(writers=st.integers(2, 4), each=st.integers(1, 4), rounds=st.integers(1, 4))
def test_concurrent_writers_lose_no_update_and_respect_the_bound(
    tmp_path_factory: pytest.TempPathFactory, writers: int, each: int, rounds: int
) -> None:
    store = _fresh(tmp_path_factory.mktemp("upd"))
    _create(store)
    records = store.records("worker")
    start = threading.Barrier(writers)
    lock = threading.Lock()
    won: list[str] = []
    gave_up: list[int] = []  # decide calls of each update that raised

    def writer(w: int) -> None:
        start.wait()
        for i in range(each):
            op = f"op-w{w}-{i}"
            calls = 0

            def decide(current: Record, op: str = op) -> Change:
                nonlocal calls
                calls += 1
                return _next(current, op)

            try:
                done = records.update("dsp-1", decide, rounds=rounds)
            except VersionConflictError:
                with lock:
                    gave_up.append(calls)
                continue
            assert done is not None
            assert done.record.operation_id == op
            assert calls <= rounds
            with lock:
                won.append(op)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    history = records.history("dsp-1")
    assert len(history) == 1 + len(won)  # every update that returned is one version ...
    assert sorted(r.operation_id for r in history[1:]) == sorted(won)  # ... and no other
    assert all(calls == rounds for calls in gave_up)  # a writer gives up after exactly `rounds`
    assert len(won) + len(gave_up) == writers * each


@given(races=st.integers(0, 6), rounds=st.integers(1, 6))
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_lost_race_is_decided_again_on_the_winner(
    tmp_path_factory: pytest.TempPathFactory, races: int, rounds: int
) -> None:
    store = _fresh(tmp_path_factory.mktemp("race"))
    _create(store)
    records = store.records("worker")
    seen: list[int] = []

    def decide(current: Record) -> Change:
        seen.append(current.version)
        change = _next(current, "op-mine")
        if len(seen) <= races:  # another writer lands this version first
            records.transition(
                "dsp-1",
                expected_version=current.version,
                state=change.state,
                payload=change.payload,
                operation_id=f"op-other-{len(seen)}",
                actor="oms-system",
                observed_at=change.observed_at,
            )
        return change

    if races >= rounds:
        with pytest.raises(VersionConflictError):
            records.update("dsp-1", decide, rounds=rounds)
        assert len(seen) == rounds
        assert records.read("dsp-1").version == rounds
    else:
        done = records.update("dsp-1", decide, rounds=rounds)
        assert done is not None
        assert done.record.version == races + 1
        assert seen == list(range(races + 1))  # each round saw the version that won


def test_nothing_to_write_writes_nothing(store: Store) -> None:
    _create(store)
    assert store.records("worker").update("dsp-1", lambda _r: None) is None
    assert store.records("worker").read("dsp-1").version == 0


def test_a_refusal_passes_through_unwritten(store: Store) -> None:
    _create(store)

    def refuse(current: Record) -> Change:
        raise IllegalTransitionError("worker", current.state, "nope")

    with pytest.raises(IllegalTransitionError):
        store.records("worker").update("dsp-1", refuse)
    assert store.records("worker").read("dsp-1").version == 0


def test_a_missing_record_is_not_found_unless_upserted(store: Store) -> None:
    with pytest.raises(RecordNotFoundError):
        store.records("worker").update("dsp-1", lambda r: _next(r, "op"))

    def create(current: Record | None) -> Change:
        assert current is None
        return Change("idle", payload("worker"), "op-create", "oms-system", ts(0))

    done = store.records("worker").upsert("dsp-1", create)
    assert done is not None
    assert done.record.version == 0


def test_the_bound_is_the_limit_by_default(store: Store) -> None:
    _create(store)
    records = store.records("worker")
    calls: list[int] = []

    def always_lose(current: Record) -> Change:
        calls.append(current.version)
        change = _next(current, "op-mine")
        records.transition(
            "dsp-1",
            expected_version=current.version,
            state=change.state,
            payload=change.payload,
            operation_id=f"op-other-{len(calls)}",
            actor="oms-system",
            observed_at=change.observed_at,
        )
        return change

    with pytest.raises(VersionConflictError):
        records.update("dsp-1", always_lose)
    assert len(calls) == store.limits.record_race_rounds


def test_a_stale_first_version_loses_once_then_the_latest_is_read(store: Store) -> None:
    _create(store)
    records = store.records("worker")
    stale = records.read("dsp-1")
    records.update("dsp-1", lambda r: _next(r, "op-other"))
    seen: list[int] = []

    def decide(current: Record) -> Change:
        seen.append(current.version)
        return _next(current, "op-mine")

    done = records.update("dsp-1", decide, first=stale, rounds=2)
    assert done is not None
    assert done.record.version == 2
    assert seen == [0, 1]
    with pytest.raises(VersionConflictError):
        records.write_next(stale, _next(stale, "op-late"))
