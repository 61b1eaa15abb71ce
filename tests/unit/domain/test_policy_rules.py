"""The role policy's `needs_person` (ADR 0008 and 0043, amendment `hand`): a role approved by a
person only, which needs `human_approval`; parsed as committed, or refused."""

from __future__ import annotations

import json

import pytest

from oms.domain.policy import needs_person, parse_policy
from oms.errors import ConfigError

ROLE = {"capabilities": ["repository-read", "ticket-worktree-write"], "tools": []}


def _policy(human: bool, **grant: object) -> bytes:
    doc = {
        "format": "oms-role-policy-v1",
        "human_approval": human,
        "roles": {"a.worker": {**ROLE, "may_review": False, **grant}},
    }
    return json.dumps(doc).encode()


def test_a_role_needs_a_person_only_when_its_grant_says_so() -> None:
    assert needs_person(parse_policy(_policy(True, needs_person=True)), "a.worker")
    assert not needs_person(parse_policy(_policy(True, needs_person=False)), "a.worker")
    assert not needs_person(parse_policy(_policy(False)), "a.worker")
    assert not needs_person(parse_policy(_policy(True, needs_person=True)), "no.such-role")


def test_a_role_that_needs_a_person_where_no_person_may_approve_is_refused() -> None:
    with pytest.raises(ConfigError, match="human_approval is false") as caught:
        parse_policy(_policy(False, needs_person=True))
    assert "\n" not in caught.value.message


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_needs_person_is_a_boolean(value: object) -> None:
    with pytest.raises(ConfigError):
        parse_policy(_policy(True, needs_person=value))
