"""`errors.shown`: how a path or id appears in a message (issue 10, case 6). A property test: one
line of printable ASCII, never longer than its bound, and unambiguous (it decodes back) whenever
nothing is elided."""

from __future__ import annotations

import codecs

from hypothesis import given
from hypothesis import strategies as st

from oms.errors import shown

texts = st.text(st.characters(codec=None), max_size=300) | st.text(
    alphabet="a/\n\x1b\\é\u2028", max_size=400
)


@given(texts, st.integers(min_value=20, max_value=400))
def test_shown_is_one_bounded_printable_line(value: str, limit: int) -> None:
    out = shown(value, limit)
    assert len(out) <= limit
    assert all(" " <= c <= "~" for c in out)
    if len(value.encode("unicode_escape")) <= limit:
        assert codecs.decode(out, "unicode_escape") == value  # nothing lost, nothing ambiguous
    else:
        assert "..." in out


def test_examples() -> None:
    assert shown("/tmp/new\nline") == "/tmp/new\\nline"
    assert shown("a\\nb") == "a\\\\nb"  # a backslash in the name is not mistaken for an escape
    assert shown("\x1b[31mred") == "\\x1b[31mred"
    assert shown("x" * 1000, 21) == "x" * 9 + "..." + "x" * 9
