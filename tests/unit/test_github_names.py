"""The names `oms result publish` hands git and `gh` (oms/adapters/github.py, ADR 0040): whatever
text comes in, what is let through can never be read as an option or a second refspec, and a
remote URL names a GitHub repository only when it plainly does."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.adapters import github
from oms.errors import InvalidInputError


def _passed(check: object, text: str) -> str | None:
    try:
        return check(text)  # type: ignore[operator,no-any-return]
    except InvalidInputError:
        return None


@given(st.text(max_size=80))
def test_a_checked_name_is_never_an_option_or_a_refspec(text: str) -> None:
    for check in (github.check_remote, github.check_branch, github.check_repo):
        name = _passed(check, text)
        if name is None:
            continue
        assert not name.startswith("-")
        assert not any(c in name for c in ":+ \t\n\x00\\*?[~^@{")
        assert name.isascii()
    branch = _passed(github.check_branch, text)
    if branch is not None:
        assert ".." not in branch


@pytest.mark.parametrize(
    "name",
    ["--force", "-x", "a:b", "+main", "a..b", "main.lock", "a b", "ext::sh", "", "x/", "é"],
)
def test_hostile_branch_names_are_refused(name: str) -> None:
    with pytest.raises(InvalidInputError):
        github.check_branch(name)


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("https://github.com/octo/proj.git", ("github.com", "octo/proj")),
        ("git@github.com:octo/proj.git", ("github.com", "octo/proj")),
        ("ssh://git@ghe.example:22/octo/proj", ("ghe.example", "octo/proj")),
        ("/srv/git/proj.git", None),
        ("ext::sh -c evil", None),
        ("https://github.com/--hostname/x", None),
        ("https://github.com/octo/proj/extra", None),
    ],
)
def test_a_remote_url_names_a_repository_only_plainly(
    url: str, named: tuple[str, str] | None
) -> None:
    assert github.github_of(url) == named


@given(st.text(max_size=300), st.text(max_size=40), st.text(max_size=40))
def test_what_github_says_reaches_a_follow_up_only_as_safe_text(
    body: str, author: str, name: str
) -> None:
    """A reviewer's comment or a check's name becomes a follow-up's comment with no character a
    terminal acts on (ESC, C1, bidi overrides), bounded like a person's comment."""
    from oms.domain.review import unsafe_char
    from oms.limits import LIMITS
    from oms.services.finishing.publish import as_comments

    found = as_comments(
        (github.Check(name, "completed", "failure"),),
        (github.ReviewComment(author, body, "a\x1b.py", 3, "MEMBER"),),
        commit="0" * 40,
    )
    assert len(found) == 2
    for c in found:
        assert not any(unsafe_char(ch) for ch in c.text + (c.path or ""))
        assert len(c.text) <= LIMITS.review_comment_chars
    assert found[1].line == 3
