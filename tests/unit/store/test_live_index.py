"""The live index (`store/live.py`, issue 26 item 4): which tickets may be open or leased, so the
conductor's expire and fill phases cost what is live, not every ticket ever written. Never a weaker
check: whatever the writes, the crashes between a publish and its marker's removal, the races, the
pruning readers — `Store.live` answers exactly the records whose latest version is live, as a full
scan would."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oms.canonical import now
from oms.store import Store, live, summary
from oms.store.records import RecordStore
from oms.store.stateroot import StateRoot
from tests.helpers import payload, ts

STATES = ("open", "leased", "done", "blocked")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    path = tmp_path / "state"
    StateRoot.create(str(path), now())[0].close()
    with Store.open(str(path)) as opened:
        yield opened


def _scanned(store: Store) -> list[tuple[str, int]]:
    """What a full scan says is live: (id, latest version)."""
    summary._CACHES.clear()
    return sorted(
        (r.record_id, r.version)
        for r in store.latest("ticket").records
        if r.state in live.LIVE["ticket"]
    )


def _live(store: Store) -> list[tuple[str, int]]:
    summary._CACHES.clear()  # as a new process reads it
    return sorted((r.record_id, r.version) for r in store.live("ticket").records)


Step = tuple[int, str, bool, bool]  # (ticket, new state, the writer dies before its removal, read)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.sampled_from(STATES), st.booleans(), st.booleans()),
        max_size=40,
    )
)
def test_the_index_answers_what_a_full_scan_does(
    tmp_path_factory: pytest.TempPathFactory, steps: list[Step]
) -> None:
    path = tmp_path_factory.mktemp("live") / "state"
    StateRoot.create(str(path), now())[0].close()
    with Store.open(str(path)) as store:
        records = store.records("ticket")
        after = live.after
        for n, (ticket, state, dies, read) in enumerate(steps, 1):
            rid = f"tkt-{ticket + 1}"
            current = records.read_if_exists(rid)
            live.after = (lambda *_: None) if dies else after
            try:
                if current is None:
                    records.create(
                        rid, state=state, payload=payload("ticket"), operation_id=f"c{n}",
                        actor="oms-system", observed_at=ts(n),
                    )  # fmt: skip
                else:
                    records.transition(
                        rid, expected_version=current.version, state=state,
                        payload=payload("ticket"), operation_id=f"t{n}", actor="oms-system",
                        observed_at=ts(n),
                    )  # fmt: skip
            finally:
                live.after = after
            if read:
                assert _live(store) == _scanned(store)
        assert _live(store) == _scanned(store)


def _lease(store: Store, rid: str, expires: str) -> None:
    store.records("ticket").create(
        rid,
        state="leased",
        payload=payload("ticket", lease_token="a" * 32, worker_id="w1", lease_expires_at=expires),
        operation_id=f"lease-{rid}",
        actor="oms-system",
        observed_at=ts(1),
    )


def test_a_state_root_from_before_the_index_is_scanned_once_and_indexed(store: Store) -> None:
    _lease(store, "tkt-1", ts(5))
    index = Path(store.path) / live.TOP
    shutil.rmtree(index)  # made by an oms before the index
    assert [r.record_id for r in store.live("ticket").records] == ["tkt-1"]
    assert (index / "ticket" / live.COMPLETE).exists()
    assert (index / "ticket" / "tkt-1.0").exists()


def test_a_marker_a_reader_finds_not_needed_is_pruned(store: Store) -> None:
    records: RecordStore = store.records("ticket")
    _lease(store, "tkt-1", ts(5))
    store.live("ticket")
    index = Path(store.path) / live.TOP / "ticket"
    (index / "tkt-1.7").touch()  # a loser's marker of a version never published: kept
    after = live.after
    live.after = lambda *_: None
    try:  # the writer dies before it removes the marker of version 0
        records.transition(
            "tkt-1", expected_version=0, state="done", payload=payload("ticket"),
            operation_id="done", actor="oms-system", observed_at=ts(2),
        )  # fmt: skip
    finally:
        live.after = after
    assert store.live("ticket").records == []
    assert sorted(p.name for p in index.iterdir()) == [live.COMPLETE, "tkt-1.7"]


def test_store_verify_names_a_live_ticket_the_index_does_not(store: Store) -> None:
    from oms.store.verify import verify

    _lease(store, "tkt-1", ts(5))
    store.live("ticket")
    assert verify(store.path).ok
    (Path(store.path) / live.TOP / "ticket" / "tkt-1.0").unlink()
    found = verify(store.path)
    assert not found.ok
    assert any("the live index does not name it" in f.problem for f in found.findings), found
