"""The ledger's actor for a person's decision (`tickets.person_actor`, ADR 0041 amendment
`rejectedby`): `person:<name>` as the actor pattern allows (lowercase ASCII letters, digits,
hyphens, a bounded length). Two people must not become one actor: before, every name made only
of letters outside ASCII became `person:unnamed` (田中 and 山田 alike), names that differed
only in a letter outside ASCII became one (Zoë and Zoé: `person:zo`), and names that differed
past the 60th character became one; the ledger could not tell who decided. A name that loses
anything but case, separators and accents now carries a digest of the name as typed."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.schemas.loader import load_schema
from oms.services.chain.tickets import person_actor

ACTOR = re.compile(load_schema("defs")["$defs"]["actor"]["pattern"])


@pytest.mark.parametrize(
    ("one", "another"),
    [
        ("田中", "山田"),
        ("Zoë", "Zoя"),
        ("!!!", "???"),
        ("a" * 61, "a" * 60 + "b"),
        ("Ann \u7530", "Ann \u5c71"),
    ],
)
def test_two_people_are_two_actors(one: str, another: str) -> None:
    assert person_actor(one) != person_actor(another), (one, another)


@pytest.mark.parametrize(
    ("typed", "actor"),
    [
        ("Ann", "person:ann"),
        ("Ada Lovelace", "person:ada-lovelace"),
        ("Zoë Reviewer", "person:zoe-reviewer"),
        ("bob", "person:bob"),
    ],
)
def test_a_plain_name_reads_as_typed(typed: str, actor: str) -> None:
    assert person_actor(typed) == actor


@given(st.text(max_size=300))
def test_every_actor_is_one_the_ledger_takes(person: str) -> None:
    actor = person_actor(person)
    assert ACTOR.fullmatch(actor), (person, actor)
    assert len(actor) <= 128
