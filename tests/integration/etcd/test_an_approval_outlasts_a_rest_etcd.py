"""A person's approval waiting out its provider's rest (ADR 0043, amendments `restapproved` and
`hand`) with two hosts ticking one real cluster: the approval is given on the host that did not
lease the ticket, the rest is written while both tick, and once it is over only the leasing
host accepts and delivers the dispatch, once; the other host never takes it, during the wait or
after."""

from __future__ import annotations

from oms.canonical import add_ms
from oms.domain.routing import Cooldown
from oms.services.chain import dispatches, providers, tickets
from oms.services.workspace import Workspace
from tests.chain import Chain
from tests.etcd_cluster import Cluster
from tests.integration.etcd.test_commands_cli import _use_etcd
from tests.integration.etcd.test_tick_etcd import _second_host, _tick
from tests.integration.test_an_approval_outlasts_a_rest import _needs_person


def _open(chain: Chain, host: str) -> Workspace:
    ws = Workspace.open(str(chain.state), str(chain.repo), etcd=True)
    ws.host_name = host
    return ws


def test_two_hosts_tick_an_approved_route_waiting_out_a_rest_and_it_launches_once(
    deliverable: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    chain = deliverable
    home = _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    _needs_person(chain)
    for other in _second_host(chain):
        with _open(other, "host-b") as ws:  # host a vouches for host b's key, as a person pins it
            meta = ws.store.state.meta
        pin = f'[hosts]\nhost-b = "{meta.key_id}:{meta.public_key.hex()}"\n'
        (home / "oms" / "etcd.toml").write_text(pin)
        with _open(chain, "host-a") as ws:
            ticket_id = tickets.add(ws, "Approved on b, rested, then launched", "do it").record_id
        lines = _tick(chain, "host-a")  # leased by host a, proposed: waits for a person
        with _open(chain, "host-a") as ws:
            [dispatch] = ws.store.latest("dispatch").records
        with _open(other, "host-b") as ws:  # a person approves on the other host
            dispatches.approve(ws, dispatch.record_id, person="Ann", rationale="this route")
            until = add_ms(ws.now(), 30 * 60_000)
            rest = Cooldown(until, "quota", "weekly limit")
            assert providers.rest(ws, "anthropic-a", rest, "test")
        for _ in range(2):  # both hosts tick while it waits
            lines += _tick(other, "host-b") + _tick(chain, "host-a")
        waits = f"{ticket_id}: {dispatch.record_id}, approved by a person, waits"
        assert any(waits in x for x in lines), lines
        with _open(chain, "host-a") as ws:
            kept = ws.store.records("dispatch").read(dispatch.record_id)
            assert (kept.state, kept.payload["provider_id"]) == ("proposed", "anthropic-a")
            assert providers.clear(ws, "anthropic-a")
        after_b = _tick(other, "host-b")  # the rest over: host b still leaves it to host a
        assert not any(dispatch.record_id in x and "delivered" in x for x in after_b), after_b
        after_a = _tick(chain, "host-a")
        delivered = [
            x for x in (*lines, *after_b, *after_a) if f"{dispatch.record_id} delivered" in x
        ]
        assert len(delivered) == 1, (lines, after_b, after_a)
        assert delivered[0] in after_a
        with _open(chain, "host-a") as ws:
            worker = ws.store.records("worker").read(dispatch.record_id)
        assert worker.payload["host"] == "host-a"
