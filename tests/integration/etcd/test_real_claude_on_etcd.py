"""The real Claude Code on an etcd store (issue 28; ADR 0043, amendment `reads`): until now only
command workers ran on a cluster. The same scripted turn as `tests/e2e/test_real_agents.py` —
read and acknowledge the dispatch, an early stop the Stop gate blocks, a tool outside the role's
allow-list PreToolUse denies, a change, the result — with the worker's hooks and bridge writing
through its broker to the cluster: the records end at `result-received` with the commit in the
cluster, no record falls back to the state root's files, every lock is let go, and `oms worker
stop` leaves no pane and no process. The only stand-in is the remote model (the loopback mock)."""

from __future__ import annotations

import pytest

from oms.adapters.etcd.client import Etcd
from oms.services.doors.hooks import STOP_REASON
from tests.chain import Chain
from tests.e2e.test_real_agents import (
    _check_result,
    _deliver,
    _stop_and_check_nothing_left,
    _wait_for_result,
    claude_turn,
    mock,
    use_claude,
)
from tests.etcd_cluster import Cluster
from tests.integration.etcd.test_commands_cli import _use_etcd
from tests.integration.etcd.test_deliver_etcd import EtcdChain, _no_record_files
from tests.model_mock import ModelMock

__all__ = ["mock"]


def test_claude_code_works_a_ticket_on_the_cluster(
    deliverable: Chain,
    mock: ModelMock,
    monkeypatch: pytest.MonkeyPatch,
    etcd_cluster: Cluster,
    etcd_prefix: str,
) -> None:
    use_claude(deliverable, mock, monkeypatch)
    _use_etcd(deliverable, etcd_cluster.endpoints, etcd_prefix)
    chain = EtcdChain(deliverable.base, deliverable.repo, deliverable.state, deliverable.advisor)
    chain.clock = deliverable.clock
    mock.script = claude_turn()
    dispatch_id, session_id = _deliver(chain)
    _wait_for_result(chain, dispatch_id, mock)
    _check_result(chain, dispatch_id, session_id)
    texts = "\n".join(s.text for s in mock.seen)
    assert STOP_REASON in texts  # the Stop gate's answer came from the cluster's session
    denied = [
        text for name, text in (r for s in mock.seen for r in s.results) if name == "WebFetch"
    ]
    assert denied
    assert "not allowed" in denied[0]
    _no_record_files(chain)
    client = Etcd(etcd_cluster.endpoints)
    try:
        assert list(client.range_prefix(f"{etcd_prefix}locks/")) == []
        assert client.get(f"{etcd_prefix}latest/dispatch/{dispatch_id}") is not None
    finally:
        client.close()
    _stop_and_check_nothing_left(chain, dispatch_id)
