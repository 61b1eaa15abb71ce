"""Attack (compaction, ADR 0022): `oms ticket show` never reports an archive oms did not write.

Before its fix, `oms ticket show` said a ticket is compacted (and into how many files) from any file
named `compacted/<ticket>.json.z` that decodes, never asking the ledger whether oms wrote it
(`services/compaction.summary`). A state-root writer (no key) planted one for a LIVE ticket (or
deleted its dispatch records and planted one): `ticket show` presented the ticket as compacted, its
history "in the archive", which is exactly the cover story for records that are gone. Now an archive
the ledger has no entry for (or other bytes than its entry) is never shown as the ticket's
compaction."""

from __future__ import annotations

import json

from oms.store import compaction
from tests.chain import Chain, accepted
from tests.helpers import oms_command


def test_ticket_show_never_reports_an_archive_oms_did_not_write(chain: Chain) -> None:
    dispatch_b, _ = accepted(chain, "A live ticket")
    with chain.workspace() as ws:
        ticket_b = str(ws.store.records("dispatch").read(dispatch_b).payload["ticket_id"])
    plant = chain.state / compaction.archive_path(ticket_b)
    plant.parent.mkdir(mode=0o700, exist_ok=True)
    plant.write_bytes(compaction.encode(ticket_b, "2020-01-01T00:00:00Z", {}))
    plant.chmod(0o600)

    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    shown = oms_command().run("ticket", "show", ticket_b, "--json", *where)
    assert shown.returncode == 0, shown.stderr
    got = json.loads(shown.stdout)["compacted"]
    assert got is None or "error" in got, (
        f"a planted archive shown as the ticket's compaction: {got}"
    )
