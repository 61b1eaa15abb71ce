"""Attack (ADR 0043, amendment `cross5`): `oms result show` of a ticket while it is compacted.

A compaction of an ended ticket writes its archive, then deletes its files (evidence, events,
receipts), then its records (amendment `upkeep`). A person's `oms result show` (a real process)
between any two steps reads a result whose evidence or records may be half gone: it must answer in
one line — the result, or a refusal saying the dispatch is compacted — never a traceback. On the
real 3-member cluster."""

from __future__ import annotations

import json

import pytest

from oms.adapters.etcd.client import Etcd
from oms.services.admin import compaction as compacting
from tests.helpers import OmsCommand
from tests.integration.etcd.test_deliver_etcd import EtcdChain, _clean, client, on_etcd
from tests.integration.etcd.test_upkeep_etcd import DAY_MINUTES, _ended, _where

__all__ = ["client", "on_etcd"]


@pytest.mark.cli
def test_a_result_shown_between_each_step_of_its_compaction_answers_in_one_line(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    ticket_id, dispatch_id = _ended(on_etcd, oms)
    on_etcd.clock.advance(2 * DAY_MINUTES)
    seen: dict[str, list[tuple[int, dict[str, object]]]] = {}

    def show(name: str) -> None:
        for handle in (dispatch_id, ticket_id):
            done = oms.run("result", "show", handle, "--json", *_where(on_etcd))
            assert "Traceback" not in done.stderr, (name, done.stderr)
            lines = done.stdout.splitlines()
            assert len(lines) == 1, (name, done.stdout, done.stderr)
            seen.setdefault(name, []).append((done.returncode, json.loads(lines[0])))

    show("before")
    with on_etcd.workspace() as ws:
        report = compacting.compact(ws, dry_run=False, step=show)
    assert [r["ticket_id"] for r in report.compacted] == [ticket_id], report
    show("after")
    assert list(seen) == ["before", "archived", "deleted files", "deleted records", "after"]
    for name, answers in seen.items():
        for code, said in answers:
            assert code in (0, 1), (name, said)
            if code == 1:
                assert said["ok"] is False, (name, said)
                assert said["error"] != "internal", (name, said)
    assert [code for code, _ in seen["before"]] == [0, 0], seen["before"]
    _clean(oms, on_etcd)
