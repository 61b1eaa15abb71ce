"""Ticket ids are never given twice on a cluster, even across a rollback one host accepted (ADR
0043, amendment `floor`). The cluster is restored from a snapshot taken before host a added
tkt-3; host a's anchor names the rollback and a person accepts it there, which keeps host a
numbering above tkt-3. Host b never held the lost entries in its anchor: it numbered from what
the cluster and its own anchor knew, and gave tkt-3 again — another ticket under an id the
ledger's lost entries (kept by host a) name."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from oms.adapters.etcd import store as etcd_store
from oms.adapters.etcd.client import Etcd
from oms.errors import IntegrityError
from oms.limits import LIMITS
from oms.services.admin import audit
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from oms.store import anchor
from oms.store.keys import SigningKey
from tests.chain import Chain
from tests.etcd_cluster import Cluster
from tests.helpers import OmsCommand
from tests.integration.etcd.test_checkpoint_etcd import _etcdctl, _restore, own_cluster
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd
from tests.integration.etcd.test_tick_etcd import _run, _second_host

__all__ = ["own_cluster"]  # (the fixture, used by name)


def _open(chain: Chain, host: str) -> Workspace:
    ws = Workspace.open(str(chain.state), str(chain.repo), etcd=True)
    ws.host_name = host
    return ws


def _pin(home: Path, hosts: dict[str, Chain]) -> None:
    lines = []
    for host, where in hosts.items():
        with _open(where, host) as ws:
            meta = ws.store.state.meta
        lines.append(f'{host} = "{meta.key_id}:{meta.public_key.hex()}"')
    (home / "oms" / "etcd.toml").write_text("[hosts]\n" + "\n".join(lines) + "\n")


def _two_hosts(chain: Chain, cluster: Cluster, prefix: str) -> Iterator[Chain]:
    """Host a and host b (yielded) on the cluster under `prefix`, each pinning the other; host a
    added tkt-1 and tkt-2 and anchored them."""
    home = _use_etcd(chain, cluster.endpoints, prefix)
    for other in _second_host(chain):
        _pin(home, {"host-a": chain, "host-b": other})
        with _open(chain, "host-a") as ws:
            for title in ("First", "Second"):
                tickets.add(ws, title, "")
            assert ws.store.checkpoint_keys() is not None
        yield other


def test_no_host_gives_an_id_a_rollback_lost_once_it_is_accepted(
    chain: Chain, oms: OmsCommand, own_cluster: Cluster, tmp_path: Path
) -> None:
    for other in _two_hosts(chain, own_cluster, "/oms/floor/"):
        with _open(other, "host-b") as ws:
            assert ws.store.checkpoint_keys() is not None  # host b's anchor: tkt-1, tkt-2
        snapshot = tmp_path / "before.db"
        _etcdctl("--endpoints", own_cluster.endpoints[0], "snapshot", "save", str(snapshot))
        with _open(chain, "host-a") as ws:
            assert tickets.add(ws, "Third", "").record_id == "tkt-3"
            assert ws.store.checkpoint_keys() is not None
        _restore(own_cluster, snapshot, own_cluster.token)  # tkt-3 is gone from the cluster
        with _open(chain, "host-a") as ws:
            accepted = audit.accept_rollback(ws)
        assert accepted["tickets_reserved"] == 3, accepted
        with _open(other, "host-b") as ws:
            given = tickets.add(ws, "Added on host b after the accept", "").record_id
        assert given == "tkt-4", given  # tkt-3 was given before the restore
        with _open(chain, "host-a") as ws:
            assert tickets.add(ws, "Added on host a", "").record_id == "tkt-5"
        for host, where in (("host-a", chain), ("host-b", other)):
            code, out = _run(oms, where, host, "audit", "verify")
            assert code == 0, out  # the shared rollback is ledgered and its signature checks


def test_a_forged_floor_on_the_cluster_is_named_and_never_followed(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """A key under `rollbacks/` no pinned host signed (an attacker with the cluster's
    credentials): `oms store verify` names it, and ticket numbers do not jump to it."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    with _open(chain, "host-a") as ws:
        tickets.add(ws, "First", "")
    stranger, _ = SigningKey.generate()
    name, data = anchor.shared_rollback(stranger, "f" * 64, 1, "0" * 64, 1_000_000)
    client = Etcd(etcd_cluster.endpoints)
    try:
        client.put(etcd_prefix + name, data)
    finally:
        client.close()
    with _open(chain, "host-a") as ws:
        assert tickets.add(ws, "Second", "").record_id == "tkt-2"
    code, out = _oms(oms, chain, "store", "verify")
    assert code != 0, out
    assert name in out, out
    assert "no pinned host holds" in out, out


