"""Planted files in the live index (ADR 0035) hide no expired lease: markers someone wrote into
`index/live/ticket/` — of a ticket that does not exist, an id that is not one, a directory where a
marker goes, a version far ahead — never stop the next one-shot tick from expiring a lease that ran
out, and `oms store verify` names what is not a marker. (A live ticket's marker removed by hand
is named by `oms store verify`: the index is a cache of the records, ADR 0035.)"""

from __future__ import annotations

import pytest

from oms.store import live
from oms.store.verify import verify
from tests.chain import Chain
from tests.integration.test_live_index_expiry import _one_shot

PLANTED = ["tkt-999.1", "...1", "-rf.1", "x" * 200 + ".1", "tkt-1.99999", "not-a-marker"]


@pytest.mark.parametrize("name", PLANTED)
def test_a_planted_marker_hides_no_expired_lease(chain: Chain, name: str) -> None:
    ticket_id, _ = chain.leased_ticket()
    with chain.workspace() as ws:
        lease_minutes = ws.config().lease_minutes
    _one_shot(chain)  # the index built (complete): from here a tick trusts what it names
    index = chain.state / live.TOP / "ticket"
    assert (index / live.COMPLETE).exists()
    (index / name).write_bytes(b"")
    chain.clock.advance(lease_minutes + 1)
    report = _one_shot(chain)
    expire = next(p for p in report.phases if p.name == "expire")
    assert any(line.startswith(f"{ticket_id}: lease expired") for line in expire.done), expire


def test_a_planted_directory_hides_no_expired_lease(chain: Chain) -> None:
    ticket_id, _ = chain.leased_ticket()
    with chain.workspace() as ws:
        lease_minutes = ws.config().lease_minutes
    _one_shot(chain)
    (chain.state / live.TOP / "ticket" / "tkt-7.1").mkdir()
    chain.clock.advance(lease_minutes + 1)
    report = _one_shot(chain)
    expire = next(p for p in report.phases if p.name == "expire")
    assert any(line.startswith(f"{ticket_id}: lease expired") for line in expire.done), expire


@pytest.mark.parametrize("planted", ["not-a-marker", "tkt-1.01", "dir"])
def test_store_verify_names_what_is_not_a_marker(chain: Chain, planted: str) -> None:
    chain.leased_ticket()
    _one_shot(chain)
    path = chain.state / live.TOP / "ticket" / ("tkt-7.1" if planted == "dir" else planted)
    if planted == "dir":
        path.mkdir(mode=0o700)
    else:
        path.write_bytes(b"")
        path.chmod(0o600)  # as oms's own files: only what it is can be named
    report = verify(str(chain.state))
    named = [(f.path, f.problem) for f in report.findings if f.severity == "error"]
    where = f"{live.TOP}/ticket/{path.name}"
    assert (where, "unexpected entry in the live index") in named, report.findings
