"""Upkeep on an etcd store (ADR 0043, amendment `upkeep`), on the real 3-member cluster with real
git, tmux and bubblewrap: an ended ticket's dispatch, worker and session records, its events (with
their receipts) and evidence are compacted into one archive key, by the conductor's tick and by
`oms store compact`, and both verifies stay clean on the keys that are left; a compaction stopped
between its archive and its deletes, or between deletes, or whose lock's lease lapsed, leaves
what the verifies call clean and the next compaction finishes; `oms worktree create|show|gc` act on
this host's clone and refuse another host's worktree naming the host; `oms store sweep` removes
the lock keys no lease holds. Each was refused on a cluster before ("is served only by")."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from oms.adapters.etcd import compaction as keys
from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import acquire, release
from oms.errors import LeaseError, LockHeldError
from oms.services.admin import compaction as compacting
from oms.services.admin import compaction_keys
from oms.services.chain import worktrees
from oms.services.conductor import tick as conductor
from oms.store import compaction
from tests.etcd_cluster import locks_let_go
from tests.helpers import OmsCommand
from tests.integration.etcd import test_deliver_etcd as delivered
from tests.integration.etcd.test_deliver_etcd import (
    EtcdChain,
    _a_result,
    _clean,
)

on_etcd, client = delivered.on_etcd, delivered.client  # its fixtures: a chain on the cluster

_B = {"OMS_HOST": "host-b"}  # another host, on this state root
DAY_MINUTES = 24 * 60


def _where(chain: EtcdChain) -> tuple[str, ...]:
    return ("--state-root", str(chain.state), "--config-root", str(chain.repo))


def _json(done: subprocess.CompletedProcess[str], code: int = 0) -> dict[str, Any]:
    assert done.returncode == code, done.stdout + done.stderr
    view = json.loads(done.stdout.splitlines()[0])
    assert isinstance(view, dict)
    return view


def _ended(chain: EtcdChain, oms: OmsCommand, *, stop: bool = True) -> tuple[str, str]:
    """A ticket whose command worker's result was verified and merged on the cluster, its worker
    stopped, its worktree removed by `oms worktree gc`: (ticket id, dispatch id). With `stop`
    False its worker is never stopped and its worktree vanishes with its host's disk."""
    chain.edit_config(
        lambda s: (
            s.replace("[worktrees]\n", "[worktrees]\ngc_after_days = 0\n", 1)
            + '\n[verify]\ncommands = [["true"]]\n\n[retention]\ncompact_after_days = 1\n'
        ),
        commit=True,
    )
    dispatch_id = _a_result(oms, chain)
    where = _where(chain)
    with chain.workspace() as ws:
        ticket_id = str(ws.store.records("dispatch").read(dispatch_id).payload["ticket_id"])
    shown = _json(oms.run("worktree", "show", ticket_id, "--json", *where))
    worktree = str(shown["worktree"]["worktree_root"])
    for args in (("show", ticket_id), ("create", ticket_id)):  # another host: not its clone
        said = _json(oms.run("worktree", *args, "--json", *where, env=_B), code=1)
        assert said["error"] == "other-host", said
        assert said["message"].startswith(f"the worktree of {ticket_id} is on host "), said
    _json(oms.run("result", "verify", dispatch_id, "--json", *where))
    _json(oms.run("result", "merge", dispatch_id, "--json", *where))
    if not stop:
        shutil.rmtree(worktree)
        return ticket_id, dispatch_id
    _json(oms.run("worker", "stop", dispatch_id, "--json", *where))
    with chain.workspace() as ws:  # a fill of its next attempt on host b is not refused its own
        ws.host_name = "host-b"
        assert worktrees.create(ws, ticket_id)[0]["worktree_root"] == worktree
    elsewhere = _json(oms.run("worktree", "gc", "--json", *where, env=_B))
    assert elsewhere["removed"] == [], elsewhere
    assert "gc it there" in str(elsewhere["kept"]), elsewhere
    gone = _json(oms.run("worktree", "gc", "--json", *where))
    assert [r["path"] for r in gone["removed"]] == [worktree], gone
    return ticket_id, dispatch_id


