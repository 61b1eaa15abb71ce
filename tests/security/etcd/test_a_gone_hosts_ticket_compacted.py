"""A ticket whose worker ran on a host gone for good is compacted by another host once the
person released that host's name (ADR 0043, amendment `cross5`; SECURITY.md "The authority store
on etcd", 30). A compaction on a cluster leaves a ticket another host's worker ran to that host
(its worktree and panes are there, which this host cannot see): a host that never came back left
its ended tickets' records on the cluster for ever. A host whose name the person released (`oms
host release-name`, refused while its heartbeat or conductor lock lives) and that no state root
claimed again is gone: its worktree and panes went with its state root, and any host compacts
what it ran, under the same rule (every part ended). On the real 3-member cluster."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from oms.adapters.etcd.client import Etcd
from oms.services.admin import compaction as compacting
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from oms.store import Store, compaction
from tests.chain import Chain, accepted
from tests.etcd_cluster import settings_of
from tests.helpers import OmsCommand
from tests.integration.etcd.test_deliver_etcd import EtcdChain, client, on_etcd
from tests.integration.etcd.test_tick_etcd import _pin_each_on_the_other, _run, _second_host
from tests.integration.etcd.test_upkeep_etcd import DAY_MINUTES, _ended, _json, _keys

__all__ = ["client", "on_etcd"]


@pytest.mark.cli
@pytest.mark.parametrize("stopped", [True, False], ids=["worker-stopped", "worker-left-running"])
def test_a_ticket_of_a_host_gone_for_good_is_compacted_once_its_name_is_released(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str, stopped: bool
) -> None:
    """Host a's ended ticket, due; host b's compaction keeps it ("compact it there") while host
    a's name is bound (each host pins the other's key); the person releases host a's name on
    host b; host b's next compaction
    compacts it, the archive a key, its members gone, host b's verifies clean. Host a may have
    gone with its worker still running (its disk, and the worktree, gone with it): nothing can
    stop that worker now, so it ended with its host; it held the ticket back for ever."""
    ticket_id, dispatch_id = _ended(on_etcd, oms, stop=stopped)
    with on_etcd.workspace() as ws:
        lost = str(ws.store.records("worker").read(dispatch_id).payload["host"])
    with Store.open(str(on_etcd.state)) as store:
        lost_key = store.state.meta.key_id
    on_etcd.clock.advance(2 * DAY_MINUTES)
    for other in _second_host(on_etcd):
        homes = _pin_each_on_the_other(oms, {"host-b": other, "host-c": on_etcd})

        def compact_on_b(b: Chain = other, home: Path = homes["host-b"]) -> compacting.Report:
            with (
                settings_of(home),
                Workspace.open(str(b.state), str(b.repo), clock=on_etcd.clock, etcd=True) as ws,
            ):
                ws.host_name = "host-b"
                return compacting.compact(ws, dry_run=False)

        kept = compact_on_b()
        assert kept.compacted == [], kept
        assert f"ran on host {lost}: compact it there" in str(kept.kept), kept.kept
        assert f"`oms host release-name {lost}` first" in str(kept.kept), kept.kept
        beat = client.get(f"{etcd_prefix}hosts/{lost}")
        if beat is not None:  # host a is gone: its lease lapses
            client.revoke(beat.lease)
        release = ("host", "release-name", lost, "--bound-to", lost_key[:16], "--json")
        where = ("--state-root", str(other.state), "--config-root", str(other.repo))
        released = _json(oms.run(*release, *where, env={"OMS_HOST": "host-b"}))
        assert released["host"] == lost, released
        report = compact_on_b()
        assert [r["ticket_id"] for r in report.compacted] == [ticket_id], report
        left = _keys(client, etcd_prefix)
        assert compaction.archive_path(ticket_id) in left
        assert not [k for k in left if f"/{dispatch_id}/" in k or k.endswith(f"/{dispatch_id}")]
        for command in (("store", "verify"), ("audit", "verify")):
            code, out = _run(oms, other, "host-b", *command, pins=homes["host-b"])
            assert code == 0, out


@pytest.mark.cli
def test_a_gone_hosts_dispatch_left_accepted_does_not_hold_its_ticket_for_ever(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """Host a accepted an attempt and went for good before it ended (its worktree gone with its
    disk): no conductor will end that dispatch (its worker is host a's to observe), so it stays
    `accepted`. Host b expires the lapsed lease and a person blocks the ticket; once the person
    released host a's name, host b's compaction compacts it: the dispatch ended with its host, as
    its worker did (ADR 0043, amendment `cross7`; failing before: kept, "dispatch … is
    accepted")."""
    on_etcd.edit_config(lambda s: s + "\n[retention]\ncompact_after_days = 1\n", commit=True)
    dispatch_id, _ = accepted(on_etcd)
    with on_etcd.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch_id)
        ticket_id = str(worker.payload["ticket_id"])
        lost = str(worker.payload["host"])
        worktree = ws.store.worktrees.get(ticket_id)
    assert worktree is not None
    shutil.rmtree(str(worktree["worktree_root"]))  # gone with host a's disk
    with Store.open(str(on_etcd.state)) as store:
        lost_key = store.state.meta.key_id
    on_etcd.clock.advance(2 * 60)  # past its lease
    for other in _second_host(on_etcd):
        homes = _pin_each_on_the_other(oms, {"host-b": other, "host-c": on_etcd})

        @contextmanager
        def on_b(b: Chain = other, home: Path = homes["host-b"]) -> Iterator[Workspace]:
            with (
                settings_of(home),
                Workspace.open(str(b.state), str(b.repo), clock=on_etcd.clock, etcd=True) as ws,
            ):
                ws.host_name = "host-b"
                yield ws

        with on_b() as ws:
            assert [t.record_id for t in tickets.expire_due(ws)] == [ticket_id]
            tickets.block(ws, ticket_id, "a person gives up on it")
        on_etcd.clock.advance(2 * DAY_MINUTES)
        beat = client.get(f"{etcd_prefix}hosts/{lost}")
        if beat is not None:  # host a is gone: its lease lapses
            client.revoke(beat.lease)
        release = ("host", "release-name", lost, "--bound-to", lost_key[:16], "--json")
        where = ("--state-root", str(other.state), "--config-root", str(other.repo))
        released = _json(oms.run(*release, *where, env={"OMS_HOST": "host-b"}))
        assert released["host"] == lost, released
        with on_b() as ws:
            assert ws.store.records("dispatch").read(dispatch_id).state == "accepted"
            report = compacting.compact(ws, dry_run=False)
        assert [r["ticket_id"] for r in report.compacted] == [ticket_id], report
        left = _keys(client, etcd_prefix)
        assert not [k for k in left if f"/{dispatch_id}/" in k or k.endswith(f"/{dispatch_id}")]
        for command in (("store", "verify"), ("audit", "verify")):
            code, out = _run(oms, other, "host-b", *command, pins=homes["host-b"])
            assert code == 0, out
