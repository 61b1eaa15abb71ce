"""Attack (ADR 0043, amendment `cross4`): a person's reopen racing a compaction of the ticket.

A ticket blocked long ago is due for compaction (ADR 0022: ended, every part ended, its worktree
gone). A compaction decides so and writes its archive; before its deletes, a person runs `oms
ticket reopen` (a real process): the ticket is open for its next attempt. Were the deletes to
compare only the keys they remove, they would take the reopened ticket's dispatch from under it —
an open ticket compacted, which the rule never allows. Each delete also compares the ticket's
latest pointer as the compaction read it: the ticket is kept with why, every record stays, and
both verifies are clean (the archive beside its members, as a compaction stopped there leaves)."""

from __future__ import annotations

import pytest

from oms.adapters.etcd.client import Etcd
from oms.services.admin import compaction as compacting
from oms.services.chain import dispatches, tickets
from oms.store import compaction
from tests.etcd_cluster import locks_let_go
from tests.helpers import OmsCommand
from tests.integration.etcd.test_deliver_etcd import EtcdChain, _clean, client, on_etcd
from tests.integration.etcd.test_upkeep_etcd import DAY_MINUTES, _json, _keys, _where

__all__ = ["client", "on_etcd"]


@pytest.mark.cli
def test_a_ticket_reopened_while_it_is_compacted_keeps_its_records(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    on_etcd.edit_config(
        lambda s: (
            s.replace("[worktrees]\n", "[worktrees]\ngc_after_days = 0\n", 1)
            + "\n[retention]\ncompact_after_days = 1\n"
        ),
        commit=True,
    )
    ticket_id, token, dispatch_id = on_etcd.proposed()
    with on_etcd.workspace() as ws:
        dispatches.reject(ws, dispatch_id, "not this one")
        tickets.finish(ws, ticket_id, token, "blocked", "asks a person")
    where = _where(on_etcd)
    gone = _json(oms.run("worktree", "gc", "--json", *where))
    assert len(gone["removed"]) == 1, gone
    on_etcd.clock.advance(2 * DAY_MINUTES)
    with on_etcd.workspace() as ws:
        dry = compacting.compact(ws, dry_run=True)
    assert [r["ticket_id"] for r in dry.compacted] == [ticket_id], dry
    said: list[dict[str, object]] = []

    def reopen(name: str) -> None:  # the person, between the archive and the deletes
        if name == "archived":
            said.append(
                _json(oms.run("ticket", "reopen", ticket_id, "--person", "Ann", "--yes",
                              "--json", *where))
            )  # fmt: skip

    with on_etcd.workspace() as ws:
        report = compacting.compact(ws, dry_run=False, step=reopen)
    assert [(s["ticket"]["state"], s["ticket"]["attempt"]) for s in said] == [  # type: ignore[index]
        ("open", 2)
    ], said
    assert report.compacted == [], report
    assert [r["ticket_id"] for r in report.kept] == [ticket_id], report.kept
    assert "changed" in str(report.kept[0]["why"]), report.kept
    left = _keys(client, etcd_prefix)
    assert [k for k in left if k.startswith(f"records/dispatch/{dispatch_id}/")], left
    shown = _json(oms.run("dispatch", "show", dispatch_id, "--json", *where))
    assert shown["dispatch"]["state"] == "rejected", shown
    _clean(oms, on_etcd)
    with on_etcd.workspace() as ws:  # the next pass: the ticket is open, not due
        again = compacting.compact(ws, dry_run=False)
    assert again.compacted == [], again
    assert compaction.archive_path(ticket_id) in _keys(client, etcd_prefix)
    locks_let_go(client, etcd_prefix)
