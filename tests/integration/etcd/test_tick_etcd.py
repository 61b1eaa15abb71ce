"""`oms conductor tick|run` on an etcd store (ADR 0043, amendment `etcdtick`), on the real 3-member
cluster: a tick's phases read and write the cluster under the host's conductor lock; two hosts
(two state roots, each its own tmux socket and `OMS_HOST`) tick one cluster side by side, each
audited clean; the pool counts every host's workers against one `max_workers`; a tick whose lease
was revoked acts on nothing; an unreachable cluster is one line and nothing half-written."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.adapters.etcd.client import Etcd
from oms.canonical import JsonObject, stable_id
from oms.domain import pool as pool_rules
from oms.domain import workers as worker_machine
from oms.errors import LeaseError
from oms.services.admin.setup import init
from oms.services.chain import tickets
from oms.services.conductor import pool
from oms.services.conductor import tick as conductor
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store import Store
from oms.store.anchor import anchor_dir
from oms.store.payloads import as_json
from tests.chain import Chain
from tests.etcd_cluster import Cluster, free_ports
from tests.helpers import OmsCommand
from tests.integration.etcd.test_commands_cli import _use_etcd

SESSION = "11111111-2222-4333-8444-555555555555"


@pytest.fixture
def client(etcd_cluster: Cluster) -> Iterator[Etcd]:
    etcd = Etcd(etcd_cluster.endpoints)
    yield etcd
    etcd.close()


def _run(
    oms: OmsCommand, chain: Chain, host: str, *args: str, pins: Path | None = None
) -> tuple[int, str]:
    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    env = {"OMS_HOST": host} | ({} if pins is None else {"XDG_CONFIG_HOME": str(pins)})
    done = oms.run(*args, *where, env=env)
    return done.returncode, done.stdout + done.stderr


def _pin_each_on_the_other(oms: OmsCommand, hosts: dict[str, Chain]) -> dict[str, Path]:
    """Each host's own settings (its XDG_CONFIG_HOME) pinning the other hosts' state keys, as a
    person pastes what `oms host key` prints on each (ADR 0043, amendment `hostkeys`)."""
    lines = {}
    for host, where in hosts.items():
        code, out = _run(oms, where, host, "host", "key", "--json")
        assert code == 0, out
        lines[host] = json.loads(out)["line"]
    homes = {}
    for host, where in hosts.items():
        home = where.base / f"config-{host}"
        (home / "oms").mkdir(parents=True)
        others = [line for other, line in sorted(lines.items()) if other != host]
        (home / "oms" / "etcd.toml").write_text("[hosts]\n" + "\n".join(others) + "\n")
        homes[host] = home
    return homes


def _second_host(chain: Chain) -> Iterator[Chain]:
    """Another state root of the same repository: another host's (its own state key, tmux
    socket and anchor)."""
    other = dataclasses.replace(chain, state=chain.base / "state-b")
    init(str(other.state), str(chain.repo))
    try:
        yield other
    finally:
        subprocess.run(
            ["tmux", "-S", str(other.state / "tmux.sock"), "kill-server"],
            capture_output=True,
            check=False,
        )


def _entries(client: Etcd, prefix: str) -> int:
    return sum(1 for _ in client.range_prefix(prefix + "ledger/", keys_only=True))


def _phase(report: JsonObject, name: str) -> JsonObject:
    phases = report["phases"]
    assert isinstance(phases, list)
    found = [p for p in phases if isinstance(p, dict) and p["phase"] == name]
    assert len(found) == 1, phases
    return found[0]


def _worker(ws: Workspace, n: int, host: str, slot: str) -> None:
    """A running worker of host `host`, launched in pool slot `slot`, its ticket leased to it."""
    ticket = tickets.add(ws, f"Work {n}", "")
    dispatch_id = f"dsp-{n:032x}"
    dispatch: JsonObject = {
        "ticket_id": ticket.record_id,
        "session_id": SESSION,
        "role_id": "oms.command-executor",
        "provider_mode": "command",
        "worktree_id": "wt-x",
    }
    made = worker_machine.new(dispatch_id, dispatch, updated_at=ws.now(), host=host).payload
    ws.store.records("worker").create(
        dispatch_id,
        state="working",
        payload=as_json(made),
        operation_id=stable_id("worker-create", dispatch_id),
        actor=SYSTEM_ACTOR,
        observed_at=ws.now(),
    )
    tickets.lease(ws, ticket.record_id, slot)


@pytest.mark.cli
def test_a_tick_runs_its_phases_on_the_cluster_and_anchors_its_keys(
    deliverable: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str, client: Etcd
) -> None:
    chain = deliverable
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    code, out = _run(oms, chain, "host-a", "ticket", "add", "--title", "First", "--no-body")
    assert code == 0, out
    code, out = _run(oms, chain, "host-a", "conductor", "tick", "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["ok"] is True, report
    assert report["host"] == "host-a"
    for name in conductor.LAUNCHING:  # the outbox's locks are still this host's files
        skipped = _phase(report, name)["skipped"]
        assert skipped == [conductor.refused_line(name)], skipped
    assert client.get(etcd_prefix + "hosts/host-a") is not None  # its heartbeat, leased
    assert client.get(etcd_prefix + "locks/conductor/host-a") is None  # let go at its end
    assert not (chain.state / "records" / "ticket").exists()  # nothing on files
    before = _entries(client, etcd_prefix)
    code, out = _run(oms, chain, "host-a", "conductor", "tick", "--json")
    assert code == 0, out
    assert _entries(client, etcd_prefix) == before  # an idle tick writes no key
    code, out = _run(oms, chain, "host-a", "audit", "verify")
    assert code == 0, out
    with Store.open(str(chain.state)) as store:
        key_id = store.state.meta.key_id
    anchored = Path(anchor_dir()) / key_id
    assert [p.name for p in anchored.iterdir() if p.name.startswith("etcd-")], os.listdir(anchored)


@pytest.mark.cli
def test_two_hosts_tick_one_cluster_each_audited_clean(
    deliverable: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str, client: Etcd
) -> None:
    chain = deliverable
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for other in _second_host(chain):
        pins = _pin_each_on_the_other(oms, {"host-a": chain, "host-b": other})
        for host, where in (("host-a", chain), ("host-b", other)):
            code, out = _run(oms, where, host, "ticket", "add", "--title", host, "--no-body")
            assert code == 0, out
        for host, where in (("host-a", chain), ("host-b", other), ("host-a", chain)):
            code, out = _run(oms, where, host, "conductor", "tick", "--json", pins=pins[host])
            assert code == 0, out
            assert json.loads(out)["ok"] is True, out
        assert client.get(etcd_prefix + "hosts/host-a") is not None
        assert client.get(etcd_prefix + "hosts/host-b") is not None
        for host, where, them in (("host-a", chain, "host-b"), ("host-b", other, "host-a")):
            code, out = _run(oms, where, host, "audit", "verify", pins=pins[host])
            assert code == 0, out
            assert f"ledger entries by host {them} (state key" in out, out  # its, vouched for
            code, out = _run(oms, where, host, "ticket", "list", "--json")
            assert code == 0, out
            assert [t["id"] for t in json.loads(out)["tickets"]] == ["tkt-1", "tkt-2"], out


def test_the_pool_counts_every_hosts_workers_against_one_max_workers(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for other in _second_host(chain):
        with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as a:
            a.host_name = "host-a"
            assert a.config().max_workers == 2
            _worker(a, 1, "host-a", "worker-1")
        with Workspace.open(str(other.state), str(other.repo), etcd=True) as b:
            b.host_name = "host-b"
            _worker(b, 2, "host-b", "worker-2")
            held = pool.occupancy(b)  # host b sees host a's worker in its slot
            assert held.held == {"worker-1": "tkt-1", "worker-2": "tkt-2"}, held
            with pool.lock(b):
                _, seen = pool.seen(b, held)
            assert seen.max_workers == 2
            offered = pool_rules.offer(pool.current(b), seen.busy, seen.max_workers)
            assert offered == (), offered  # two workers, one per host: no third slot offered


def test_a_tick_whose_lease_was_revoked_acts_on_nothing(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str, client: Etcd
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        ws.host_name = "host-a"
        tickets.add(ws, "Waiting", "")
        before = _entries(client, etcd_prefix)
        held = conductor.lock(ws)
        assert isinstance(held, conductor.HostLock)
        try:
            client.revoke(held.keeper.held.lease_id)  # cut off: its lease is gone
            with pytest.raises(LeaseError, match="acts on nothing"):
                conductor.tick(ws, held=True)
        finally:
            held.release()
        assert _entries(client, etcd_prefix) == before  # nothing written
        assert client.get(etcd_prefix + "hosts/host-a") is None  # not even its heartbeat


@pytest.mark.cli
def test_an_unreachable_cluster_is_one_line_and_nothing_half_written(
    chain: Chain, oms: OmsCommand
) -> None:
    _use_etcd(chain, [f"http://127.0.0.1:{p}" for p in free_ports(2)], "/oms/nowhere/")
    ledger = chain.state / "ledger"
    sizes = {p.name: p.stat().st_size for p in ledger.iterdir() if p.is_file()}
    for args in (("conductor", "tick"), ("conductor", "run", "--ticks", "1")):
        code, out = _run(oms, chain, "host-a", *args)
        assert code != 0, out
        lines = [line for line in out.splitlines() if line.strip()]
        assert lines[0].startswith("oms: error: etcd unreachable"), out
        assert len(lines) == 2, out
        assert "Traceback" not in out
    assert {p.name: p.stat().st_size for p in ledger.iterdir() if p.is_file()} == sizes
    assert not (chain.state / "records" / "ticket").exists()
