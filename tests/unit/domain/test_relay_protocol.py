"""The relay protocol (`domain/relay.py`): headers round-trip, any prefix is "incomplete" or a clear
error, never a crash, and nothing beyond the caps is accepted."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.domain.relay import (
    DOORS,
    HEADER_CAP,
    MAGIC,
    MAX_WORDS,
    WORD_CAP,
    Header,
    RelayError,
    encode_answer,
    encode_header,
    options,
    parse_answer,
    parse_header,
)

words = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"), max_size=60)
argvs = st.lists(words, max_size=MAX_WORDS)


@given(st.sampled_from(DOORS), argvs, st.binary(max_size=200))
def test_a_header_round_trips_and_says_where_the_body_starts(
    door: str, argv: list[str], body: bytes
) -> None:
    frame = encode_header(door, argv)
    parsed = parse_header(frame + body)
    assert parsed == Header(door, tuple(argv), len(frame))
    assert (frame + body)[parsed.size :] == body


@given(st.sampled_from(DOORS), argvs)
def test_every_proper_prefix_is_incomplete(door: str, argv: list[str]) -> None:
    frame = encode_header(door, argv)
    for cut in range(len(frame)):
        assert parse_header(frame[:cut]) is None


@given(st.binary(max_size=300))
def test_arbitrary_bytes_are_a_header_incomplete_or_a_relay_error(data: bytes) -> None:
    try:
        parsed = parse_header(data)
    except RelayError:
        return
    if parsed is not None:
        assert parsed.door in DOORS
        assert len(parsed.argv) <= MAX_WORDS
        assert parsed.size <= len(data)


@given(st.binary(max_size=300))
def test_anything_after_the_magic_is_a_header_incomplete_or_a_relay_error(data: bytes) -> None:
    try:
        parsed = parse_header(MAGIC + data)
    except RelayError:
        return
    assert parsed is None or parsed.door in DOORS


@pytest.mark.parametrize(
    "frame",
    [
        b"GET / HTTP/1.1\r\n",
        MAGIC + b"shell\x000\x00",
        MAGIC + b"hook\x00x\x00",
        MAGIC + b"hook\x00999\x00",
        MAGIC + b"hook\x0033\x00",
        MAGIC + b"hook\x001\x00" + b"a" * (WORD_CAP + 1) + b"\x00",
        MAGIC + b"hook\x001\x00\xff\xfe\x00",
    ],
)
def test_bad_headers_are_refused(frame: bytes) -> None:
    with pytest.raises(RelayError):
        parse_header(frame)


def test_a_header_without_its_end_is_refused_past_the_cap() -> None:
    endless = MAGIC + b"hook\x0032\x00" + (b"a" * 1000 + b"\x00") * 4 + b"b" * HEADER_CAP
    with pytest.raises(RelayError):
        parse_header(endless)


def test_the_relay_refuses_what_the_broker_would() -> None:
    with pytest.raises(RelayError):
        encode_header("shell", [])
    with pytest.raises(RelayError):
        encode_header("hook", ["x"] * (MAX_WORDS + 1))
    with pytest.raises(RelayError):
        encode_header("hook", ["a\x00b"])
    with pytest.raises(RelayError):
        encode_header("hook", ["a" * (WORD_CAP + 1)])


@given(st.binary(max_size=200), words)
def test_answers_round_trip_with_one_stderr_line(out: bytes, err: str) -> None:
    got_out, got_err = parse_answer(encode_answer(out, err))
    assert got_out == out
    assert "\n" not in got_err
    assert got_err == " ".join(err.split())[:300]


def test_an_answer_without_its_separator_is_truncated() -> None:
    with pytest.raises(RelayError):
        parse_answer(b"{}")


def test_options_are_exact() -> None:
    assert options(("--a", "1", "--b", ""), ("--a", "--b")) == {"--a": "1", "--b": ""}
    for bad in (
        ("--a", "1"),
        ("--a", "1", "--a", "2"),
        ("--a", "1", "--b"),
        ("--a", "1", "--b", "2", "--c", "3"),
    ):
        with pytest.raises(RelayError):
            options(bad, ("--a", "--b"))
