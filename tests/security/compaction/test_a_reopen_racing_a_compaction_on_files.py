"""Attack (ADR 0022, amendment `filesreopen`): a person's reopen racing a compaction on files.

A ticket blocked long ago is due for compaction (ended, every part ended, its worktree gone). A
compaction decides so and publishes its archive; before its deletes, a person runs `oms ticket
reopen` (a real process): the ticket is open for its next attempt. Were the deletes blind to the
ticket, they would take the reopened ticket's dispatch and events from under it — an open ticket
compacted, which the rule never allows, and an archive that its next end could never complete.
Each delete runs under the ledger's lock, which every ledgered write takes, after a look at the
ticket's next version: the ticket is kept with why, every record stays, the audit is clean."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from oms.services.admin import compaction as compacting
from oms.services.chain import dispatches, tickets
from oms.store import compaction
from tests.chain import Chain
from tests.helpers import oms_command
from tests.integration.test_compaction import _audit, _retention
from tests.integration.test_worktree_gc import _gc, _ttl

DAY_MINUTES = 24 * 60


def _json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stdout + done.stderr
    view = json.loads(done.stdout.splitlines()[0])
    assert isinstance(view, dict)
    return view


@pytest.mark.cli
def test_a_ticket_reopened_while_it_is_compacted_on_files_keeps_its_records(chain: Chain) -> None:
    _ttl(chain, 0)
    _retention(chain, 1)
    ticket_id, token, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        dispatches.reject(ws, dispatch_id, "not this one")
        tickets.finish(ws, ticket_id, token, "blocked", "asks a person")
    assert len(_gc(chain).removed) == 1
    chain.clock.advance(2 * DAY_MINUTES)
    with chain.workspace() as ws:
        dry = compacting.compact(ws, dry_run=True)
    assert [r["ticket_id"] for r in dry.compacted] == [ticket_id], dry
    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    oms = oms_command()
    said: list[dict[str, Any]] = []

    def reopen(name: str) -> None:  # the person, between the archive and the deletes
        if name == "archived":
            said.append(
                _json(oms.run("ticket", "reopen", ticket_id, "--person", "Ann", "--yes",
                              "--json", *where))
            )  # fmt: skip

    with chain.workspace() as ws:
        report = compacting.compact(ws, dry_run=False, step=reopen)
    assert [(s["ticket"]["state"], s["ticket"]["attempt"]) for s in said] == [("open", 2)], said
    assert report.compacted == [], report
    assert [r["ticket_id"] for r in report.kept] == [ticket_id], report.kept
    assert "changed" in str(report.kept[0]["why"]), report.kept
    assert (chain.state / "records" / "dispatch" / dispatch_id).is_dir()
    shown = _json(oms.run("dispatch", "show", dispatch_id, "--json", *where))
    assert shown["dispatch"]["state"] == "rejected", shown
    problems, _ = _audit(chain)
    assert problems == [], problems
    with chain.workspace() as ws:  # the next pass: the ticket is open, not due
        again = compacting.compact(ws, dry_run=False)
    assert again.compacted == [], again
    assert (chain.state / compaction.archive_path(ticket_id)).is_file()
