"""The store's base64 (binascii strict mode, no `base64` import on the hook path) against the
stdlib's `base64.b64decode(validate=True)`: the same bytes for every text both accept, and never
more lenient."""

from __future__ import annotations

import base64
import binascii

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.errors import SignatureError
from oms.store import keys

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="


@given(st.binary(max_size=200))
def test_encode_is_the_standard_encoding_and_round_trips(data: bytes) -> None:
    text = keys.b64encode(data)
    assert text == base64.b64encode(data).decode("ascii")
    assert keys.b64decode(text, "t") == data


def _stdlib(text: str) -> bytes | None:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return None


def _ours(text: str) -> bytes | None:
    try:
        return keys.b64decode(text, "t")
    except SignatureError:
        return None


@given(
    st.one_of(
        st.text(alphabet=ALPHABET, max_size=24),
        st.text(alphabet=ALPHABET + " \n-_.\x00é", max_size=24),
    )
)
def test_decode_is_never_more_lenient_than_the_stdlib(text: str) -> None:
    ours, theirs = _ours(text), _stdlib(text)
    if theirs is None:
        assert ours is None, f"{text!r} accepted by oms, refused by base64.b64decode(validate=True)"
    elif ours is not None:
        assert ours == theirs


@given(st.binary(max_size=64))
def test_every_canonical_encoding_is_accepted(data: bytes) -> None:
    assert _ours(base64.b64encode(data).decode()) == data


@pytest.mark.parametrize(
    "text", ["QQ==QQ==", "=QQ=", "QQ=", "Q", "QQ==\n", "QQ== ", "Q-==", "QQ===", "é"]
)
def test_malformed_text_is_refused(text: str) -> None:
    with pytest.raises(SignatureError):
        keys.b64decode(text, "t")
