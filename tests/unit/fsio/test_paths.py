"""The relative path grammar accepts exactly what it documents."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.errors import PathRejectedError
from oms.fsio import split_rel

component = re.compile(r"[A-Za-z0-9._-]{1,255}")
alphabet = st.sampled_from(list("abcXYZ019._-/\x00 \n\u00e9") + ["..", "//"])


@given(st.lists(alphabet, max_size=40).map("".join))
def test_split_accepts_exactly_the_grammar(rel: str) -> None:
    parts = rel.split("/")
    expected = (
        rel != ""
        and len(parts) <= 32
        and all(component.fullmatch(p) and p not in (".", "..") for p in parts)
    )
    try:
        assert split_rel(rel) == tuple(parts)
    except PathRejectedError:
        assert not expected
    else:
        assert expected


def test_non_text_rejected() -> None:
    with pytest.raises(PathRejectedError):
        split_rel(b"a")  # type: ignore[arg-type]
