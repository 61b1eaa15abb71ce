"""Compaction (issue 14 item 5, ADR 0022) on a real chain's state root: an ended ticket whose work
is merged and whose worktree is gone has its dispatch, worker and session records, evidence, events
and receipts moved into one archive; the ledger still verifies, `oms store verify` still passes, the
ticket still shows, the timeline still reads; nothing unfinished is ever compacted, and a compaction
killed anywhere is finished by the next."""

from __future__ import annotations

import json
from pathlib import Path

from oms.services.admin import compaction as compacting
from oms.store import Store, compaction
from oms.store.verify import verify as store_verify
from tests.chain import Chain
from tests.helpers import oms_command
from tests.integration.test_worktree_gc import _gc, _merged, _ttl


def _retention(chain: Chain, days: int) -> None:
    chain.edit_config(lambda s: s + f"\n[retention]\ncompact_after_days = {days}\n", commit=True)


def _compact(chain: Chain, *, dry_run: bool = False) -> compacting.Report:
    with chain.workspace() as ws:
        return compacting.compact(ws, dry_run=dry_run)


def _audit(chain: Chain) -> tuple[list[str], int]:
    with Store.open(str(chain.state)) as store:
        audit = store.audit(None)
    return audit.problems, audit.compacted


def _ended(chain: Chain) -> tuple[str, str]:
    """A merged, stopped ticket whose worktree gc removed: (ticket id, dispatch id)."""
    _ttl(chain, 0)
    _retention(chain, 1)
    bound = _merged(chain)
    assert [r["path"] for r in _gc(chain).removed] == [str(bound.worktree)]
    with chain.workspace() as ws:
        ticket_id = str(ws.store.records("dispatch").read(bound.dispatch_id).payload["ticket_id"])
    return ticket_id, bound.dispatch_id


def _files_of(chain: Chain, dispatch_id: str) -> list[Path]:
    return [
        p
        for kind in ("dispatch", "worker")
        for p in (chain.state / "records" / kind / dispatch_id).glob("*")
    ]


def test_an_ended_ticket_is_compacted_into_one_archive_and_everything_still_verifies(
    chain: Chain,
) -> None:
    ticket_id, dispatch_id = _ended(chain)
    early = _compact(chain)
    assert early.compacted == []
    assert early.kept == []
    assert early.not_due == 1
    chain.clock.advance(2 * 24 * 60)
    dry = _compact(chain, dry_run=True)
    assert [r["ticket_id"] for r in dry.compacted] == [ticket_id]
    assert _files_of(chain, dispatch_id)  # a dry run moves nothing
    assert not (chain.state / compaction.archive_path(ticket_id)).exists()
    done = _compact(chain)
    assert [r["ticket_id"] for r in done.compacted] == [ticket_id]
    row = done.compacted[0]
    assert int(str(row["files"])) >= 10
    assert int(str(row["bytes_after"])) < int(str(row["bytes_before"]))
    assert not (chain.state / "records" / "dispatch" / dispatch_id).exists()
    assert not (chain.state / "records" / "worker" / dispatch_id).exists()
    assert (
        chain.state / "records" / "ticket" / ticket_id
    ).is_dir()  # the ticket stays: its id is never reused
    with Store.open(str(chain.state)) as store:
        archive = compaction.read(store.state.root, ticket_id)
    assert archive is not None
    assert any(p.startswith("evidence/") for p in archive.files)
    assert any(p.startswith("events/") for p in archive.files)
    assert any(p.startswith(f"records/worker/{dispatch_id}/") for p in archive.files)
    problems, compacted = _audit(chain)
    assert problems == []
    assert compacted == int(str(row["files"])) - sum(
        1 for p in archive.files if p.startswith("outbox/")
    )
    assert store_verify(str(chain.state)).ok
    again = _compact(chain)
    assert again.compacted == []
    assert again.kept == []


def test_the_cli_shows_a_compacted_ticket_and_its_timeline(chain: Chain) -> None:
    ticket_id, dispatch_id = _ended(chain)
    chain.clock.advance(2 * 24 * 60)
    _compact(chain)
    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    shown = oms_command().run("ticket", "show", ticket_id, "--json", *where)
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(shown.stdout)
    assert doc["ticket"]["state"] == "done"
    assert doc["compacted"]["archive"] == compaction.archive_path(ticket_id)
    log = oms_command().run("audit", "log", "--dispatch", dispatch_id, "--json", *where)
    assert log.returncode == 0, log.stderr
    whats = [r["what"] for r in json.loads(log.stdout)["entries"]]
    assert any(
        w.startswith(f"dispatch {dispatch_id} v") and "-> result-received" in w for w in whats
    ), whats
    gone = oms_command().run("dispatch", "show", dispatch_id, *where)
    assert gone.returncode != 0
    assert "compacted" in gone.stderr
    assert "Traceback" not in gone.stderr
    verified = oms_command().run("audit", "verify", *where)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "compacted" in verified.stdout


