"""GitHub repository names (issue 10, case 6): the code, the schema and GitHub's written rules
agree.

The oracle is the rules as GitHub states them, checked character by character, not a regular
expression."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from oms.domain.github import check_repository, repository_problem
from oms.errors import InvalidInputError
from oms.schemas import load_schema

ALNUM = set(string.ascii_letters + string.digits)


def github_accepts(slug: str) -> bool:
    """GitHub's rules, read as written (docs: repository limits; account names)."""
    if slug.count("/") != 1:
        return False
    owner, name = slug.split("/")
    owner_ok = (
        1 <= len(owner) <= 39
        and all(c in ALNUM or c == "-" for c in owner)
        and owner[0] != "-"
        and owner[-1] != "-"
        and "--" not in owner
    )
    name_ok = (
        1 <= len(name) <= 100
        and all(c in ALNUM or c in "._-" for c in name)
        and name not in (".", "..")
        and not name.lower().endswith(".git")
        and not name.lower().endswith(".wiki")
    )
    return owner_ok and name_ok


slugs = st.text(alphabet="aZ9-._/ é\n", max_size=12) | st.builds(
    lambda o, n: f"{o}/{n}",
    st.text(alphabet="ab-", min_size=0, max_size=42),
    st.sampled_from(
        [".", "..", "x.git", "X.GIT", "y.wiki", ".github", "-", "_", "a" * 100, "a" * 101]
    ),
)
SCHEMA = Draft202012Validator(load_schema("defs")["$defs"]["repository"])


@given(slugs)
def test_the_code_follows_githubs_rules(slug: str) -> None:
    assert (repository_problem(slug) is None) == github_accepts(slug)


@given(slugs.filter(lambda s: "\n" not in s))
def test_the_schema_agrees_with_the_code(slug: str) -> None:
    """(A trailing newline is the schema pattern's known gap, closed by the code: case 21.)"""
    assert SCHEMA.is_valid(slug) == (repository_problem(slug) is None)


@pytest.mark.parametrize(
    "slug", ["acme/..", "acme/.", "acme/x.git", "acme/x.wiki", "-a/x", "a-/x", "a--b/x", "a/x\n"]
)
def test_names_github_refuses_are_refused_with_the_rule(slug: str) -> None:
    with pytest.raises(InvalidInputError, match="is not a GitHub repository name: "):
        check_repository(slug)


@pytest.mark.parametrize(
    "slug", ["acme/.github", "a-b/x_y.z", "A1/-", "a/" + "b" * 100, "a" * 39 + "/x"]
)
def test_odd_but_valid_names_pass(slug: str) -> None:
    assert check_repository(slug) == slug
