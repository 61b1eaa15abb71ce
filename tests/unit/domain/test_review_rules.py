"""Review before merge's pure parts (`oms/domain/review.py`): the comments parser (property tested:
what it reads back is what was written; every bound and every control character refused, naming
the line), the terminal escaper (nothing a terminal acts on gets through, streamed or whole) and
what `oms web` keeps of a diff (`Kept`: the escaped text's whole lines up to its bound)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from oms.domain import review
from oms.domain.review import (
    Comment,
    Escaper,
    Kept,
    escape_bytes,
    parse_comments,
    render_comments,
)
from oms.errors import InvalidInputError
from oms.limits import LIMITS

SAFE = st.characters(
    blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
    blacklist_characters="\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c",
)
TEXT = st.text(SAFE, min_size=1, max_size=80).filter(lambda t: t.strip() == t and t != "")
PATH = st.text(SAFE, min_size=1, max_size=40).filter(
    lambda p: ":" not in p and p.strip() == p and p and not p.startswith("#")
)
COMMENTS = st.lists(
    st.builds(Comment, TEXT, PATH, st.integers(1, 10**6)),
    min_size=1,
    max_size=20,
)


@given(COMMENTS)
def test_comments_read_back_as_they_were_written(comments: list[Comment]) -> None:
    assert parse_comments(render_comments(tuple(comments))) == tuple(comments)


@given(
    COMMENTS, st.integers(0, 19), st.sampled_from(["\x1b", "\x07", "\x9b", "\u202e", "\r", "\x00"])
)
def test_a_control_character_anywhere_is_refused_naming_its_line(
    comments: list[Comment], at: int, bad: str
) -> None:
    i = at % len(comments)
    c = comments[i]
    hostile = [*comments[:i], Comment(c.text + bad + "x", c.path, c.line), *comments[i + 1 :]]
    data = render_comments(tuple(hostile))  # (a CRLF's \r ends a line; one inside is refused)
    with pytest.raises(InvalidInputError, match=f"line {i + 1}"):
        parse_comments(data)


@given(st.binary(max_size=400))
def test_any_bytes_parse_or_are_refused_in_one_line(data: bytes) -> None:
    try:
        found = parse_comments(data)
    except InvalidInputError as exc:
        assert "\n" not in exc.message
        return
    for c in found:
        assert c.path is not None
        assert c.line is not None
        assert c.line >= 1
        assert not any(review.unsafe_char(ch) and ch != "\t" for ch in c.text + c.path)


def test_lines_that_are_not_comments_are_refused() -> None:
    for data, why in (
        (b"no colon here\n", "line 1"),
        (b"a.rs:1: ok\na.rs:x: not a line\n", "line 2"),
        (b"a.rs:0: line zero\n", "line 1"),
        (b"a.rs:3:   \n", "line 1: a comment needs text"),
        (b"\n# only a remark\n", "holds no"),
        (b"\xff\xfe", "not UTF-8"),
    ):
        with pytest.raises(InvalidInputError, match=why):
            parse_comments(data)
    assert parse_comments(b"# remark\r\n\r\nsrc/a.rs:12:   tighten this\r\n") == (
        Comment("tighten this", "src/a.rs", 12),
    )


def test_the_bounds_hold() -> None:
    many = b"".join(b"a.rs:%d: x\n" % (i + 1) for i in range(LIMITS.review_comments + 1))
    with pytest.raises(InvalidInputError, match=f"more than {LIMITS.review_comments}"):
        parse_comments(many)
    with pytest.raises(InvalidInputError, match="bytes"):
        parse_comments(b"a.rs:1: " + b"x" * LIMITS.review_comments_bytes)
    with pytest.raises(InvalidInputError, match="characters"):
        parse_comments(b"a.rs:1: " + b"x" * (LIMITS.review_comment_chars + 1))
    with pytest.raises(InvalidInputError, match="--comment"):
        review.comment("fine\nthen \x1b]52;c;aGk=\x07")
    assert review.comment("  whole result: more tests  ").text == "whole result: more tests"
    carried = review.changes_requested(
        dispatch_id="dsp-1",
        commit="a" * 40,
        summary="s" * (LIMITS.review_summary_chars + 5),
        person="Ada",
        comments=(Comment("x"),),
    )
    assert carried["summary_truncated"] is True
    assert len(str(carried["previous_summary"])) == LIMITS.review_summary_chars


UNSAFE_BYTES = {*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F}


def _no_unsafe(out: bytes) -> None:
    assert not (set(out) & UNSAFE_BYTES), out
    text = out.decode("utf-8")  # always UTF-8
    assert not any(review.unsafe_char(c) and c not in "\t\n" for c in text)


@given(st.lists(st.binary(max_size=300), max_size=20))
def test_streamed_output_never_carries_a_control_sequence(chunks: list[bytes]) -> None:
    e = Escaper()
    out = b"".join(e.feed(c) for c in chunks) + e.end()
    _no_unsafe(out)
    assert out == escape_bytes(b"".join(chunks))  # streaming changes nothing but when it is seen


@given(st.text(SAFE, max_size=200))
def test_text_without_controls_is_shown_as_it_is(text: str) -> None:
    assert escape_bytes(text.encode()) == text.encode()


def test_terminal_attacks_are_shown_not_acted_on() -> None:
    hostile = "+\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u202eevil\x9b31m\r\n".encode() + b"\xc2\x9b0m\n"
    out = escape_bytes(hostile)
    assert out == (b"+\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\u202eevil\\x9b31m\\x0d\n\\x9b0m\n")
    long = b"x" * (LIMITS.review_line_bytes + 10) + "é".encode() * 5
    e = Escaper()
    first = e.feed(long)
    assert first
    assert len(first) <= LIMITS.review_line_bytes
    assert first + e.end() == long


LINES = st.lists(st.binary(max_size=120), max_size=40).map(b"\n".join)


def _fed(kept: Kept, data: bytes, sizes: list[int]) -> str:
    """`data` fed in pieces of `sizes` (then the rest), as a writer does: until it says no more."""
    at = 0
    for size in [*sizes, len(data)]:
        if at >= len(data) or not kept.feed(data[at : at + size]):
            break
        at += size
    return kept.end()


@given(LINES, st.lists(st.integers(1, 200), max_size=10), st.integers(1, 2000))
@example(b"\xc2\xa0", [], 1)  # a bound smaller than the first character: nothing of it is kept
def test_what_is_kept_is_the_escaped_text_up_to_a_line_within_its_bound(
    data: bytes, sizes: list[int], limit: int
) -> None:
    whole = escape_bytes(data)
    kept = Kept(limit)
    out = _fed(kept, data, sizes).encode()
    if len(whole) <= limit:
        assert (out, kept.truncated) == (whole, False)
        return
    assert kept.truncated
    assert len(out) <= limit
    cut = whole.rfind(b"\n", 0, limit) + 1
    if cut:
        assert out == whole[:cut]  # every whole line that fits, and not a byte more
    else:  # one line longer than the bound: cut at a character, at most 3 bytes short of it
        assert whole.startswith(out)
        assert len(out) >= limit - 3
        out.decode("utf-8")  # never half a character
    _no_unsafe(out)


@given(LINES, st.lists(st.integers(1, 200), max_size=10), st.integers(1, 2000))
def test_a_stat_keeps_its_summary_line_past_its_bound(
    data: bytes, sizes: list[int], limit: int
) -> None:
    whole = escape_bytes(data)
    kept, alone = Kept(limit, last=True), Kept(limit)
    out = _fed(kept, data, sizes).encode()
    head = _fed(alone, data, sizes).encode()  # what is kept before the summary: the same
    assert kept.truncated == alone.truncated
    last = whole.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    if kept.truncated and last:
        assert out == head + b"...\n" + last + b"\n"
    else:
        assert out == head
