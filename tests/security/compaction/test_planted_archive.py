"""Attack (compaction, ADR 0022): a planted archive never vouches for another ticket's record.

Before its fix, a state-root writer without the state key planted `compacted/<A>.json.z` for an
ended, due ticket A before `oms store compact` ran. The archive held no file of A but the newest
version of a LIVE dispatch record of another ticket B, with its real bytes. Compaction found "an
archive a compaction that died left", checked only that each member had its ledgered bytes, and
noted it in the ledger (`note_again`). From then on the ledger vouched for B's record as
"compacted": the attacker deleted it (rolling B's dispatch back to an older version) and `oms audit
verify` passed. Now such an archive is never noted, so deleting B's record is caught."""

from __future__ import annotations

from oms.store import Store, compaction
from tests.chain import Chain, accepted
from tests.integration.test_compaction import _audit, _compact, _ended


def test_a_planted_archive_never_vouches_for_another_tickets_record(chain: Chain) -> None:
    ticket_a, _ = _ended(chain)
    chain.clock.advance(2 * 24 * 60)
    dispatch_b, _ = accepted(chain, "Another, live ticket")
    versions = sorted(
        (chain.state / "records" / "dispatch" / dispatch_b).glob("*.json"),
        key=lambda p: int(p.stem),
    )
    assert len(versions) >= 2
    newest = versions[-1]
    rel = newest.relative_to(chain.state).as_posix()
    forged = compaction.encode(ticket_a, "2020-01-01T00:00:00Z", {rel: newest.read_bytes()})
    where = chain.state / compaction.archive_path(ticket_a)
    where.parent.mkdir(mode=0o700, exist_ok=True)
    where.write_bytes(forged)
    where.chmod(0o600)

    _compact(chain)
    newest.unlink()  # the attacker rolls B's dispatch back one version

    with Store.open(str(chain.state)) as store:
        latest = store.records("dispatch").read(dispatch_b)
    assert latest.version == len(versions) - 2  # the rollback took: B's dispatch is older now
    problems, _ = _audit(chain)
    assert any(rel in p for p in problems), f"{rel} deleted, yet audit verify says {problems!r}"
