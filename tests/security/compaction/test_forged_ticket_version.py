"""Attack (compaction, ADR 0022): a ticket version the ledger never saw does not make a ticket due.

Before its fix, compaction checked that every file it MOVES has the bytes of its ledger entry, but
decided WHETHER to compact on the ticket's latest record version, which it never checked against the
ledger. A state-root writer (no key) dropped one more version of a ticket,
`records/ticket/<id>/<n+1>.json`, a copy of the latest with `observed_at` moved ten days back
(records are not signed; the latest version only has to name the one before). The ticket, ended a
minute ago with a 1-day retention, was compacted at once: its dispatch, worker, evidence and events
left their places on the strength of bytes the ledger never saw. The attacker then deleted the
forged version and `oms audit verify` was clean again. The same worked for a ticket not ended at
all, as long as its dispatches had ended (a retried ticket, say). Now a ticket whose latest version
is not as the ledger has it is never compacted (kept, with why)."""

from __future__ import annotations

import hashlib
import json

from oms.canonical import add_ms
from tests.chain import Chain
from tests.integration.test_compaction import _audit, _compact, _ended


def test_a_ticket_version_the_ledger_never_saw_does_not_make_a_ticket_due(chain: Chain) -> None:
    ticket_a, dispatch_id = _ended(chain)
    assert _compact(chain).not_due == 1  # ended a moment ago: retention (1 day) has not run out
    top = chain.state / "records" / "ticket" / ticket_a
    latest = max(top.glob("*.json"), key=lambda p: int(p.stem))
    doc = json.loads(latest.read_bytes())
    n = int(latest.stem)
    doc.update(
        version=n + 1,
        expected_version=n,
        previous_sha256=hashlib.sha256(latest.read_bytes()).hexdigest(),
        observed_at=add_ms(doc["observed_at"], -10 * 24 * 3600 * 1000),
        operation_id="tkt-forged-0123456789abcdef0123456789abcdef",
    )
    forged = top / f"{n + 1}.json"
    forged.write_bytes(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode())
    forged.chmod(0o600)

    report = _compact(chain)
    forged.unlink()  # the attacker covers the trace

    assert (chain.state / "records" / "dispatch" / dispatch_id).is_dir(), (
        f"compacted on a forged ticket version: {report.compacted}; "
        f"audit verify now says {_audit(chain)[0]!r}"
    )
