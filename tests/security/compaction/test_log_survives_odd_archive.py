"""Attack (compaction, ADR 0022): `oms audit log` survives a planted archive with an odd event.

Before its fix, `oms audit log` decoded every file in `compacted/` that looks like an archive,
ledgered or not, and ran `compaction.owned` over it (`services/audit._Archived`), which tests an
event's `payload.dispatch_id` for membership in a set. A state-root writer (no key) planted
`compacted/zz.json.z` holding one event whose `dispatch_id` is a JSON list: the set lookup raised
`TypeError: unhashable type` out of the timeline, and `oms audit log` failed with an internal error
(exit 3) as soon as any ledgered file was not in its place (after any compaction, always). Now it
still answers (exit 0, no traceback), and the planted file vouches for nothing."""

from __future__ import annotations

import json

from oms.store import compaction
from tests.chain import Chain
from tests.helpers import oms_command
from tests.integration.test_compaction import _compact, _ended


def test_audit_log_survives_a_planted_archive_with_an_odd_event(chain: Chain) -> None:
    ticket_a, dispatch_id = _ended(chain)
    chain.clock.advance(2 * 24 * 60)
    assert [r["ticket_id"] for r in _compact(chain).compacted] == [ticket_a]
    odd = json.dumps({"payload": {"ticket_id": "other", "dispatch_id": []}}).encode()
    plant = chain.state / "compacted" / "zz.json.z"
    plant.write_bytes(compaction.encode("zz", "2020-01-01T00:00:00Z", {"events/evt-odd.json": odd}))
    plant.chmod(0o600)

    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    log = oms_command().run("audit", "log", "--dispatch", dispatch_id, "--json", *where)
    assert "Traceback" not in log.stderr, log.stderr[-600:]
    assert log.returncode == 0, log.stderr[-600:]
    assert json.loads(log.stdout)["entries"]
