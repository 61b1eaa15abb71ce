"""Bug (ledger, ADR 0022), fixed: with a torn tail, `oms audit checkpoint` signs the last complete
entry.

Before its fix, `checkpoint` meant to sign the last complete line when the tail is torn, but
`rsplit(b"\\n", 1)` has at most two parts, so `lines[-2]` was the whole tail before the torn line
(several lines, the first cut mid-way): `parse_line` refused it, and `oms audit checkpoint` - and
the conductor's checkpoint phase every tick - failed with 'not a ledger line' while a dead writer's
torn line was there."""

from __future__ import annotations

import json

from oms.store import ledger
from tests.chain import Chain
from tests.helpers import oms_command


def test_a_torn_tail_still_signs_the_last_complete_entry(chain: Chain) -> None:
    chain.proposed()
    chain.proposed("More")
    log = chain.state / "ledger" / "log"
    last = ledger.read_chain_from(str(chain.state))[-1]
    log.write_bytes(
        log.read_bytes() + b'{"at":"2026-12-01T00:00:00.000Z","kind":"rec'
    )  # a writer died mid-line
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    done = oms_command().run("audit", "checkpoint", "--json", *roots)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["checkpoint"]["seq"] == last.seq
