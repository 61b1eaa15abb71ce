"""The model proxy on an etcd store (ADR 0043, amendment `etcddeliver`): the records it asks of
every request — the dispatch, ticket and worker the one rule judges (`proxy/admit.attempt`), a
provider's rest (`proxy/rests.Rests`) — are the cluster's, read through the store the committed
`[store]` names. Read from the state root's files instead, every token of a worker on the cluster
was refused as naming no dispatch, and a rest the fleet recorded was not seen."""

from __future__ import annotations

import json
import subprocess

import pytest

from oms.canonical import add_ms
from oms.domain.routing import Cooldown
from oms.services.admin.setup import init
from oms.services.chain import dispatches
from oms.services.chain import providers as provider_records
from oms.services.proxy.admit import attempt
from oms.services.proxy.rests import Rests
from tests.chain import accepted
from tests.etcd_cluster import Cluster, pin_cluster
from tests.helpers import OmsCommand
from tests.integration.etcd.test_deliver_etcd import EtcdChain, on_etcd

__all__ = ["on_etcd"]  # the fixture, shared with the delivery tests


def test_the_proxy_judges_an_attempt_by_the_clusters_records(on_etcd: EtcdChain) -> None:
    dispatch_id, _ = accepted(on_etcd)
    with on_etcd.workspace() as ws:
        root, backend, now = ws.store.state.root, ws.store.backend, ws.now()
        assert backend is not None
        assert attempt(root, dispatch_id, now, backend) is None  # live: forwarded
        refused = attempt(root, dispatch_id, now)  # the state root's files hold no such dispatch
        assert refused is not None
        assert "does not exist" in refused.message
        dispatches.cancel(ws, dispatch_id, "a person cancelled it")
        fenced = attempt(root, dispatch_id, ws.now(), backend)
    assert fenced is not None
    assert (fenced.status, fenced.kind) == (403, "oms_attempt_fenced")


def test_the_proxy_fails_closed_while_the_cluster_is_gone(
    on_etcd: EtcdChain, etcd_cluster: Cluster
) -> None:
    """Every member killed while a worker's attempt is live: its next request is refused (the
    records cannot be read), never forwarded; once the members are back it is served again
    (branch `attack-parts`: a regression guard, it held)."""
    dispatch_id, _ = accepted(on_etcd)
    with on_etcd.workspace() as ws:
        root, backend = ws.store.state.root, ws.store.backend
        assert backend is not None
        assert attempt(root, dispatch_id, ws.now(), backend) is None  # live: forwarded
        for member in etcd_cluster.members:
            etcd_cluster.kill(member)
        try:
            refused = attempt(root, dispatch_id, ws.now(), backend)
        finally:
            for member in etcd_cluster.members:
                etcd_cluster.restart(member)
            etcd_cluster.wait_healthy()
        assert refused is not None
        assert (refused.status, refused.kind) == (403, "oms_attempt_fenced"), refused
        assert attempt(root, dispatch_id, ws.now(), backend) is None  # served again


def test_the_proxy_sees_a_rest_recorded_in_the_cluster(on_etcd: EtcdChain) -> None:
    with on_etcd.workspace() as ws:
        root, backend, now = ws.store.state.root, ws.store.backend, ws.now()
        until = add_ms(now, 600_000)
        cooldown = Cooldown(until, "transient", "429 from the upstream")
        assert provider_records.rest(ws, "oms-openai", cooldown, "test")
        assert Rests(root, backend).resting("oms-openai", now) is not None
        assert Rests(root).resting("oms-openai", now) is None  # the files know of no rest


@pytest.mark.cli
def test_the_proxy_commands_open_on_the_cluster(on_etcd: EtcdChain, oms: OmsCommand) -> None:
    done = oms.run("proxy", "status", "--state-root", str(on_etcd.state), "--config-root",
                   str(on_etcd.repo))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'store.backend = "etcd"' not in done.stdout + done.stderr


@pytest.mark.cli
def test_a_dispatch_cancelled_on_another_host_is_fenced_everywhere_and_ended_once(
    on_etcd: EtcdChain, oms: OmsCommand
) -> None:
    """`oms dispatch cancel` on host b of a dispatch host a accepted (branch `attack-parts`: on etcd
    it was refused in one line, so a person had no way to cancel an attempt on a cluster): the
    cancel is the cluster's, once; the proxy refuses the attempt's next request; host a's deliverer
    launches nothing; a second cancel is one line and writes nothing."""
    dispatch_id, event_id = accepted(on_etcd)
    other = on_etcd.base / "state-b"
    init(str(other), str(on_etcd.repo))
    home_b = pin_cluster(on_etcd.repo, other, on_etcd.base / "config-b")  # host b's settings
    env_b = {"OMS_HOST": "host-b", "XDG_CONFIG_HOME": str(home_b)}
    try:
        where_b = ("--state-root", str(other), "--config-root", str(on_etcd.repo))
        done = oms.run("dispatch", "cancel", dispatch_id, "--reason", "not wanted", "--json",
                       *where_b, env=env_b)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert json.loads(done.stdout)["dispatch"]["state"] == "cancelled"
        with on_etcd.workspace() as ws:
            root, backend = ws.store.state.root, ws.store.backend
            assert backend is not None
            cancelled = ws.store.records("dispatch").read(dispatch_id)
            refused = attempt(root, dispatch_id, ws.now(), backend)
        assert cancelled.state == "cancelled"
        assert refused is not None
        assert refused.kind == "oms_attempt_fenced", refused
        where_a = ("--state-root", str(on_etcd.state), "--config-root", str(on_etcd.repo))
        done = oms.run("worker", "deliver", "--event-id", event_id, *where_a,
                       env={"OMS_HOST": "host-a"})  # fmt: skip
        assert "Traceback" not in done.stdout + done.stderr
        assert not (on_etcd.state / "panes" / f"{dispatch_id}.launch.json").exists()
        again = oms.run("dispatch", "cancel", dispatch_id, "--reason", "twice", *where_b,
                        env=env_b)  # fmt: skip
        out = (again.stdout + again.stderr).strip()
        assert again.returncode != 0, out
        assert len(out.splitlines()) == 1, out
        with on_etcd.workspace() as ws:
            assert ws.store.records("dispatch").read(dispatch_id).version == cancelled.version
        assert not any((other / "records").iterdir())  # nothing on host b's files
    finally:
        subprocess.run(["tmux", "-S", str(other / "tmux.sock"), "kill-server"],
                       capture_output=True, check=False)  # fmt: skip
