"""Which dispatch of an attempt the conductor goes on with (`conductor/work._by_attempt`): an
attempt whose proposal ended unlaunched goes on under a fresh session with a new dispatch, so
one attempt can have several; the conductor takes the one of its ticket's current session,
whatever order the store lists them in (before, the last listed: an ended proposal listed after
its replacement was taken for the attempt's end, and the ticket retried)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import JsonObject
from oms.services.conductor.work import _by_attempt
from oms.store import Record

T0 = "2026-12-05T00:00:00.000Z"


def _record(kind: str, rid: str, state: str, payload: JsonObject) -> Record:
    return Record(kind, rid, 1, state, None, "op", "oms-system", T0, None, payload, "0" * 64)


def _dispatch(rid: str, ticket: str, attempt: int, session: str) -> Record:
    body: JsonObject = {"ticket_id": ticket, "attempt": attempt, "session_id": session}
    return _record("dispatch", rid, "cancelled", body)


def _ticket(rid: str, attempt: int, session: str) -> Record:
    return _record("ticket", rid, "leased", {"attempt": attempt, "session_id": session})


@given(
    sessions=st.lists(st.sampled_from("abcd"), min_size=1, max_size=4, unique=True),
    current=st.sampled_from("abcde"),
    order=st.randoms(use_true_random=False),
)
def test_the_current_sessions_dispatch_is_taken_in_any_order(
    sessions: list[str], current: str, order: random.Random
) -> None:
    listed = [_dispatch(f"dsp-{s}", "tkt-1", 1, s) for s in sessions]
    listed.append(_dispatch("dsp-other", "tkt-2", 1, current))  # another ticket's: never taken
    order.shuffle(listed)
    found = _by_attempt([_ticket("tkt-1", 1, current)], listed)
    taken = found[("tkt-1", 1)]
    if current in sessions:
        assert taken.record_id == f"dsp-{current}"
    else:  # none of the current session: one of the attempt's, `_replaced` decides
        assert taken.record_id in {f"dsp-{s}" for s in sessions}


def test_an_ended_proposal_listed_after_its_replacement_is_not_taken() -> None:
    ended, replacing = _dispatch("dsp-z", "tkt-1", 1, "old"), _dispatch("dsp-a", "tkt-1", 1, "new")
    for listed in ([ended, replacing], [replacing, ended]):
        found = _by_attempt([_ticket("tkt-1", 1, "new")], listed)
        assert found[("tkt-1", 1)].record_id == "dsp-a"
