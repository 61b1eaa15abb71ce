"""An agent spending through the model proxy on an etcd store after its attempt may no longer act
(SECURITY.md "The authority store on etcd"; ADR 0028's one rule, read from the cluster since ADR
0043 amendment `etcddeliver`). The proxy asks the cluster's dispatch, ticket and worker records on
every request: a client hammering it with a live attempt's token while the attempt is fenced (its
lease expired and recorded), cancelled or lapsed (the clock past the lease, nothing written) gets
no request forwarded once the fact is in the cluster. A
token replayed after its attempt ended, the dispatch id in a token swapped for another live
attempt's, and a cluster that stops answering are refused as well (fail closed). A regression
guard: each held when tried (`tests/security/proxy/test_one_rule_at_the_proxy.py` holds the same
on files)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.services.proxy import tokens as proxy_tokens
from tests.chain import Chain
from tests.etcd_cluster import Cluster
from tests.integration.etcd.test_commands_cli import _use_etcd
from tests.integration.etcd.test_deliver_etcd import EtcdChain
from tests.proxy_rig import MESSAGES, Rig, make_rig
from tests.security.proxy.test_one_rule_at_the_proxy import CAUSES, acknowledged

WHOLE = dict(MESSAGES, stream=False)
PATH = "/p/claude-mock/v1/messages"


@pytest.fixture
def rig(tmp_path: Path, etcd_cluster: Cluster, etcd_prefix: str) -> Iterator[Rig]:
    def onto_etcd(chain: Chain) -> Chain:
        _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
        moved = EtcdChain(chain.base, chain.repo, chain.state, chain.advisor)
        moved.clock = chain.clock
        return moved

    yield from make_rig(tmp_path, on=onto_etcd)


# what the brief of this attack named (the rest of `CAUSES` run on files in the one-rule test)
@pytest.mark.parametrize("cause", ["cancelled", "expired", "fenced"])
def test_no_request_is_forwarded_once_the_cluster_says_the_attempt_may_no_longer_act(
    rig: Rig, cause: str
) -> None:
    assert rig.ws.store.backend is not None
    assert rig.ws.store.backend.name == "etcd"  # the proxy reads the cluster
    dispatch_id = acknowledged(rig)
    with rig.chain.workspace() as ws:
        token = proxy_tokens.issue_token(ws, dispatch_id, "claude-mock")
    got = rig.hammered(token, lambda: CAUSES[cause](rig, dispatch_id))
    assert all(status in (401, 403) for status in got.after), (cause, got.after)
    assert len(rig.mock.heard) <= got.heard_then + 1, "the upstream heard requests sent after it"
    status, _, _ = rig.post(PATH, WHOLE, {"x-api-key": token})  # replayed once it all settled
    assert status in (401, 403), status


def test_a_token_naming_another_live_attempt_or_a_silent_cluster_is_refused(
    rig: Rig, etcd_cluster: Cluster
) -> None:
    first = acknowledged(rig)
    with rig.chain.workspace() as ws:
        token = proxy_tokens.issue_token(ws, first, "claude-mock")
    status, _, _ = rig.post(PATH, WHOLE, {"x-api-key": token})
    assert status == 200
    _, dispatch_id, secret = token.split(".")
    other = "dsp-" + "0" * 32  # an id of the right shape whose token was never issued
    for forged in (
        f"oms.{other}.{secret}",
        f"oms.{dispatch_id}.{secret[:-1]}{'B' if secret.endswith('A') else 'A'}",
    ):
        status, _, _ = rig.post(PATH, WHOLE, {"x-api-key": forged})
        assert status == 401, forged
    heard = len(rig.mock.heard)
    for member in etcd_cluster.members:  # the cluster stops answering: the proxy fails closed
        etcd_cluster.kill(member)
    try:
        status, _, body = rig.post(PATH, WHOLE, {"x-api-key": token})
        assert status in (401, 403, 503), (status, body)
        assert len(rig.mock.heard) == heard
    finally:
        for member in etcd_cluster.members:
            etcd_cluster.restart(member)
        etcd_cluster.wait_healthy()
