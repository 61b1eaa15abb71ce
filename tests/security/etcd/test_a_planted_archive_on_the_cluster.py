"""Attack (ADR 0043, amendment `upkeep`): an archive key planted on the cluster deletes nothing.

Whoever can write the cluster puts `compacted/<ticket>.json.z` holding the true bytes of an ended
ticket's records, events and evidence — exactly the archive a compaction would make — but without
the ledger entry oms creates in the same transaction. Were it taken for one, the next compaction
would delete every member it holds, and the ledger's entries would be vouched for by an archive oms
never wrote. A compaction finds no entry created with it (`adapters/etcd/compaction.noted`): the
ticket is kept with why, no member is deleted, and `oms store verify` names the planted key."""

from __future__ import annotations

import pytest

from oms.adapters.etcd.client import Etcd
from oms.services.admin import compaction as compacting
from oms.store import compaction
from tests.helpers import OmsCommand
from tests.integration.etcd.test_deliver_etcd import EtcdChain, client, on_etcd
from tests.integration.etcd.test_upkeep_etcd import DAY_MINUTES, _ended, _keys, _where

__all__ = ["client", "on_etcd"]


@pytest.mark.cli
def test_an_archive_key_planted_with_true_bytes_deletes_nothing(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    ticket_id, _ = _ended(on_etcd, oms)
    on_etcd.clock.advance(2 * DAY_MINUTES)
    with on_etcd.workspace() as ws:
        dry = compacting.compact(ws, dry_run=True)  # what the archive would hold
        ticket = ws.store.records("ticket").read(ticket_id)
    assert [r["ticket_id"] for r in dry.compacted] == [ticket_id], dry
    rel = compaction.archive_path(ticket_id)
    members = {
        k: v.value
        for k, v in ((kv.key[len(etcd_prefix) :], kv) for kv in client.range_prefix(etcd_prefix))
        if compaction.member(k) and not k.startswith("records/ticket/")
    }
    client.put(etcd_prefix + rel, compaction.encode(ticket_id, ticket.observed_at, members))
    before = _keys(client, etcd_prefix)
    with on_etcd.workspace() as ws:
        report = compacting.compact(ws, dry_run=False)
    assert report.compacted == [], report
    assert [r["why"] for r in report.kept] == [
        f"{rel} is not an archive oms wrote (run `oms audit verify`)"
    ], report.kept
    assert _keys(client, etcd_prefix) == before  # no member deleted
    verified = oms.run("store", "verify", *_where(on_etcd))
    assert verified.returncode == 1, verified.stdout
    assert f"etcd:{etcd_prefix}{rel}: is in no ledger entry" in verified.stdout, verified.stdout
