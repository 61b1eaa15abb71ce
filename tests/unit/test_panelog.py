"""A pane log line as `oms worker log` prints it (`domain/panelog.py`): whatever bytes an agent got
into the log, what reaches the terminal holds no control, format or separator character (no escape
sequence, no bidi override, no line break), and plain text is shown as it was written."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from oms.domain.panelog import escaped, parse


def _inert(text: str) -> bool:
    return all(ch == " " or unicodedata.category(ch)[0] not in "CZ" for ch in text)


@given(st.binary(max_size=400))
def test_no_byte_reaches_the_terminal_as_a_control(raw: bytes) -> None:
    line = parse(raw)
    assert _inert(line.text)
    assert line.at is None or _inert(line.at)


@given(st.text(max_size=200))
def test_any_text_is_inert_once_escaped(text: str) -> None:
    assert _inert(escaped(text))


@given(st.text(st.characters(categories=("L", "N", "P", "S")), max_size=200))
def test_plain_text_is_shown_as_written(text: str) -> None:
    assert escaped(text) == text.replace("\\", "\\\\")


def test_the_time_is_taken_apart_and_an_escape_shown() -> None:
    line = parse(b"2026-12-02T10:00:00.123Z attempt fenced \x1b[2J\xff")
    assert line.at == "2026-12-02T10:00:00.123Z"
    assert line.text == "attempt fenced \\x1b[2J\\xff"
