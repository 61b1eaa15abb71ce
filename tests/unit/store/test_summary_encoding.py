"""The summary file's body, `oms-summary-v2` (`store/summary_file.py`: columnar, ADR 0043 as
amended by `etcdspeed`): what `encode` writes `decode` reads back exactly, whatever the records; a
v1 body is still read (and marked to be written again); a body authenticated with the state key but
not a summary is refused whole, column by column — the checks v1 made entry by entry."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oms.canonical import Json
from oms.errors import IntegrityError
from oms.store import summary_file
from oms.store.records import Record
from oms.store.summary_file import Cache, Entry

KIND = "ticket"
IDS = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,6})?", fullmatch=True)
TEXT = st.text(max_size=8)
SHA = st.text("0123456789abcdef", min_size=64, max_size=64)
SAFE = st.integers(-(2**53) + 1, 2**53 - 1)
JSON = st.recursive(
    st.none() | st.booleans() | SAFE | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
PAYLOADS = st.dictionaries(st.sampled_from(["a", "b", "c", "title", "reason", "x-y"]), JSON)


@st.composite
def records(draw: st.DrawFn, rid: str) -> Record:
    return Record(
        KIND,
        rid,
        draw(st.integers(0, 2**53 - 1)),
        draw(st.sampled_from(["open", "held", "done", "é"])),
        draw(st.none() | st.integers(0, 2**53 - 1)),
        draw(TEXT),
        draw(TEXT),
        draw(TEXT),
        draw(st.none() | SHA),
        draw(PAYLOADS),
        draw(SHA),
    )


@st.composite
def caches(draw: st.DrawFn) -> Cache:
    ids = draw(st.lists(IDS, unique=True, max_size=12))
    cache = Cache(
        kind_mtime_ns=draw(SAFE),
        seen_ns=draw(SAFE),
        origin=draw(st.sampled_from(["", "7:/oms/a/", "123:/x/"])),
    )
    for rid in draw(st.lists(IDS, unique=True, max_size=3)):
        cache.errors[rid] = IntegrityError(f"{KIND} {rid} could not be read")
    for rid in ids:
        cache.entries[rid] = Entry(draw(SAFE), draw(SAFE), draw(records(rid)))
    return cache


@settings(max_examples=300, deadline=None)
@given(caches())
def test_what_is_encoded_is_decoded_exactly(cache: Cache) -> None:
    back = summary_file.decode(summary_file.encode(cache, KIND), KIND)
    assert back.entries == cache.entries
    assert [list(r.record.payload) for r in back.entries.values()] == [
        list(r.record.payload) for r in cache.entries.values()
    ]  # the payloads' key order too (a record's bytes are canonical; its dict keeps their order)
    assert (back.kind_mtime_ns, back.seen_ns, back.origin) == (
        cache.kind_mtime_ns,
        cache.seen_ns,
        cache.origin,
    )
    assert sorted(back.errors) == sorted(cache.errors)
    assert back.unsaved == 0


@settings(max_examples=100, deadline=None)
@given(caches())
def test_a_v1_body_is_read_and_written_again(cache: Cache) -> None:
    """A summary written before v2 is still served (no full read after an upgrade); the next
    refresh that may save writes it as v2 (`unsaved`)."""
    v1 = {
        "format": "oms-summary-v1",
        "kind": KIND,
        "kind_mtime_ns": cache.kind_mtime_ns,
        "seen_ns": cache.seen_ns,
        "origin": cache.origin,
        "errors": sorted(cache.errors),
        "entries": [
            [rid, e.mtime_ns, e.seen_ns, e.record.sha256, e.record.to_json()]
            for rid, e in cache.entries.items()
        ],
    }
    back = summary_file.decode(json.dumps(v1).encode(), KIND)
    assert back.entries == cache.entries
    assert back.unsaved == len(cache.entries)


def _one() -> dict[str, object]:
    cache = Cache(kind_mtime_ns=5, seen_ns=9, origin="1:/oms/")
    for n, keys in enumerate((("a", "b"), ("a", "b"), ("c",))):
        payload: dict[str, Json] = dict.fromkeys(keys, n)
        record = Record(KIND, f"tkt-{n}", n, "open", None, "op", "me", "t", None, payload, "0" * 64)
        cache.entries[f"tkt-{n}"] = Entry(n, n, record)
    doc: dict[str, object] = json.loads(summary_file.encode(cache, KIND))
    return doc


def _set(column: str, index: int, value: object) -> Callable[[dict[str, object]], None]:
    def edit(doc: dict[str, object]) -> None:
        doc[column][index] = value  # type: ignore[index]

    return edit


DAMAGE: dict[str, Callable[[dict[str, object]], object]] = {
    "an id that is not one": _set("ids", 1, "tkt-\x1b]0;pwned\x07"),
    "an id that is not text": _set("ids", 1, 7),
    "a version that is a bool": _set("versions", 1, True),
    "a version that is text": _set("versions", 1, "1"),
    "a state that is not text": _set("states", 0, None),
    "an expected version that is text": _set("expected", 2, "0"),
    "a previous digest that is a number": _set("previous", 2, 3),
    "a time that is not an integer": _set("mtimes", 0, 1.5),
    "a column short of an entry": lambda doc: doc["actors"].pop(),  # type: ignore[attr-defined]
    "a column that is not a list": lambda doc: doc.update(states={"tkt-0": "open"}),
    "a column missing": lambda doc: doc.pop("observed"),
    "a shape past the last": _set("shapes_of", 2, 2),
    "a negative shape": _set("shapes_of", 2, -1),
    "a shape that is a bool": _set("shapes_of", 2, False),
    "values fewer than the keys": _set("values", 0, [0]),
    "values more than the keys": _set("values", 2, [2, 2]),
    "values that are not a list": _set("values", 2, {"c": 2}),
    "a payload key twice": _set("shapes", 0, ["a", "a"]),
    "a payload key not ASCII": _set("shapes", 1, ["é"]),
    "a payload key not text": _set("shapes", 1, [1]),
    "another kind": lambda doc: doc.update(kind="worker"),
    "another format": lambda doc: doc.update(format="oms-summary-v3"),
}


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
def test_a_body_that_is_not_a_summary_is_refused_whole(
    damage: Callable[[dict[str, object]], object],
) -> None:
    """Even authenticated (a key holder's forgery, a bug of a writer): `load` then ignores the file
    and everything is read again; `oms store verify` names it."""
    doc = _one()
    summary_file.decode(json.dumps(doc).encode(), KIND)  # whole, it is read
    damage(doc)
    with pytest.raises((ValueError, TypeError, KeyError)):
        summary_file.decode(json.dumps(doc).encode(), KIND)
