"""Crash (compaction, ADR 0022): a compaction killed between an event and its receipt is finished.

A compaction removes an event, then that event's receipts
(`outbox/<consumer>/<event>.receipt.json`), then the records. Killed right after the event's unlink,
it leaves the receipt behind with its event gone; `oms store verify` rightly flags "receipt for
event ..., which does not exist". Before its fix, the next compaction found receipts only through
the events still on disk (`_Parts.files`): the orphan was never looked at again, and `oms store
verify` failed for ever. Now the next compaction removes the receipt the archive holds, and `oms
store verify` is ok."""

from __future__ import annotations

from oms.services.chain.liveness import CONSUMER
from oms.store import Store, compaction
from oms.store.verify import verify as store_verify
from tests.chain import Chain
from tests.integration.test_compaction import _audit, _compact, _ended


def _put(chain: Chain, rel: str, data: bytes) -> None:
    path = chain.state / rel
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(0o600)


def test_a_compaction_killed_between_an_event_and_its_receipt_is_finished_by_the_next(
    chain: Chain,
) -> None:
    ticket_a, dispatch_id = _ended(chain)
    with Store.open(str(chain.state)) as store:  # the delivery's consumer answered its event
        delivery = str(store.records("dispatch").read(dispatch_id).payload["delivery_event_id"])
        store.outbox(CONSUMER).commit_receipt(
            delivery, "2026-01-01T00:00:00.000Z", {"status": "created"}
        )
    receipt = f"outbox/{CONSUMER}/{delivery}.receipt.json"
    answer = (chain.state / receipt).read_bytes()
    chain.clock.advance(2 * 24 * 60)
    assert [r["ticket_id"] for r in _compact(chain).compacted] == [ticket_a]
    assert not (
        chain.state / receipt
    ).exists()  # receipts are not archived (not ledgered): they go with events
    with Store.open(str(chain.state)) as store:
        archive = compaction.read(store.state.root, ticket_a)
    assert archive is not None
    assert receipt not in archive.files

    # put back what a compaction killed right after `unlink(events/<delivery>.json)` left: every
    # record (they go last), the delivery's receipt (receipts go after the events), and every event
    # after it (in order)
    event = f"events/{delivery}.json"
    for rel, data in archive.files.items():
        if rel.startswith("records/") or (rel.startswith("events/") and rel > event):
            _put(chain, rel, data)
    _put(chain, receipt, answer)
    assert not (chain.state / event).exists()
    assert _audit(chain)[0] == []

    _compact(chain)
    assert not (chain.state / "records" / "dispatch" / dispatch_id).exists()
    assert _audit(chain)[0] == []
    report = store_verify(str(chain.state))
    assert report.ok, [(f.path, f.problem) for f in report.findings if f.severity != "note"]
