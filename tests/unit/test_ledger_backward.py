"""The ledger read from its end (`ledger.Backward`, issue 26 item 4: `oms audit log --limit N`
costs O(N)): it yields what `read_chain` reads, newest first, whatever the piece size; it finds a
rewritten or unlinked line in what it reads; and it reads no more of a long ledger than the entries
asked for take."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oms.canonical import now
from oms.fsio import Root
from oms.fsio.root import LogReader
from oms.store import ledger
from oms.store.stateroot import StateRoot


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StateRoot]:
    made, _ = StateRoot.create(str(tmp_path_factory.mktemp("backward") / "state"), now())
    try:
        yield made
    finally:
        made.close()


def _write(root: Root, entries: int, *, broken: int | None = None) -> list[bytes]:
    """A ledger of the new root's first entry and `entries` journal entries; `broken`: that line's
    MAC rewritten (0-based). Its lines."""
    key = ledger.line_key(root)
    first = ledger.line_of(
        1, ledger.GENESIS, "2026-12-01T00:00:00.000Z", "state", ledger.META, b"{}", key
    )
    lines, prev = [first], ledger.hash_of(first)
    for seq in range(2, entries + 2):
        rel, data = f"journals/bench/{seq}.json", b'{"n":%d}' % seq
        line = ledger.line_of(seq, prev, "2026-12-01T00:00:00.000Z", "journal", rel, data, key)
        lines.append(line)
        prev = ledger.hash_of(line)
    if broken is not None:
        doc = json.loads(lines[broken])
        doc["mac"] = "0" * 64
        lines[broken] = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    root.mkdirs("ledger")
    if root.exists(ledger.LOG):
        root.unlink(ledger.LOG)
    root.publish(ledger.LOG, b"".join(lines))
    return lines


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(entries=st.integers(0, 40), step=st.integers(1, 700), data=st.data())
def test_it_reads_what_read_chain_reads_newest_first(
    state: StateRoot, entries: int, step: int, data: st.DataObject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger, "READ_BACK_STEP", step)
    root = state.root
    key = ledger.line_key(root)
    lines = _write(root, entries)
    back = ledger.Backward(root, key)
    assert list(reversed(list(back.entries()))) == ledger.read_chain(root, key).entries
    assert back.fault is None
    broken = data.draw(st.integers(0, len(lines) - 1))
    _write(root, entries, broken=broken)
    back = ledger.Backward(root, key)
    seen = [e.seq for e in back.entries()]
    assert seen == list(range(len(lines), broken + 1, -1))  # up to the line it cannot take
    assert back.fault is not None
    assert "ledger line" in back.fault


def test_an_unlinked_line_and_an_unfinished_last_line_are_said(state: StateRoot) -> None:
    root = state.root
    key = ledger.line_key(root)
    lines = _write(root, 6)
    root.unlink(ledger.LOG)
    root.publish(ledger.LOG, b"".join(lines[:3] + lines[4:]))  # one entry dropped
    back = ledger.Backward(root, key)
    assert [e.seq for e in back.entries()] == [7, 6, 5]
    assert back.fault is not None
    assert "does not link" in back.fault
    root.unlink(ledger.LOG)
    root.publish(ledger.LOG, b"".join(lines) + lines[1][:40])
    back = ledger.Backward(root, key)
    assert len(list(back.entries())) == 7
    assert back.fault is not None
    assert "unfinished" in back.fault


def test_the_last_entries_of_a_long_ledger_cost_what_they_take(
    state: StateRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = state.root
    key = ledger.line_key(root)
    _write(root, 5000)
    read = [0]
    original = LogReader.read_at

    def counted(reader: LogReader, offset: int, size: int) -> bytes:
        got = original(reader, offset, size)
        read[0] += len(got)
        return got

    monkeypatch.setattr(LogReader, "read_at", counted)
    entries = ledger.Backward(root, key).entries()
    newest = [next(entries) for _ in range(5)]
    entries.close()
    assert [e.seq for e in newest] == [5001, 5000, 4999, 4998, 4997]
    assert read[0] <= 2 * ledger.READ_BACK_STEP + 8  # of a ledger of 2.3 MB
    assert Path(state.path, ledger.LOG).stat().st_size > 20 * ledger.READ_BACK_STEP
