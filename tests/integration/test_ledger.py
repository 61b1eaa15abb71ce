"""The tamper-evident ledger (issue 14 item 5, ADR 0022) on a real chain's state root: everything
the store writes is in one hash chain, a writing command signs its head, and `oms audit verify`
finds what `oms store verify` cannot — an in-place edit of a record's latest version, a deleted
latest version, a dropped event, an injected version, a rewritten chain line, and, given an exported
checkpoint, a rolled-back state root — naming the first bad entry."""

from __future__ import annotations

import json
import multiprocessing
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.errors import IntegrityError
from oms.store import Store, ledger
from oms.store.verify import verify as store_verify
from tests.chain import Chain
from tests.helpers import oms_command


def _audit(chain: Chain, exported: bytes | None = None) -> list[str]:
    with Store.open(str(chain.state)) as store:
        return store.audit(exported).problems


def _latest_version(chain: Chain, kind: str) -> Path:
    versions = sorted(
        (chain.state / "records" / kind).glob("*/[0-9]*.json"), key=lambda p: int(p.stem)
    )
    assert versions
    return versions[-1]


def test_every_write_is_on_one_chain_and_a_writing_command_signs_its_head(chain: Chain) -> None:
    ticket_id, _, dispatch_id = chain.proposed()
    assert _audit(chain) == []
    entries = ledger.read_chain_from(str(chain.state))
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    paths = {e.path for e in entries}
    assert any(p.startswith(f"records/ticket/{ticket_id}/") for p in paths)
    assert any(p.startswith(f"records/dispatch/{dispatch_id}/") for p in paths)
    assert store_verify(str(chain.state)).ok  # the ledger is part of the layout
    done = oms_command().run(
        "ticket",
        "add",
        "--title",
        "Another",
        "--no-body",
        "--state-root",
        str(chain.state),
        "--config-root",
        str(chain.repo),
    )
    assert done.returncode == 0, done.stderr
    seqs = sorted(int(p.stem) for p in (chain.state / "ledger" / "checkpoints").glob("*.json"))
    entries = ledger.read_chain_from(str(chain.state))
    assert entries[-1].kind == "checkpoint"  # the checkpoint is noted too (ADR 0027)...
    assert entries[-1].path == f"ledger/checkpoints/{seqs[-1]}.json"
    assert seqs[-1] == entries[-2].seq  # ...of the head the command left


def test_an_edit_or_deletion_of_a_latest_version_is_found(chain: Chain) -> None:
    chain.proposed()
    latest = _latest_version(chain, "dispatch")
    original = latest.read_bytes()
    latest.chmod(0o600)
    latest.write_bytes(original.replace(b'"proposed"', b'"accepted"', 1))
    problems = _audit(chain)
    assert problems
    assert f"{latest.relative_to(chain.state)} was changed after it was written" in problems[0]
    latest.unlink()
    assert f"{latest.relative_to(chain.state)} is gone" in _audit(chain)[0]


def test_a_dropped_event_and_an_injected_version_are_found(chain: Chain) -> None:
    from tests.chain import accepted

    accepted(chain)
    event = sorted((chain.state / "events").glob("*.json"))[0]
    event.unlink()
    assert any(f"{event.relative_to(chain.state)} is gone" in p for p in _audit(chain))
    latest = _latest_version(chain, "ticket")
    forged = latest.with_name(f"{int(latest.stem) + 1}.json")
    shutil.copy(latest, forged)
    assert any(
        f"{forged.relative_to(chain.state)} is in no ledger entry" in p for p in _audit(chain)
    )


def test_a_rewritten_line_breaks_the_chain_at_that_line(chain: Chain) -> None:
    chain.proposed()
    log = chain.state / "ledger" / "log"
    lines = log.read_bytes().splitlines(keepends=True)
    doc = json.loads(lines[1])
    doc["sha256"] = "0" * 64  # the second entry rewritten (to hide an edit of the file it names)
    lines[1] = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    log.write_bytes(b"".join(lines))
    problems = _audit(chain)
    assert problems[0].startswith(
        "ledger line 2: not written with the state key"
    )  # its mac no longer holds


def test_an_exported_checkpoint_and_the_anchor_find_a_rolled_back_state_root(
    chain: Chain,
    tmp_path: Path,
) -> None:
    chain.proposed()
    copy = tmp_path / "older-copy"
    shutil.copytree(chain.state, copy, symlinks=True)  # what an attacker keeps, to restore later
    chain.proposed("More work")
    exported = tmp_path / "checkpoint.json"
    done = oms_command().run(
        "audit",
        "checkpoint",
        "--export",
        str(exported),
        "--state-root",
        str(chain.state),
        "--config-root",
        str(chain.repo),
    )
    assert done.returncode == 0, done.stderr
    assert _audit(chain, exported.read_bytes()) == []
    shutil.rmtree(chain.state)
    shutil.copytree(copy, chain.state, symlinks=True)  # the whole state root rolled back
    assert "rolled back" in _audit(chain)[0]  # the anchor outside names it alone (ADR 0027)
    problems = _audit(chain, exported.read_bytes())  # and so does what was exported
    assert any("the exported checkpoint" in p and "rolled back" in p for p in problems)