def test_planted_keys_cannot_hide_the_floor_that_counts(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More keys under `rollbacks/` than oms reads (keys planted to sort before the floor that
    counts, pushing it past the bound): a ticket is not numbered at all, in one line, rather
    than numbered from part of them (before: the first keys read, the floor past them never
    seen)."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    monkeypatch.setattr(etcd_store, "LIMITS", LIMITS._replace(shared_rollbacks_read=3))
    client = Etcd(etcd_cluster.endpoints)
    try:
        for n in range(4):
            client.put(f"{etcd_prefix}rollbacks/{n:064x}.json", b"{}")
    finally:
        client.close()
    with _open(chain, "host-a") as ws, pytest.raises(IntegrityError) as refused:
        tickets.add(ws, "Numbered from part of the floor", "")
    assert "more than 3 keys" in refused.value.message, refused.value.message
    with _open(chain, "host-a") as ws:
        assert ws.store.latest("ticket").records == []


def test_an_accept_beside_another_hosts_write_anchors_a_ledger_it_extends(
    chain: Chain,
    oms: OmsCommand,
    own_cluster: Cluster,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Host b adds a ticket (a ledger entry) while host a accepts the rollback, between the
    accept's read of the cluster's head and its floor's write. The accept anchors, and its floor
    names, the head it read in one request; b's entry extends the ledger past it. So the floor is
    this ledger's (`oms store verify` counts it on both hosts), b's next ticket is numbered above
    it, and `oms audit verify` is clean on both hosts. (Held; a floor that took its entry and its
    hash from two reads names "another ledger" and is not counted: that is what this catches.)"""
    for other in _two_hosts(chain, own_cluster, "/oms/race/"):
        snapshot = tmp_path / "before.db"
        _etcdctl("--endpoints", own_cluster.endpoints[0], "snapshot", "save", str(snapshot))
        with _open(chain, "host-a") as ws:
            assert tickets.add(ws, "Third", "").record_id == "tkt-3"
            assert ws.store.checkpoint_keys() is not None
        _restore(own_cluster, snapshot, own_cluster.token)  # tkt-3 is gone from the cluster
        during: list[str] = []
        advance = anchor.advance
        meanwhile = functools.partial(_host_b_writes_then, other, during, advance)
        monkeypatch.setattr(anchor, "advance", meanwhile)
        with _open(chain, "host-a") as ws:
            assert audit.accept_rollback(ws)["tickets_reserved"] == 3
        monkeypatch.setattr(anchor, "advance", advance)
        assert during == ["tkt-3"]  # the window before the accept (documented in ADR 0043)
        with _open(other, "host-b") as ws:
            assert tickets.add(ws, "Added on host b after", "").record_id == "tkt-4"
        for host, where in (("host-a", chain), ("host-b", other)):
            for check in (("store", "verify"), ("audit", "verify")):
                code, out = _run(oms, where, host, *check)
                assert code == 0, (host, check, out)


def _host_b_writes_then(
    other: Chain, during: list[str], advance: Callable[..., str | None], *args: Any, **kwargs: Any
) -> str | None:
    """Host b adds a ticket, then the accept's anchor moves (`anchor.advance`, wrapped)."""
    with _open(other, "host-b") as ws:
        during.append(tickets.add(ws, "Added on host b during the accept", "").record_id)
    return advance(*args, **kwargs)
