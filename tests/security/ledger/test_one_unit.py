"""Attack (ledger, ADR 0027): the store and the ledger were two steps. A store write published its
file, then noted it; when the note was refused (the ledger's last line forged, or the ledger
deleted) the command failed with exit 1, yet the file stayed: `oms ticket add` left a ticket that
`oms ticket list` showed, and a retry made a second one. A writer killed between its publish and its
note left a file in no entry until a person looked. Now a file is published only inside its ledger
entry's unit: a refused write publishes nothing, and a writer killed inside its unit is finished or
undone by the next writer (or `oms store sweep`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oms.canonical import JsonObject, now
from oms.fsio import Root
from oms.store import Store, ledger
from oms.store.documents import encode_document
from tests.chain import Chain
from tests.helpers import oms_command


def _roots(chain: Chain) -> tuple[str, ...]:
    return ("--state-root", str(chain.state), "--config-root", str(chain.repo))


def _snapshot(state: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(state)): p.read_bytes()
        for p in sorted(state.rglob("*"))
        if p.is_file() and not p.is_symlink() and "index" not in p.parts
    }


def _forge_last_line(chain: Chain) -> None:
    """No key: the last line's digest changed (what hiding an edit needs)."""
    log = chain.state / "ledger" / "log"
    lines = log.read_bytes().splitlines(keepends=True)
    doc = json.loads(lines[-1])
    doc["sha256"] = "0" * 64
    lines[-1] = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    log.write_bytes(b"".join(lines))


def _delete_ledger(chain: Chain) -> None:
    (chain.state / "ledger" / "log").unlink()


@pytest.mark.parametrize("damage", [_forge_last_line, _delete_ledger], ids=["forged", "deleted"])
def test_a_write_the_ledger_refuses_is_not_published(chain: Chain, damage: object) -> None:
    chain.proposed()
    damage(chain)  # type: ignore[operator]
    before = _snapshot(chain.state)
    tickets = sorted(p.name for p in (chain.state / "records" / "ticket").iterdir())
    run = oms_command().run
    for _ in range(2):  # and a retry makes no second one
        done = run("ticket", "add", "--title", "Refused", "--no-body", *_roots(chain))
        assert done.returncode == 1, (done.returncode, done.stderr)
        assert "ledger" in done.stderr
        assert "Traceback" not in done.stderr
    assert sorted(p.name for p in (chain.state / "records" / "ticket").iterdir()) == tickets
    listed = run("ticket", "list", "--json", *_roots(chain))
    assert "Refused" not in listed.stdout
    assert _snapshot(chain.state) == before, "a refused write changed the state root"


_PAYLOAD: JsonObject = {
    "dispatch_id": "dsp-killed",
    "session_id": "00000000-0000-4000-8000-000000000000",
    "session_version": 0,
}


def _event(event_id: str) -> tuple[str, bytes]:
    rel = f"events/{event_id}.json"
    doc: JsonObject = {
        "format": "oms-event-v1",
        "event_id": event_id,
        "event_type": "session-registered",
        "created_at": now(),
        "payload": _PAYLOAD,
    }
    return rel, encode_document(doc, "event", rel, 64 * 1024)


def _killed_inside_its_unit(state: Path, rel: str, data: bytes, *, published: bool) -> None:
    """What a writer SIGKILLed inside `publish_noted` leaves: its line without the newline (synced),
    and, if it died after the publish, its file."""
    log = state / "ledger" / "log"
    with Root.open(str(state)) as root:
        last = log.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        entry = ledger.parse_line(last)
        line = ledger.line_of(
            entry.seq + 1,
            ledger.hash_of(last),
            ledger.now(),
            "event",
            rel,
            data,
            ledger.line_key(root),
        )
        with log.open("ab") as out:
            out.write(line.rstrip(b"\n"))
        if published:
            root.publish(rel, data)


def _audit(state: Path) -> list[str]:
    with Store.open(str(state)) as store:
        return store.audit().problems


@pytest.mark.parametrize("published", [False, True], ids=["before-publish", "after-publish"])
@pytest.mark.parametrize("settler", ["next-writer", "sweep"])
def test_a_writer_killed_inside_its_unit_is_finished_or_undone(
    chain: Chain,
    published: bool,
    settler: str,
) -> None:
    chain.proposed()
    rel, data = _event("evt-killed")
    _killed_inside_its_unit(chain.state, rel, data, published=published)
    problems = _audit(chain.state)
    assert len(problems) == 1, problems  # one line, not a second for the file
    assert "unfinished" in problems[0]
    assert rel in problems[0]
    if settler == "next-writer":
        chain.proposed("The next writer")
    else:
        swept = oms_command().run("store", "sweep", "--json", "--state-root", str(chain.state))
        assert swept.returncode == 0, swept.stderr
        assert ("finished" if published else "cut") in swept.stdout
    assert _audit(chain.state) == []
    entries = ledger.read_chain_from(str(chain.state))
    assert (rel in {e.path for e in entries}) is published  # finished when its file was there
    assert (chain.state / rel).exists() is published


def test_an_idempotent_retry_after_a_kill_inside_its_unit_leaves_no_alarm(chain: Chain) -> None:
    chain.proposed()
    rel, data = _event("evt-retried")
    _killed_inside_its_unit(chain.state, rel, data, published=True)
    with Store.open(str(chain.state)) as store:
        doc = json.loads(data)
        event_id, event_type, at = doc["event_id"], doc["event_type"], doc["created_at"]
        _, created = store.events.create(event_id, event_type, at, _PAYLOAD)
        assert created is False  # the retry finds its file...
        assert store.audit().problems == []  # ...and its line, finished first


def test_a_long_torn_tail_does_not_stop_every_write(chain: Chain) -> None:
    """No key needed: 10 KiB without a newline after the last line. Every write had stopped ('its
    last 4096 bytes hold no whole line'), and `oms store sweep` could not help: a line oms writes is
    under 1 KiB, so the next writer (or a sweep) cuts back to the last whole line."""
    chain.proposed()
    log = chain.state / "ledger" / "log"
    with log.open("ab") as out:
        out.write(b"x" * 10_240)
    assert "torn" in _audit(chain.state)[0]
    swept = oms_command().run("store", "sweep", "--json", "--state-root", str(chain.state))
    assert swept.returncode == 0, swept.stderr
    assert "torn tail of 10240 bytes" in swept.stdout
    assert _audit(chain.state) == []
    with log.open("ab") as out:
        out.write(b"y" * 10_240)
    chain.proposed("The next writer")
    assert _audit(chain.state) == []