def test_a_torn_last_line_is_cut_off_by_the_next_write(chain: Chain) -> None:
    chain.proposed()
    log = chain.state / "ledger" / "log"
    whole = log.read_bytes()
    log.write_bytes(
        whole + b'{"at":"2026-12-01T00:00:00.000Z","kind":"rec'
    )  # a writer died mid-line
    assert "torn" in _audit(chain)[0]
    chain.proposed("Again")  # the next note cuts the torn tail under the log's lock
    assert _audit(chain) == []


def _append_many(state: str, n: int, worker: int) -> None:
    from oms.fsio import Root

    with Root.open(state) as root:
        for i in range(n):
            data = f"{worker}-{i}".encode()
            ledger.note(root, "journal", f"journals/none/{worker}{i:04d}.json", data)


def test_concurrent_writers_keep_one_linked_chain(chain: Chain) -> None:
    chain.proposed()
    before = len(ledger.read_chain_from(str(chain.state)))
    procs = [
        multiprocessing.Process(target=_append_many, args=(str(chain.state), 50, w))
        for w in range(4)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    entries = ledger.read_chain_from(str(chain.state))
    assert len(entries) == before + 200
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    with Store.open(str(chain.state)) as store:
        assert ledger.read_chain(store.state.root).fault is None


@given(st.binary(max_size=300))
def test_no_line_crashes_the_parser(line: bytes) -> None:
    try:
        ledger.parse_line(line)
    except IntegrityError:
        pass


def test_the_cli_verifies_and_shows_the_timeline(chain: Chain) -> None:
    ticket_id, _, dispatch_id = chain.proposed()
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    run = oms_command().run
    ok = run("audit", "verify", "--json", *roots)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["ok"] is True
    shown = run("audit", "log", "--dispatch", dispatch_id, "--json", *roots)
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)["entries"]
    assert rows
    assert all(
        dispatch_id in r["path"] or "dispatch" in r["what"] or "evidence" in r["what"] for r in rows
    )
    by_worker = run("audit", "log", "--worker", dispatch_id, "--json", *roots)
    assert json.loads(by_worker.stdout)["entries"] == rows  # a worker's id is its dispatch's
    both = run("audit", "log", "--worker", "x", "--dispatch", dispatch_id, *roots)
    assert both.returncode == 2
    late = run("audit", "log", "--since", "2999-01-01T00:00:00.000Z", "--json", *roots)
    assert json.loads(late.stdout)["entries"] == []
    bad_time = run("audit", "log", "--since", "yesterday", *roots)
    assert bad_time.returncode != 0
    assert "Traceback" not in bad_time.stderr
    plain = run("audit", "log", "--ticket", ticket_id, *roots)
    assert f"ticket {ticket_id} v0 -> open" in plain.stdout
    _latest_version(chain, "ticket").unlink()
    bad = run("audit", "verify", *roots)
    assert bad.returncode == 1
    assert "is gone" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_a_state_root_from_before_the_ledger_is_adopted_once_by_its_user(chain: Chain) -> None:
    """Upgrading: a state root with records and no ledger (made before it) refuses to start one
    silently — a write says to run `oms audit adopt` —; after it, writes and `oms audit verify` go
    on as usual."""
    chain.proposed()
    shutil.rmtree(chain.state / "ledger")  # as a state root made by an oms without the ledger
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    run = oms_command().run
    refused = run("ticket", "add", "--title", "After the upgrade", "--no-body", *roots)
    assert refused.returncode == 1
    assert "oms audit adopt" in refused.stderr
    assert "Traceback" not in refused.stderr
    adopted = run("audit", "adopt", "--json", *roots)
    assert adopted.returncode == 0, adopted.stderr
    assert json.loads(adopted.stdout)["adopted"] > 0
    assert run("audit", "adopt", *roots).returncode == 1  # once
    assert run("ticket", "add", "--title", "Next", "--no-body", *roots).returncode == 0
    assert run("audit", "verify", *roots).returncode == 0


