"""Attack (compaction, ADR 0022): the timeline never shows archived bytes the ledger does not vouch
for.

Before its fix, `oms audit log` read the bytes of a compacted entry from every file in `compacted/`
that decodes as an archive (`services/admin/audit.py` `_Archived`), ledgered or not, a later one
overriding an earlier one, and never checked them against the entry's sha256. A state-root writer
planted `compacted/zz.json.z` (its name and ticket_id agree) holding a compacted dispatch version
with another state; the timeline, "the ledger as a readable timeline", then showed the attacker's
history for a MAC'd entry. Now it shows for an entry only bytes whose sha256 is the entry's."""

from __future__ import annotations

import json

from oms.store import Store, compaction
from tests.chain import Chain
from tests.helpers import oms_command
from tests.integration.test_compaction import _compact, _ended


def test_the_timeline_never_shows_archived_bytes_the_ledger_does_not_vouch_for(
    chain: Chain,
) -> None:
    ticket_a, dispatch_id = _ended(chain)
    chain.clock.advance(2 * 24 * 60)
    assert [r["ticket_id"] for r in _compact(chain).compacted] == [ticket_a]
    with Store.open(str(chain.state)) as store:
        archive = compaction.read(store.state.root, ticket_a)
    assert archive is not None
    forged: dict[str, bytes] = {}
    for path, data in archive.files.items():
        if path.startswith(f"records/dispatch/{dispatch_id}/"):
            doc = json.loads(data)
            doc["state"] = "rejected"
            forged[path] = json.dumps(doc).encode()
    assert forged
    plant = chain.state / "compacted" / "zz.json.z"
    plant.write_bytes(compaction.encode("zz", "2020-01-01T00:00:00Z", forged))
    plant.chmod(0o600)

    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    log = oms_command().run("audit", "log", "--dispatch", dispatch_id, "--json", *where)
    assert log.returncode == 0, log.stderr
    whats = [r["what"] for r in json.loads(log.stdout)["entries"]]
    assert not any(
        w.startswith(f"dispatch {dispatch_id} v") and w.endswith("-> rejected") for w in whats
    ), whats
