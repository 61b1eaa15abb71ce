"""The fleet chaos test's reading of a ticket's current dispatch (tests/chaos.py): a CI run of
seed 24 took a never-accepted dispatch that shared its ticket's attempt for the current one, and
waited for a parked worker it could not see."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from oms.store.records import Record
from tests.chaos import current_dispatches


def _dispatch(record_id: str, ticket: str, attempt: int, session: str) -> Record:
    payload = {"ticket_id": ticket, "attempt": attempt, "session_id": session}
    return cast(Record, SimpleNamespace(record_id=record_id, payload=payload))


def test_the_dispatch_of_the_tickets_session_is_current_among_two_of_one_attempt() -> None:
    first = _dispatch("dsp-e0", "tkt-8", 1, "s-1")
    taken = _dispatch("dsp-51", "tkt-8", 2, "s-2")
    refused = _dispatch("dsp-ce", "tkt-8", 2, "s-3")  # proposed while its provider rested
    current = current_dispatches({"tkt-8": "s-2"}, [first, taken, refused])
    assert current["tkt-8"] is taken


def test_a_ticket_naming_no_session_has_its_last_dispatch_current() -> None:
    one, two = _dispatch("dsp-a", "tkt-1", 1, "s-1"), _dispatch("dsp-b", "tkt-1", 2, "s-2")
    assert current_dispatches({"tkt-1": None}, [one, two])["tkt-1"] is two
    assert current_dispatches({}, [one, two])["tkt-1"] is two
