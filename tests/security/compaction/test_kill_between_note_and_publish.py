"""Crash + receipt (compaction, ADR 0022): a compaction killed between note and publish is finished.

A compaction notes its archive in the ledger, then publishes it. Killed between the two, it leaves a
`compact` entry for `compacted/<ticket>.json.z` and no archive; the next compaction makes the very
same bytes again ("a noted intent is made again exactly") and finishes. Before its fix, the archive
also held the ticket's outbox receipts, which the ledger does not cover and which anyone may add (a
consumer answering the delivery event late, or a state-root writer with one write, no key needed).
One receipt more, and the next compaction computed other bytes, refused ("was noted with other
bytes"), and did so on every run, while `oms audit verify` reported the noted archive as deleted,
for ever. Now the next compaction finishes (the ticket is compacted) and `oms audit verify` is
clean."""

from __future__ import annotations

import json

from oms.services.chain.liveness import CONSUMER
from oms.store import Store, compaction
from tests.chain import Chain
from tests.integration.test_compaction import _audit, _compact, _ended


def _put(chain: Chain, rel: str, data: bytes) -> None:
    path = chain.state / rel
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(0o600)


def _version(rel: str) -> int:
    return int(rel.rsplit("/", 1)[-1].removesuffix(".json"))


def test_a_compaction_killed_between_note_and_publish_is_finished_despite_a_new_receipt(
    chain: Chain,
) -> None:
    ticket_a, dispatch_id = _ended(chain)
    chain.clock.advance(2 * 24 * 60)
    assert [r["ticket_id"] for r in _compact(chain).compacted] == [ticket_a]
    rel = compaction.archive_path(ticket_a)
    with Store.open(str(chain.state)) as store:
        archive = compaction.read(store.state.root, ticket_a)
    assert archive is not None
    newest = max(
        (p for p in archive.files if p.startswith(f"records/dispatch/{dispatch_id}/")), key=_version
    )
    delivery = str(json.loads(archive.files[newest])["payload"]["delivery_event_id"])
    # what a compaction killed right after `note_intent` leaves: every file in place, the archive
    # noted, unpublished
    for path, data in archive.files.items():
        _put(chain, path, data)
    (chain.state / rel).unlink()
    assert (chain.state / "records" / "dispatch" / dispatch_id).is_dir()

    # the delivery's consumer answers its event now (or a state-root writer drops a receipt: no key
    # needed)
    with Store.open(str(chain.state)) as store:
        store.outbox(CONSUMER).commit_receipt(
            delivery, "2026-01-01T00:00:00.000Z", {"status": "created"}
        )

    done = _compact(chain)
    assert [r["ticket_id"] for r in done.compacted] == [ticket_a], done.kept
    assert not (chain.state / "records" / "dispatch" / dispatch_id).exists()
    assert _audit(chain)[0] == []
