"""A provider put to rest between the routing of a dispatch and its accept (ADR 0043, amendment
`cross5`; SECURITY.md "The authority store on etcd", 30). A dispatch is routed to a provider when it
is proposed; its accept came after an advisor's review or a person's wait, and asked the
provider's configuration (enabled, its model and endpoint) but not its rest: a person's `oms
provider rest` (or another attempt's quota report) in between, and the rested provider still got
the launch. The accept now decides again: a rest begun since the routing refuses it in one line
(`no-provider`), writing nothing; a person's pin of a provider that rested already stands; the rest
cleared, it is accepted. On the real 3-member cluster, each command a real process."""

from __future__ import annotations

import json

import pytest

from oms.adapters.etcd.client import Etcd
from oms.services.chain import dispatches, tickets, worktrees
from oms.services.workspace import Workspace
from tests.helpers import OmsCommand
from tests.integration.etcd import test_deliver_etcd as delivered
from tests.integration.etcd.test_deliver_etcd import EtcdChain
from tests.integration.etcd.test_tick_etcd import _run
from tests.integration.test_routing import PROVIDERS, ROLE

on_etcd, client = delivered.on_etcd, delivered.client  # its fixtures: a chain on the cluster


def _reviewed(chain: EtcdChain, title: str, provider: str | None = None) -> str:
    """A ticket leased, its dispatch proposed (routed, or pinned to `provider`) and approved by the
    advisor, in this process (as host a, `OMS_HOST`): the dispatch id."""
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:  # as the CLI, now
        assert ws.host() == "host-a"  # its name bound to this state key here, not by the accept
        ticket = tickets.add(ws, title, "Routed, then rested.")
        tickets.lease(ws, ticket.record_id, "w1")
        worktrees.create(ws, ticket.record_id)
        dispatch, _ = dispatches.propose(ws, ticket.record_id, provider=provider)
        dispatches.review(ws, dispatch.record_id)
        assert dispatch.payload["provider_id"] == "anthropic-a", dispatch.payload
        return dispatch.record_id


@pytest.mark.cli
def test_a_provider_rested_after_its_dispatch_was_routed_refuses_the_accept(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Routed to anthropic-a and reviewed; a person rests anthropic-a; the accept is refused in one
    line naming the rest, no worker and no delivery written. A dispatch pinned to the resting
    provider is accepted (the person decided). The rest cleared, the first is accepted."""
    chain = on_etcd
    monkeypatch.setenv("OMS_HOST", "host-a")
    chain.edit_config(
        lambda s: s.replace('role = "oms.command-executor"', f'role = "{ROLE}"') + PROVIDERS,
        commit=True,
    )
    routed = _reviewed(chain, "Routed before the rest")
    code, out = _run(
        oms, chain, "host-a", "provider", "rest", "anthropic-a", "--minutes", "30",
        "--reason", "weekly limit", "--json",
    )  # fmt: skip
    assert code == 0, out
    before = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
    code, out = _run(oms, chain, "host-a", "dispatch", "accept", routed, "--json")
    assert code == 1, out
    [line] = out.splitlines()
    said = json.loads(line)
    assert said["error"] == "no-provider", said
    assert "provider anthropic-a rests until" in said["message"], said
    assert "weekly limit" in said["message"], said
    assert f"since dispatch {routed} was routed to it" in said["message"], said
    after = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
    assert after == before  # no worker, no delivery event, the dispatch still proposed
    pinned = _reviewed(chain, "Pinned to the resting provider", provider="anthropic-a")
    code, out = _run(oms, chain, "host-a", "dispatch", "accept", pinned, "--json")
    assert code == 0, out
    code, out = _run(oms, chain, "host-a", "provider", "clear", "anthropic-a", "--json")
    assert code == 0, out
    code, out = _run(oms, chain, "host-a", "dispatch", "accept", routed, "--json")
    assert code == 0, out
    assert json.loads(out)["dispatch"]["state"] == "accepted", out
    for command in (("store", "verify"), ("audit", "verify")):
        code, out = _run(oms, chain, "host-a", *command)
        assert code == 0, out
