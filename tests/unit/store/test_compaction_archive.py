"""Compaction archives (`oms/store/compaction.py`): what is encoded decodes to the same members, and
no input — arbitrary bytes, a zlib bomb, members no archive holds, a name that disagrees — does
anything but raise IntegrityError, bounded."""

from __future__ import annotations

import json
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.errors import IntegrityError
from oms.limits import LIMITS
from oms.store import compaction

IDS = st.from_regex(r"[a-z0-9](?:[a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True)
MEMBERS = st.one_of(
    st.builds(
        lambda k, i, v: f"records/{k}/{i}/{v}.json",
        st.sampled_from(compaction.RECORD_KINDS),
        IDS,
        st.integers(0, 999),
    ),
    st.builds(lambda h: f"evidence/{h}.json", st.from_regex(r"[0-9a-f]{64}", fullmatch=True)),
    st.builds(lambda i: f"events/{i}.json", IDS),
)


@given(IDS, st.dictionaries(MEMBERS, st.binary(max_size=300), max_size=12))
def test_an_archive_decodes_to_what_was_encoded(ticket_id: str, files: dict[str, bytes]) -> None:
    data = compaction.encode(ticket_id, "2026-12-01T00:00:00.000Z", files)
    archive = compaction.decode(data, compaction.archive_path(ticket_id))
    assert archive.ticket_id == ticket_id
    assert archive.files == files
    assert compaction.encode(ticket_id, "2026-12-01T00:00:00.000Z", files) == data  # deterministic


@given(st.binary(max_size=2000))
def test_arbitrary_bytes_are_refused_with_one_error(data: bytes) -> None:
    with pytest.raises(IntegrityError):
        compaction.decode(data, "compacted/tkt-1.json.z")


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda c: st.lists(c) | st.dictionaries(st.text(max_size=8), c),
        max_leaves=30,
    )
)
def test_any_json_that_is_not_an_archive_is_refused(doc: object) -> None:
    with pytest.raises(IntegrityError):
        compaction.decode(zlib.compress(json.dumps(doc).encode()), "compacted/tkt-1.json.z")


def test_a_zlib_bomb_and_deep_nesting_are_refused_bounded() -> None:
    bomb = zlib.compress(b" " * (LIMITS.archive_bytes + 1), 9)
    with pytest.raises(IntegrityError, match="larger than the limit"):
        compaction.decode(bomb, "compacted/tkt-1.json.z")
    with pytest.raises(IntegrityError):
        compaction.decode(zlib.compress(b"[" * 100_000), "compacted/tkt-1.json.z")


@pytest.mark.parametrize(
    "path",
    ["records/ticket/tkt-1/0.json", "../keys/state.ed25519", "outbox/c/e.receipt.json",
     "records/dispatch/../../keys/0.json", "ledger/log",
     "events/x/../../keys.json", "evidence/abc.json", "compacted/tkt-2.json.z",
     "records/dispatch/d-1/ops/x.json"],
)  # fmt: skip
def test_a_member_no_archive_holds_is_refused(path: str) -> None:
    assert not compaction.member(path)
    with pytest.raises(IntegrityError):
        compaction.encode("tkt-1", "2026-12-01T00:00:00.000Z", {path: b"x"})
    forged = {
        "format": compaction.FORMAT,
        "ticket_id": "tkt-1",
        "ended_at": "x",
        "files": {path: "eA=="},
    }
    with pytest.raises(IntegrityError, match="no archive holds"):
        compaction.decode(zlib.compress(json.dumps(forged).encode()), "compacted/tkt-1.json.z")


def test_an_archive_named_for_another_ticket_is_refused() -> None:
    data = compaction.encode("tkt-1", "2026-12-01T00:00:00.000Z", {})
    with pytest.raises(IntegrityError, match="not the one its name says"):
        compaction.decode(data, "compacted/tkt-2.json.z")
