"""GitHub's own rules for the repository names oms accepts (pure; the one home of these rules).

From GitHub's documentation (repository limits; account names):
- owner: 1-39 characters, ASCII letters and digits, hyphens only singly and never at either end;
- name: 1-100 characters of ASCII letters, digits, `.`, `-` and `_`; `.` and `..` are not names; a
  name ending in `.git` is stored without that suffix, and `.wiki` is reserved for wikis (either way
  the name given is not the repository's name).
"""

from __future__ import annotations

import re

from oms.errors import InvalidInputError, shown

OWNER_MAX = 39
NAME_MAX = 100
_OWNER = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_NAME = re.compile(r"[A-Za-z0-9._-]+")
RESERVED_SUFFIXES = (".git", ".wiki")


def repository_problem(slug: str) -> str | None:
    """Why `slug` is not a GitHub `owner/name`, or None when it is one."""
    owner, sep, name = slug.partition("/")
    if not sep:
        return "it is not owner/name"
    if len(owner) > OWNER_MAX or _OWNER.fullmatch(owner) is None:
        return (
            f"the owner must be 1-{OWNER_MAX} letters, digits or single hyphens, not at either end"
        )
    if len(name) > NAME_MAX or _NAME.fullmatch(name) is None:
        return f"the name must be 1-{NAME_MAX} letters, digits, '.', '-' or '_'"
    if name in (".", ".."):
        return f"{name!r} is not a repository name"
    if name.lower().endswith(RESERVED_SUFFIXES):
        return "GitHub does not keep a name ending in .git or .wiki"
    return None


def check_repository(slug: str) -> str:
    """`slug` when it is a GitHub `owner/name`; `InvalidInputError` naming the rule otherwise."""
    problem = repository_problem(slug)
    if problem is not None:
        raise InvalidInputError(
            f"repository {shown(slug, 120)} is not a GitHub repository name: {problem}"
        )
    return slug
