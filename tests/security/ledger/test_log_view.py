"""Bug (ledger, ADR 0022), fixed: `oms audit log` says where the chain breaks, as `audit verify`
does.

Before its fix, the timeline used `read_chain(...).entries` and dropped `.fault`: a line rewritten
in the middle of the ledger silently ended the timeline there, exit 0, with nothing said - every
later entry (what the attacker wants hidden) just was not shown."""

from __future__ import annotations

import json

from oms.store import ledger
from tests.chain import Chain
from tests.helpers import oms_command


def test_the_timeline_says_where_the_chain_breaks(chain: Chain) -> None:
    chain.proposed()
    chain.proposed("More")
    log = chain.state / "ledger" / "log"
    lines = log.read_bytes().splitlines(keepends=True)
    total = len(lines)
    doc = json.loads(lines[1])
    doc["sha256"] = "0" * 64
    lines[1] = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    log.write_bytes(b"".join(lines))
    assert len(ledger.read_chain_from(str(chain.state))) == 2
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    shown = oms_command().run("audit", "log", *roots)
    assert total > 3
    assert shown.returncode != 0 or "ledger line" in shown.stderr + shown.stdout, (
        f"{total - 2} entries hidden without a word: {shown.stdout!r}"
    )