def test_a_ledger_an_earlier_oms_started_is_upgraded_once_by_its_user(chain: Chain) -> None:
    """Upgrading (ADR 0027): a ledger started by an oms that did not ledger oms-state.json, ticket
    content, worktree records, receipts, checkpoints, check outputs and bundles is said so in one
    line (not a line a file); `oms audit adopt` notes those files once; writes go on meanwhile."""
    from oms.fsio import Root

    chain.proposed()
    log = chain.state / "ledger" / "log"
    with Root.open(str(chain.state)) as root:
        key = ledger.line_key(root)
        old, prev = b"", ledger.GENESIS
        kept = [e for e in ledger.read_chain(root).entries if not ledger.upgraded(e.path)]
        for seq, e in enumerate(kept, 1):  # the same entries, as the earlier oms had them
            doc = json.loads(ledger.line_of(seq, prev, e.at, e.kind, e.path, b"", None))
            doc["sha256"] = e.sha256
            line = _relined(doc, key)
            old, prev = old + line, ledger.hash_of(line)
    log.write_bytes(old)
    problems = _audit(chain)
    assert len(problems) == 1, problems
    assert "started by an earlier oms" in problems[0]
    assert "oms audit adopt" in problems[0]
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    run = oms_command().run
    assert run("ticket", "add", "--title", "Meanwhile", "--no-body", *roots).returncode == 0
    adopted = run("audit", "adopt", "--json", *roots)
    assert adopted.returncode == 0, adopted.stderr
    assert json.loads(adopted.stdout)["adopted"] > 1
    assert run("audit", "verify", *roots).returncode == 0
    assert run("audit", "adopt", *roots).returncode == 1  # once


def _relined(doc: dict[str, object], key: bytes) -> bytes:
    import hashlib
    import hmac

    from oms.canonical.strict_json import dumps

    doc = dict(doc)
    doc["mac"] = hmac.new(key, dumps(doc), hashlib.sha256).hexdigest()
    return dumps(doc) + b"\n"


def test_the_last_entries_of_the_timeline_never_read_the_whole_ledger(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26 item 4: `oms audit log --limit N` read the whole ledger (4.7 s at 100,000 entries);
    it reads from the end only what its N entries take (bench/audit_log_bench.py)."""
    from oms.services.admin import audit
    from oms.services.workspace import Workspace

    _, _, dispatch_id = chain.proposed()
    with Workspace.open(str(chain.state), str(chain.repo)) as ws:
        everything, fault = audit.timeline(ws)
        assert fault is None
        mine, _ = audit.timeline(ws, dispatch=dispatch_id)

        def whole(*_: object, **__: object) -> None:
            raise AssertionError("the whole ledger was read")

        monkeypatch.setattr(audit, "read_chain", whole)
        monkeypatch.setattr(ledger, "read_chain", whole)
        last, fault = audit.timeline(ws, limit=3)
        assert fault is None
        assert last == everything[-3:]
        assert audit.timeline(ws, dispatch=dispatch_id, limit=2)[0] == mine[-2:]


def test_a_dispatch_timeline_reads_no_further_back_than_its_first_version(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker's timeline (`oms audit log --worker`, the board's worker view) read the whole
    ledger whenever the dispatch had fewer entries than its limit: a click on a worker cost every
    entry oms ever wrote (0.1 ms each). Nothing written before a dispatch's first version names
    it: the reading stops there, and shows the same rows."""
    from oms.services.admin import audit
    from oms.services.chain import tickets
    from oms.services.workspace import Workspace

    with Workspace.open(str(chain.state), str(chain.repo)) as ws:
        for n in range(20):  # entries before the dispatch
            tickets.add(ws, f"earlier {n}", "")
    _, _, dispatch_id = chain.proposed()
    with Workspace.open(str(chain.state), str(chain.repo)) as ws:
        for n in range(3):  # and after it
            tickets.add(ws, f"later {n}", "")
        root = ws.store.state.root
        entries = ledger.read_chain(root, ledger.line_key(root)).entries
        archived = audit._Archived(ws)
        wanted = [  # what reading the whole ledger finds (as before)
            e.seq for e in entries if dispatch_id in audit._names(e, audit._doc(ws, e, archived))
        ]
        first = f"records/dispatch/{dispatch_id}/0.json"
        since = next(i for i, e in enumerate(entries) if e.path == first)
        read: list[str] = []
        doc = audit._doc

        def counted(ws_: Workspace, entry: ledger.Entry, archived: object) -> object:
            read.append(entry.path)
            return doc(ws_, entry, archived)  # type: ignore[arg-type]

        monkeypatch.setattr(audit, "_doc", counted)
        mine, fault = audit.timeline(ws, dispatch=dispatch_id, limit=100)
    assert fault is None
    assert [r["seq"] for r in mine] == wanted
    assert since > 20
    assert len(read) == len(entries) - since  # its first version and what came after it