def _keys(client: Etcd, prefix: str) -> dict[str, int]:
    """Every key but locks and heartbeats, with its mod revision."""
    return {
        kv.key[len(prefix) :]: kv.mod_revision
        for kv in client.range_prefix(prefix)
        if not kv.key.startswith((f"{prefix}locks/", f"{prefix}hosts/"))
    }


def _members(keys: dict[str, int], dispatch_id: str, session_id: str) -> list[str]:
    return sorted(
        k
        for k in keys
        if f"/{dispatch_id}/" in k
        or k.endswith((f"/{dispatch_id}", f"/{session_id}"))
        or f"/{session_id}/" in k
    )


@pytest.mark.cli
def test_an_ended_ticket_is_compacted_on_the_cluster_and_both_verifies_stay_clean(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """The worktree commands on this host's clone (another host's refused naming the host); then
    `oms store compact` served (nothing due yet), a dry run that deletes nothing, and the tick's
    compact phase: the ticket's records, events, receipts and evidence are gone from the cluster,
    its archive is a key, its ticket stays, both verifies are clean and name the compacted keys,
    and the next compaction finds nothing to do."""
    ticket_id, dispatch_id = _ended(on_etcd, oms)
    where = _where(on_etcd)
    with on_etcd.workspace() as ws:
        session_id = str(ws.store.records("dispatch").read(dispatch_id).payload["session_id"])
    early = _json(oms.run("store", "compact", "--json", *where))
    assert (early["compacted"], early["not_due"]) == ([], 1), early
    on_etcd.clock.advance(2 * DAY_MINUTES)
    before = _keys(client, etcd_prefix)
    with on_etcd.workspace() as ws:
        dry = compacting.compact(ws, dry_run=True)
    assert [r["ticket_id"] for r in dry.compacted] == [ticket_id], dry
    assert _keys(client, etcd_prefix) == before  # a dry run deletes nothing
    with on_etcd.workspace() as ws:
        report = conductor.tick(ws)
    lines = [line for p in report.phases if p.name == "compact" for line in p.done]
    archive = compaction.archive_path(ticket_id)
    assert lines == [f"compacted {ticket_id} into {archive}"], lines
    after = _keys(client, etcd_prefix)
    assert _members(before, dispatch_id, session_id), before
    assert _members(after, dispatch_id, session_id) == []
    assert not [k for k in after if k.startswith("evidence/")], after
    assert not [k for k in after if k.startswith("outbox/")], after
    assert archive in after
    assert f"latest/ticket/{ticket_id}" in after  # the ticket stays: its id is never reused
    found = client.get(f"{etcd_prefix}{archive}")
    assert found is not None
    held = compaction.decode(found.value, archive).files
    assert any(p.startswith(f"records/worker/{dispatch_id}/") for p in held), sorted(held)
    assert any(p.startswith("evidence/") for p in held), sorted(held)
    with on_etcd.workspace() as ws:
        assert dispatch_id not in {r.record_id for r in ws.store.latest("dispatch").records}
        assert ws.store.records("ticket").read(ticket_id).state == "done"
        assert compacting.compact(ws, dry_run=False).compacted == []
    log = _json(oms.run("audit", "log", "--dispatch", dispatch_id, "--json", *where))
    whats = [r["what"] for r in log["entries"]]  # the timeline from the archive key's bytes
    assert any(
        w.startswith(f"dispatch {dispatch_id} v") and "-> result-received" in w for w in whats
    )
    shown = _json(oms.run("ticket", "show", ticket_id, "--json", *where))
    assert shown["compacted"]["archive"] == archive, shown  # its key, noted
    _clean(oms, on_etcd)
    audited = oms.run("audit", "verify", *where)
    assert "compacted" in audited.stdout, audited.stdout
    assert list(client.range_prefix(f"{etcd_prefix}locks/compact")) == []


class _StoppedError(Exception):
    """A compaction stopped at a step (as a kill there leaves the keys)."""


@pytest.mark.cli
def test_a_compaction_stopped_anywhere_is_finished_by_the_next_and_verifies_clean_meanwhile(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """Refused while another host's compaction holds the lock (nothing written); stopped after its
    archive (every member still there), its lease revoked there (`LeaseError`, nothing deleted),
    stopped between its deletes (its events, receipts and evidence gone, its records not): each
    time both verifies are clean (the keys gone are held by the noted archive), and the next
    compaction finishes; no lock is left."""
    ticket_id, dispatch_id = _ended(on_etcd, oms)
    on_etcd.clock.advance(2 * DAY_MINUTES)
    archive = compaction.archive_path(ticket_id)
    before = _keys(client, etcd_prefix)

    def stop_at(prefix: str) -> compaction_keys.Step:
        def step(name: str) -> None:
            if name.startswith(prefix):
                raise _StoppedError(name)

        return step

    def compact(step: compaction_keys.Step) -> compacting.Report:
        with on_etcd.workspace() as ws:
            return compacting.compact(ws, dry_run=False, step=step)

    with on_etcd.workspace() as ws:  # another compaction, of another host, holds the lock
        other = acquire(ws.store.backend, keys.LOCK, "host z pid 4242")  # type: ignore[arg-type]
    with pytest.raises(LockHeldError, match="lock compact is held by host z pid 4242"):
        compact(compaction_keys.no_step)
    assert _keys(client, etcd_prefix) == before  # nothing written, nothing deleted
    client.revoke(other.lease_id)
    with pytest.raises(_StoppedError):
        compact(stop_at("archived"))
    kept = _keys(client, etcd_prefix)
    assert archive in kept
    assert {k: v for k, v in kept.items() if k in before} == before  # every member still there
    _clean(oms, on_etcd)

    def lapse(name: str) -> None:
        if name == "archived":
            held = client.get(f"{etcd_prefix}locks/compact")
            assert held is not None
            client.revoke(held.lease)

    with pytest.raises(LeaseError):
        compact(lapse)
    assert _keys(client, etcd_prefix) == kept  # nothing deleted
    with pytest.raises(_StoppedError):
        compact(stop_at("deleted files"))  # between its deletes: the records still there
    some = _keys(client, etcd_prefix)
    assert not [k for k in some if k.startswith(("events/", "evidence/", "outbox/"))], some
    assert [k for k in some if k.startswith(f"records/dispatch/{dispatch_id}/")], some
    _clean(oms, on_etcd)
    done = compact(compaction_keys.no_step)
    assert [r["ticket_id"] for r in done.compacted] == [ticket_id], done
    left = _keys(client, etcd_prefix)
    assert not [k for k in left if f"/{dispatch_id}" in k], left
    assert archive in left
    _clean(oms, on_etcd)
    locks_let_go(client, etcd_prefix)


@pytest.mark.cli
def test_sweep_removes_the_lock_keys_no_lease_holds(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """A lock key put under no lease (never by oms: it would hold its lock for ever) is removed by
    `oms store sweep`; a lock held under a lease stays."""
    with on_etcd.workspace() as ws:
        assert ws.store.backend is not None
        held = acquire(ws.store.backend, "outbox/c/e", "host a pid 1")  # type: ignore[arg-type]
    stuck = f"{etcd_prefix}locks/conductor/host-z"
    client.put(stuck, b"host host-z pid 4242")
    try:
        swept = _json(oms.run("store", "sweep", "--json", *_where(on_etcd)))
        assert f"etcd:{stuck}" in swept["removed"], swept
        assert client.get(stuck) is None
        assert client.get(held.fence.key) is not None
    finally:
        with on_etcd.workspace() as ws:
            release(ws.store.backend, held)  # type: ignore[arg-type]
