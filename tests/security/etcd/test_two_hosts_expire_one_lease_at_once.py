"""Two hosts expire one lapsed lease at once (ADR 0043, amendment `names2`; SECURITY.md "The
authority store on etcd", 22): a person's `oms ticket expire` on host b racing host a's (or a's
conductor's expire phase). The lease-expiry evidence is addressed by its content, which both
hosts compute alike; the first creates it, signed by its state key. The second found it there
signed by another key and ended in one line, `signature` ("signed by another key") — an
integrity alarm for a race it had merely lost — and a person's expire stopped there, leaving the
other lapsed leases as they were. Now the loser reads the ticket again: expired by another writer
meanwhile, it is not this command's to expire, and it goes on. Evidence another host signed is
still never taken as this host's. On the real 3-member cluster, two state roots of one clone."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from oms.adapters.etcd.client import Etcd
from oms.canonical import add_ms, now
from oms.services.admin.setup import init
from oms.services.chain import fence, tickets
from oms.services.workspace import Workspace
from oms.store import Store
from oms.store.payloads import ticket_payload
from tests.chain import Chain
from tests.etcd_cluster import Cluster, pin_cluster
from tests.integration.etcd.test_commands_cli import _use_etcd


def _later() -> str:
    return add_ms(now(), 3 * 60_000)  # past every one-minute lease of the test


def test_a_lease_another_host_expires_meanwhile_is_not_an_integrity_error(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two lapsed leases (leased by hand: no dispatch, so no end lock orders the two hosts). Host
    b's `oms ticket expire` reads both; before it writes the first's evidence, host a's expires
    both. b's ends well, expiring nothing; each ticket was expired once (attempt 2), its evidence
    a's, one evidence key each. Before, b's ended in `SignatureError` ("signed by another
    key")."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    other = dataclasses.replace(chain, state=chain.base / "state-b")
    init(str(other.state), str(chain.repo))
    pin_cluster(chain.repo, other.state)
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        ws.host_name = "a"
        for n in (1, 2):
            ticket = tickets.add(ws, f"Lapses {n}", "")
            tickets.lease(ws, ticket.record_id, f"w-{n}", minutes=1)
    real_put = Store.put_evidence
    a_expired: list[list[str]] = []

    def a_expires_first(self: Store, body: Any) -> Any:  # b has read both leases, lapsed
        if not a_expired and self.path == str(other.state):
            a_expired.append([])
            opened = Workspace.open(str(chain.state), str(chain.repo), etcd=True, clock=_later)
            with opened as ws_a:
                ws_a.host_name = "a"
                a_expired[0] = [t.record_id for t in fence.expire_leases(ws_a)[0]]
        return real_put(self, body)

    monkeypatch.setattr(Store, "put_evidence", a_expires_first)
    with Workspace.open(str(other.state), str(chain.repo), etcd=True, clock=_later) as ws_b:
        ws_b.host_name = "b"
        expired, parked = fence.expire_leases(ws_b)
    assert a_expired == [["tkt-1", "tkt-2"]]
    assert (expired, parked) == ([], [])
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        listed = tickets.list_all(ws)
        assert [(t.state, ticket_payload(t)["attempt"]) for t in listed] == [("open", 2)] * 2
        for ticket in listed:
            ref = ticket_payload(ticket)["prior_failure_evidence"]
            assert isinstance(ref, str)
            assert ws.store.evidence.get(ref).kind == "lease-expiry"  # a's: b's key is not pinned
    client = Etcd(etcd_cluster.endpoints)
    try:
        assert len(list(client.range_prefix(etcd_prefix + "evidence/", keys_only=True))) == 2
        assert list(client.range_prefix(etcd_prefix + "locks/", keys_only=True)) == []
    finally:
        client.close()
