"""Crash (compaction, ADR 0022): a version written just before a kill in `retire_record` is not
swept.

`retire_record` looks at a record's versions, moves the directory aside
(`compacted/retired/<kind>.<id>`), looks again, and moves it back if a version was written between
the first look and the move. Before its fix, a compaction killed after the move and before the
second look left the directory aside WITH that new version in it; the next compaction's
`sweep_retired` then deleted everything in `compacted/retired/` unseen ("its archive was noted
before"), including the version no archive holds: a ledgered record version destroyed, and `oms
audit verify` reporting it deleted. Now what a killed compaction left aside is removed only when an
archive holds it with those bytes; a version no archive holds goes back to its place (or stays,
named), and the ledger still verifies."""

from __future__ import annotations

from oms.store import Store, compaction
from tests.chain import Chain
from tests.integration.test_compaction import _audit, _compact, _ended


def _put(chain: Chain, rel: str, data: bytes) -> None:
    path = chain.state / rel
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(0o600)


def test_a_version_written_before_a_kill_in_retire_record_is_not_swept_away(chain: Chain) -> None:
    ticket_a, dispatch_id = _ended(chain)
    chain.clock.advance(2 * 24 * 60)
    assert [r["ticket_id"] for r in _compact(chain).compacted] == [ticket_a]
    with Store.open(str(chain.state)) as store:
        archive = compaction.read(store.state.root, ticket_a)
    assert archive is not None
    for rel, data in archive.files.items():  # back to the moment after publish, before any removal
        _put(chain, rel, data)

    # a writer publishes one more version of the worker record (ledgered: it is oms's own write) ...
    with chain.workspace() as ws:
        workers = ws.store.records("worker")
        latest = workers.read(dispatch_id)
        workers.transition(
            dispatch_id,
            expected_version=latest.version,
            state=latest.state,
            payload={**latest.payload, "end_detail": "written late"},
            operation_id="wkr-late-0123456789abcdef0123456789abcdef",
            actor="oms-system",
            observed_at=ws.now(),
        )
    new = f"records/worker/{dispatch_id}/{latest.version + 1}.json"
    assert (chain.state / new).is_file()
    assert new not in archive.files
    # ... then the compaction moves the directory aside and is killed before its second look
    (chain.state / compaction.RETIRED).mkdir(mode=0o700, parents=True, exist_ok=True)
    (chain.state / "records" / "worker" / dispatch_id).rename(
        chain.state / compaction.RETIRED / f"worker.{dispatch_id}"
    )

    _compact(chain)
    problems, _ = _audit(chain)
    assert not any(new in p for p in problems), (
        f"a version no archive holds was deleted: {problems!r}"
    )
    assert (chain.state / new).is_file()
