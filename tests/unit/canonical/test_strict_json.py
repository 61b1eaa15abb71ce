"""Canonical JSON: equal to RFC 8785 on the record profile, round-trips, and rejects the rest."""

from __future__ import annotations

import json

import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import JsonObject, dumps, loads, loads_canonical, loads_object
from oms.canonical.strict_json import MAX_SAFE_INT, check_profile, loads_foreign, loads_message
from oms.errors import CanonicalJsonError
from tests.strategies import profile_values, safe_ints, texts


@given(profile_values)
def test_canonical_bytes_equal_rfc8785(value: object) -> None:
    assert dumps(value) == rfc8785.dumps(value)  # type: ignore[arg-type]


@given(profile_values)
def test_parse_dump_round_trip(value: object) -> None:
    data = dumps(value)
    assert loads(data) == value
    assert loads_canonical(data) == value
    assert dumps(loads(data)) == data


@given(profile_values)
def test_pretty_json_parses_but_is_not_canonical_unless_identical(value: object) -> None:
    pretty = json.dumps(value, indent=2, ensure_ascii=True).encode()
    assert loads(pretty) == value
    if pretty != dumps(value):
        with pytest.raises(CanonicalJsonError, match="canonical"):
            loads_canonical(pretty)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_every_float_is_rejected(number: float) -> None:
    with pytest.raises(CanonicalJsonError):
        loads(json.dumps({"x": number}).encode())
    with pytest.raises(CanonicalJsonError):
        dumps({"x": number})


@given(st.integers(min_value=MAX_SAFE_INT + 1) | st.integers(max_value=-MAX_SAFE_INT - 1))
def test_unsafe_integers_rejected(number: int) -> None:
    with pytest.raises(CanonicalJsonError, match="range"):
        loads(str(number).encode())
    with pytest.raises(CanonicalJsonError, match="range"):
        dumps([number])


@given(safe_ints)
def test_safe_integers_accepted(number: int) -> None:
    assert loads(str(number).encode()) == number


@given(st.text(alphabet=st.characters(min_codepoint=128, codec="utf-8"), min_size=1, max_size=5))
def test_non_ascii_keys_rejected(key: str) -> None:
    with pytest.raises(CanonicalJsonError, match="ASCII"):
        loads(json.dumps({key: 1}).encode())
    with pytest.raises(CanonicalJsonError, match="ASCII"):
        dumps({key: 1})


@given(texts, st.integers(), st.integers())
def test_duplicate_keys_rejected_anywhere(key: str, a: int, b: int) -> None:
    raw = '{"outer": [{"%s": %d, "%s": %d}]}' % (json.dumps(key)[1:-1], a, json.dumps(key)[1:-1], b)  # noqa: UP031
    with pytest.raises(CanonicalJsonError):
        loads(raw.encode())


@given(st.integers(min_value=0xD800, max_value=0xDFFF))
def test_lone_surrogate_escapes_rejected(code: int) -> None:
    with pytest.raises(CanonicalJsonError, match="surrogate"):
        loads(b'{"a": "x\\u%04x"}' % code)


# ----------------------------------------------------------------- case 20: the hostile-input table
@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b'{"a":1,"a":2}', "duplicate"),
        (b'{"a":{"b":1,"b":1}}', "duplicate"),
        (b"[1.0]", "floating"),
        (b"[1e3]", "floating"),
        (b"[-0.0]", "floating"),
        (b"[NaN]", "NaN"),
        (b"[Infinity]", "Infinity"),
        (b"[-Infinity]", "Infinity"),
        (b"9007199254740992", "range"),
        (b"-9007199254740992", "range"),
        (b"1" * 5000, "range"),
        (b'"\\ud800"', "surrogate"),
        (b'["\\udfff x"]', "surrogate"),
        (b'{"\xc3\xa9":1}', "ASCII"),
        (b'{"\\u00e9":1}', "ASCII"),
        (b"\xff\xfe", "UTF-8"),
        (b'"\xed\xa0\x80"', "UTF-8"),
        (b"\xef\xbb\xbf{}", "byte-order"),
        (b"[" * 100 + b"]" * 100, "nesting"),
        (b"[" * 100000, "nesting"),
        (b"{", "invalid JSON"),
        (b"", "invalid JSON"),
        (b"[1,]", "invalid JSON"),
    ],
)
def test_case20_hostile_json_rejected(data: bytes, why: str) -> None:
    with pytest.raises(CanonicalJsonError, match=why):
        loads(data)


def test_case20_python_json_would_have_accepted_these() -> None:
    """The pitfalls are real: the standard parser keeps the last duplicate, accepts NaN and lone
    surrogates."""
    assert json.loads('{"a":1,"a":2}') == {"a": 2}
    assert json.loads("NaN") != json.loads("NaN")
    assert json.loads('"\\ud800"') == "\ud800"


def test_profile_errors_name_the_path() -> None:
    with pytest.raises(CanonicalJsonError, match=r"^\$\.a\[1\]\.b: floating"):
        check_profile({"a": [0, {"b": 1.5}]})


def test_loads_object_requires_an_object() -> None:
    with pytest.raises(CanonicalJsonError, match="object"):
        loads_object(b"[]")
    assert loads_object(b'{"a":[]}') == {"a": []}


def test_non_bytes_input_rejected() -> None:
    with pytest.raises(CanonicalJsonError, match="bytes"):
        loads("{}")  # type: ignore[arg-type]


def test_value_objects_are_never_json() -> None:
    """The store's value objects are NamedTuples (docs/adr/0010): tuples, but never written as JSON
    arrays."""
    from oms.domain.machine import Next
    from oms.limits import LIMITS

    assert dumps(["a", 1]) == dumps(("a", 1))  # a plain tuple is an array
    opened: Next[JsonObject] = Next("open", {})
    for value in (opened, LIMITS, {"nested": [opened]}):
        with pytest.raises(CanonicalJsonError, match="not a JSON value"):
            dumps(value)


# --- messages (a hook's stdin, an MCP line): any JSON, but no duplicate keys and no NaN

message_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(message_values)
def test_a_message_round_trips(value: object) -> None:
    assert loads_message(json.dumps(value).encode()) == value


@pytest.mark.parametrize(
    "data",
    [b'{"a":1,"a":2}', b'[{"k":{"x":1,"x":1}}]', b"NaN", b'{"a":Infinity}', b"[-Infinity]"],
)
def test_a_message_with_a_duplicate_key_or_a_constant_is_refused(data: bytes) -> None:
    with pytest.raises(CanonicalJsonError):
        loads_message(data)


@pytest.mark.parametrize("data", [b"\xff{}", b"{", b"[" * 100_000, b"1" * 5000])
def test_a_message_that_is_not_json_raises_the_one_error(data: bytes) -> None:
    with pytest.raises(CanonicalJsonError):
        loads_message(data)


def test_a_foreign_document_is_read_as_python_reads_it() -> None:
    assert loads_foreign(b'{"a":1.5,"a":2}') == {"a": 2}
    with pytest.raises(ValueError):
        loads_foreign(b"{")
