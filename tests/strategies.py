"""Hypothesis strategies for oms values."""

from __future__ import annotations

from hypothesis import strategies as st

from oms.canonical.strict_json import MAX_SAFE_INT

ascii_keys = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=12)
safe_ints = st.integers(min_value=-MAX_SAFE_INT, max_value=MAX_SAFE_INT)
# Any Unicode scalar value (no lone surrogates: they are outside the profile).
texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)

profile_values = st.recursive(
    st.none() | st.booleans() | safe_ints | texts,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(ascii_keys, children, max_size=5)
    ),
    max_leaves=30,
)
