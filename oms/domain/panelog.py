"""A worker's pane log line as a person's terminal shows it (`oms worker log`): its time apart,
and every byte that could steer a terminal escaped. The log's lines carry what an agent said (a
hook's note, an error's text): a hostile agent's bytes must reach the person as text, never as an
escape sequence, a bidi override or a line break."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_STAMP = re.compile(
    r"(?P<at>[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?Z) ?"
)


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a pane log: when it was written (None: it names no time) and what it says."""

    at: str | None
    text: str


def escaped(text: str) -> str:
    """`text` with every control, format, surrogate, private or unassigned character escaped
    (`\\x1b`, `\\u202e`) and a backslash doubled: what is printed is what was written, and nothing
    of it is a terminal control."""
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif 0xDC80 <= ord(char) <= 0xDCFF:  # a byte that is not UTF-8 (surrogateescape)
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif unicodedata.category(char)[0] in "CZ" and char != " ":
            out.append(char.encode("unicode_escape").decode("ascii"))
        else:
            out.append(char)
    return "".join(out)


def parse(raw: bytes) -> Line:
    """A line of the log (without its newline), undecodable bytes shown as `\\xNN`."""
    text = raw.decode("utf-8", "surrogateescape")
    found = _STAMP.match(text)
    if found is None:
        return Line(None, escaped(text))
    return Line(found.group("at"), escaped(text[found.end() :]))
