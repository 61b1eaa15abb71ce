"""`domain/messages.py`: what of a person's message reaches an agent's pane (property tests: no
control character but the newline, ever; nothing a CLI reads as a command at its start) and who may
be sent one (a table)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.domain import messages
from oms.errors import InvalidInputError

ANY_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=0x2FF, exclude_categories=["Cs"]),
    max_size=200,
)


@given(ANY_TEXT)
def test_nothing_but_text_and_newlines_is_typed(text: str) -> None:
    try:
        said = messages.clean(text)
    except InvalidInputError:
        assert not "".join(c for c in text if c.isprintable() or c == " ").strip()
        return
    assert said.strip()
    assert all(c == "\n" or not (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F) for c in said)
    assert not said.startswith(messages.COMMAND_MARKS)
    assert not said.startswith("\n")
    assert not said.endswith("\n")
    assert messages.clean(said) in (said, " " + said)  # cleaning again changes nothing


@given(ANY_TEXT)
def test_every_printable_character_is_kept_in_order(text: str) -> None:
    kept = [c for c in text if c == "\n" or not (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F)]
    try:
        said = messages.clean(text)
    except InvalidInputError:
        return
    assert said.replace("\n", "").lstrip(" ") in "".join(kept).replace("\n", "")


@pytest.mark.parametrize(
    ("text", "typed"),
    [
        ("a\r\nb\rc", "a\nb\nc"),
        ("\x1b[31mred\x1b[0m", "[31mred[0m"),
        ("/exit", " /exit"),
        ("!rm -rf ~", " !rm -rf ~"),
        ("# remember", " # remember"),
        ("\n\nhello\n\n", "hello"),
        ("\x00/goal x", " /goal x"),  # the mark is looked for after the controls are gone
    ],
)
def test_clean(text: str, typed: str) -> None:
    assert messages.clean(text) == typed


@pytest.mark.parametrize("text", ["", "\n\n", "\x1b\x07\x03", "\r\n\t"])
def test_an_empty_message_is_refused(text: str) -> None:
    with pytest.raises(InvalidInputError, match="the message is empty"):
        messages.clean(text)


def test_size() -> None:
    messages.check_size(10, 10)
    with pytest.raises(InvalidInputError, match="11 bytes, more than the 10"):
        messages.check_size(11, 10)


LIVE = {
    "dispatch_state": "acknowledged",
    "activity": "working",
    "health": "healthy",
    "session_state": "running",
    "pane_live": True,
}


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        ({"dispatch_state": "result-received"}, "its dispatch is result-received"),
        ({"dispatch_state": "resolved"}, "its dispatch is resolved"),
        ({"dispatch_state": "cancelled"}, "its dispatch is cancelled"),
        ({"activity": "done"}, "it is done"),
        ({"activity": "blocked"}, "it is blocked"),
        ({"health": "parked"}, "it is parked"),
        ({"health": "stopped"}, "its health is stopped"),
        ({"session_state": None}, "it has no session yet"),
        ({"session_state": "parked"}, "its session is parked"),
        ({"session_state": "stopped"}, "its session is stopped"),
        ({"pane_live": False}, "its pane is not live"),
    ],
)
def test_who_may_be_sent_a_message(change: dict[str, object], refusal: str) -> None:
    messages.check_send(**LIVE)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=f"worker cannot be sent a message: {refusal}"):
        messages.check_send(**{**LIVE, **change})  # type: ignore[arg-type]
    for fine in ({"dispatch_state": "accepted"}, {"activity": "idle"}, {"health": "stalled"}):
        messages.check_send(**{**LIVE, **fine})  # type: ignore[arg-type]


LONE = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=["Cs"])


@given(st.lists(st.one_of(st.characters(), LONE), max_size=50).map("".join))
def test_what_is_typed_is_utf8(text: str) -> None:
    """An argument's bytes that were not UTF-8 arrive as lone surrogates: refused, never typed."""
    try:
        said = messages.clean(text)
    except InvalidInputError:
        return
    said.encode("utf-8")
