"""Identifier grammars (case 21: trailing newline), stable ids, digests."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from oms.canonical import (
    check,
    check_uuid,
    digest,
    digest_bytes,
    equal,
    new_uuid,
    operation_nonce,
    stable_id,
)
from oms.canonical.ids import OPAQUE_ID, PREFIX
from oms.errors import InvalidIdError, InvalidInputError
from oms.schemas import is_valid, load_schema

id_chars = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=130)
parts = st.lists(
    st.one_of(st.text(max_size=20), st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)),
    max_size=4,
)


def grammar_accepts(value: str) -> bool:
    """The id grammar in words, checked character by character (not a copy of the code's regular
    expression): 1-128 characters of lowercase ASCII letters, digits and hyphens, starting and
    ending with a letter or a digit."""
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789-")
    return (
        1 <= len(value) <= 128
        and all(c in allowed for c in value)
        and "-" not in (value[0], value[-1])
    )


@given(id_chars | st.text(max_size=130))
def test_check_accepts_exactly_the_grammar(value: str) -> None:
    expected = grammar_accepts(value)
    try:
        check(value, "id")
    except InvalidIdError:
        assert not expected
    else:
        assert expected


@pytest.mark.parametrize(
    "bad",
    ["", "-a", "a-", "A", "a_b", "a.b", "a/b", "..", "a\x00", "a\n", "\na", "é", "a" * 129, " a"],
)
def test_bad_ids_rejected(bad: str) -> None:
    with pytest.raises(InvalidIdError):
        check(bad, "ticket id")


def test_case21_a_trailing_newline_is_refused_by_the_schema_and_the_code() -> None:
    schema = load_schema("defs")["$defs"]["opaque_id"]
    assert Draft202012Validator(schema).is_valid("abc\n"), (
        "jsonschema's $ (Python's) accepts a trailing newline"
    )
    assert not is_valid("defs#/$defs/opaque_id", "abc\n")  # oms reads `$` as ECMA-262 does
    with pytest.raises(InvalidIdError):
        check("abc\n", "ticket id")


def test_non_text_ids_rejected() -> None:
    with pytest.raises(InvalidIdError, match="text"):
        check(5, "id")


@given(parts)
def test_stable_id_is_deterministic_and_well_formed(items: list[str | int]) -> None:
    first = stable_id("dsp", *items)
    assert first == stable_id("dsp", *items)
    assert OPAQUE_ID.fullmatch(first)
    assert first.startswith("dsp-")


@given(
    st.sets(
        st.tuples(st.sampled_from(["a", "ab", "wkr-park"]), parts.map(tuple)),
        min_size=2,
        max_size=40,
    )
)
def test_stable_ids_do_not_collide(inputs: set[tuple[str, tuple[str | int, ...]]]) -> None:
    ids = {stable_id(prefix, *items) for prefix, items in inputs}
    assert len(ids) == len(inputs)


def test_stable_id_parts_are_unambiguous() -> None:
    assert stable_id("p", "ab", "c") != stable_id("p", "a", "bc")
    assert stable_id("p", "1") != stable_id("p", 1)
    assert stable_id("p") != stable_id("p", "")


@pytest.mark.parametrize("prefix", ["", "P", "1a", "a_", "a-", "a" * 30])
def test_bad_prefixes_rejected(prefix: str) -> None:
    assert PREFIX.fullmatch(prefix) is None
    with pytest.raises(InvalidIdError):
        stable_id(prefix, "x")


def test_stable_id_parts_must_be_text_or_int() -> None:
    with pytest.raises(InvalidIdError):
        stable_id("p", True)
    with pytest.raises(InvalidIdError):
        stable_id("p", 1.5)  # type: ignore[arg-type]


def test_uuids() -> None:
    value = new_uuid()
    assert check_uuid(value, "session id") == value
    with pytest.raises(InvalidIdError):
        check_uuid(value.upper(), "session id")


@given(st.binary(max_size=64))
def test_digests_are_domain_separated(data: bytes) -> None:
    assert digest_bytes("policy", data) != digest_bytes("intent", data)
    assert len(digest_bytes("policy", data)) == 64


def test_digest_domain_grammar() -> None:
    with pytest.raises(InvalidInputError):
        digest("Bad Domain", {})
    assert digest("policy", {"b": 1, "a": 2}) == digest("policy", {"a": 2, "b": 1})


def test_operation_nonce_binds_event_and_consumer() -> None:
    assert operation_nonce("e1", "c1") == operation_nonce("e1", "c1")
    assert operation_nonce("e1", "c1") != operation_nonce("e1", "c2")
    assert operation_nonce("e1", "c1") != operation_nonce("c1", "e1")
    assert equal(operation_nonce("e1", "c1"), operation_nonce("e1", "c1"))


@given(st.binary(max_size=4096))
def test_the_builtin_sha256_equals_hashlib(data: bytes) -> None:
    """canonical.digest uses CPython's `_sha256` (no OpenSSL load on hook paths): same digests."""
    import hashlib
    import importlib

    module = importlib.import_module(
        "oms.canonical.digest"
    )  # the module (the package re-exports a function)

    assert module.sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert vars(module)["_sha256"].__module__ in ("_sha256", "_hashlib")


@given(st.text(max_size=80), st.text(max_size=80))
def test_constant_time_equal_is_equality(a: str, b: str) -> None:
    from oms.canonical import equal

    assert equal(a, b) == (a == b)
    assert equal(a, a)