def test_the_cli_compacts_and_reports_in_text_and_json(chain: Chain) -> None:
    _ended(chain)
    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    text = oms_command().run("store", "compact", "--dry-run", *where)
    assert text.returncode == 0, text.stderr
    assert "0 would compact, 0 KiB freed; 0 kept; 1 ended ticket(s) not due yet" in text.stdout
    chain.edit_config(
        lambda s: s.replace("compact_after_days = 1", "compact_after_days = 0"), commit=True
    )
    off = oms_command().run("store", "compact", "--json", *where)
    assert off.returncode == 0, off.stderr
    assert json.loads(off.stdout)["off"] is True


def test_nothing_unfinished_is_compacted(chain: Chain) -> None:
    _ttl(chain, 0)
    _retention(chain, 1)
    bound = _merged(chain)  # ended and merged, but its worktree is still there
    chain.clock.advance(3 * 24 * 60)
    kept = _compact(chain).kept
    assert len(kept) == 1
    assert "its worktree" in str(kept[0]["why"])
    assert "oms worktree gc" in str(kept[0]["why"])
    assert _files_of(chain, bound.dispatch_id)


def test_a_file_not_as_the_ledger_has_it_is_never_archived(chain: Chain) -> None:
    ticket_id, dispatch_id = _ended(chain)
    chain.clock.advance(2 * 24 * 60)
    event = next(p for p in (chain.state / "events").glob("*.json") if dispatch_id in p.read_text())
    event.chmod(0o600)
    event.write_bytes(event.read_bytes().replace(b'"created_at"', b'"created_at" ', 1))
    kept = _compact(chain).kept
    assert [r["ticket_id"] for r in kept] == [ticket_id]
    assert "is not as the ledger has it" in str(kept[0]["why"])
    assert not (chain.state / compaction.archive_path(ticket_id)).exists()
    assert _files_of(chain, dispatch_id)


def test_a_compaction_killed_after_its_archive_is_finished_by_the_next(chain: Chain) -> None:
    ticket_id, dispatch_id = _ended(chain)
    chain.clock.advance(2 * 24 * 60)
    assert [r["ticket_id"] for r in _compact(chain).compacted] == [ticket_id]
    with Store.open(
        str(chain.state)
    ) as store:  # put back what a compaction killed right after its note left
        archive = compaction.read(store.state.root, ticket_id)
    assert archive is not None
    for rel, data in archive.files.items():
        path = chain.state / rel
        if rel.startswith(
            f"records/worker/{dispatch_id}/"
        ):  # this record was moved aside, not yet deleted
            path = chain.state / compaction.RETIRED / f"worker.{dispatch_id}" / path.name
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o600)
    assert (chain.state / "records" / "dispatch" / dispatch_id).is_dir()
    assert _audit(chain)[0] == []
    notes = [f for f in store_verify(str(chain.state)).findings if "retired" in f.path]
    assert notes
    assert all(f.severity == "note" for f in notes)
    done = _compact(chain)
    assert [r["ticket_id"] for r in done.compacted] == [ticket_id]
    assert not (chain.state / "records" / "dispatch" / dispatch_id).exists()
    assert list((chain.state / compaction.RETIRED).iterdir()) == []
    assert not any(
        p.name in {n.rsplit("/", 1)[-1] for n in archive.files}
        for p in (chain.state / "events").iterdir()
    )
    assert _audit(chain)[0] == []
    assert store_verify(str(chain.state)).ok


def test_the_conductors_tick_compacts_a_due_ticket(chain: Chain) -> None:
    from oms.services.conductor import tick as conductor

    ticket_id, dispatch_id = _ended(chain)
    with chain.workspace() as ws:
        first = conductor.tick(ws)
    assert not any(p.done for p in first.phases if p.name == "compact")  # not due yet
    chain.clock.advance(2 * 24 * 60)
    with chain.workspace() as ws:
        report = conductor.tick(ws)
    compact = next(p for p in report.phases if p.name == "compact")
    assert compact.done == [f"compacted {ticket_id} into {compaction.archive_path(ticket_id)}"]
    assert not (chain.state / "records" / "dispatch" / dispatch_id).exists()
    assert _audit(chain)[0] == []
