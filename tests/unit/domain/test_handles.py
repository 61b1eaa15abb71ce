"""The handle resolver (`domain/handles.py`): a whole id always names itself, a prefix names the
one id it begins or is refused listing what it names, and a ticket's handle names its one live
attempt (or its one result)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.domain.dispatches import NON_TERMINAL, DispatchState
from oms.domain.handles import Attempt, Want, dispatch_for, matching, unique
from oms.errors import AmbiguousIdError, RecordNotFoundError

IDS = st.lists(st.from_regex(r"tkt-[1-9][0-9]{0,3}", fullmatch=True), max_size=30, unique=True)
HANDLES = st.from_regex(r"tkt-[0-9]{0,4}", fullmatch=True)
STATES = st.sampled_from([s.value for s in DispatchState])


@given(IDS, st.data())
def test_a_whole_id_names_itself_even_when_it_begins_others(
    ids: list[str], data: st.DataObject
) -> None:
    if ids:
        chosen = data.draw(st.sampled_from(ids))
        assert unique(chosen, ids, "ticket", "h") == chosen


@given(IDS, HANDLES)
def test_a_prefix_names_the_one_id_it_begins_or_is_refused(ids: list[str], handle: str) -> None:
    begun = [i for i in ids if i.startswith(handle)]
    if handle in ids or len(begun) == 1:
        assert unique(handle, ids, "ticket", "h") == (handle if handle in ids else begun[0])
    elif not begun:
        with pytest.raises(RecordNotFoundError, match=f"no ticket {handle}"):
            unique(handle, ids, "ticket", "h")
    else:
        with pytest.raises(AmbiguousIdError) as refused:
            unique(handle, ids, "ticket", "h")
        assert f"names {len(begun)}: " in refused.value.message
        assert sorted(begun)[0] in refused.value.message  # the candidates are listed


def test_an_ambiguous_prefix_lists_a_bounded_number_of_candidates() -> None:
    ids = [f"tkt-1{n:02d}" for n in range(40)]
    with pytest.raises(AmbiguousIdError, match=r"names 40: tkt-100, .* and 34 more$"):
        unique("tkt-1", ids, "ticket", "h")
    assert matching("", ids) == []  # nothing typed names nothing


ATTEMPTS = st.lists(
    st.builds(
        Attempt,
        dispatch_id=st.from_regex(r"dsp-[0-9a-f]{6}", fullmatch=True),
        ticket_id=st.sampled_from(["tkt-1", "tkt-2", "tkt-12"]),
        state=STATES,
        has_result=st.booleans(),
        attempt=st.integers(1, 3),
    ),
    max_size=8,
    unique_by=lambda a: a.dispatch_id,
)


@given(ATTEMPTS, st.sampled_from(list(Want)), st.data())
def test_a_dispatch_id_or_its_prefix_names_that_dispatch(
    attempts: list[Attempt], want: Want, data: st.DataObject
) -> None:
    if not attempts:
        return
    chosen = data.draw(st.sampled_from(attempts)).dispatch_id
    tickets = sorted({a.ticket_id for a in attempts})
    assert dispatch_for(chosen, tickets, attempts, want) == chosen
    short = chosen[: data.draw(st.integers(5, len(chosen)))]
    if sum(a.dispatch_id.startswith(short) for a in attempts) == 1:
        assert dispatch_for(short, tickets, attempts, want) == chosen


@given(ATTEMPTS, st.sampled_from(["tkt-1", "tkt-2", "tkt-12"]))
def test_a_ticket_names_its_one_live_attempt_or_is_refused(
    attempts: list[Attempt], ticket: str
) -> None:
    tickets = ["tkt-1", "tkt-2", "tkt-12"]
    live = [a for a in attempts if a.ticket_id == ticket and a.state in NON_TERMINAL]
    if len(live) == 1:
        assert dispatch_for(ticket, tickets, attempts, Want.LIVE) == live[0].dispatch_id
        return
    error = RecordNotFoundError if not live else AmbiguousIdError
    with pytest.raises(error) as refused:
        dispatch_for(ticket, tickets, attempts, Want.LIVE)
    assert f"ticket {ticket} has " in refused.value.message  # tkt-1, never tkt-12
    for a in live[:6]:
        assert a.dispatch_id in refused.value.message


@given(ATTEMPTS)
def test_a_ticket_names_its_one_result_an_unresolved_one_first(attempts: list[Attempt]) -> None:
    mine = [a for a in attempts if a.ticket_id == "tkt-2" and a.has_result]
    open_ = [a for a in mine if a.state in NON_TERMINAL]
    expected = open_ if open_ else mine
    if len(expected) == 1:
        assert dispatch_for("tkt-2", ["tkt-2"], attempts, Want.RESULT) == expected[0].dispatch_id
    else:
        with pytest.raises(RecordNotFoundError if not expected else AmbiguousIdError):
            dispatch_for("tkt-2", ["tkt-2"], attempts, Want.RESULT)


@given(ATTEMPTS)
def test_a_look_names_the_live_attempt_else_the_latest(attempts: list[Attempt]) -> None:
    """`oms worker log|observe tkt-2`, `oms dispatch show tkt-2`: once a ticket's attempts have
    ended (done, merged), its last one is the one a person looks at (the guide's "to see why an
    attempt went as it did")."""
    mine = [a for a in attempts if a.ticket_id == "tkt-2"]
    live = [a for a in mine if a.state in NON_TERMINAL]
    last = [a for a in mine if a.attempt == max(b.attempt for b in mine)] if mine else []
    expected = live or [a for a in last if a.has_result] or last
    if len(expected) == 1:
        assert dispatch_for("tkt-2", ["tkt-2"], attempts, Want.LAST) == expected[0].dispatch_id
    else:
        with pytest.raises(RecordNotFoundError if not expected else AmbiguousIdError):
            dispatch_for("tkt-2", ["tkt-2"], attempts, Want.LAST)


def test_a_ticket_whose_attempts_ended_names_its_last_for_a_look_only() -> None:
    attempts = [
        Attempt("dsp-a1", "tkt-1", "resolved", True, 1),
        Attempt("dsp-b2", "tkt-1", "cancelled", False, 2),
        Attempt("dsp-c2", "tkt-1", "resolved", True, 2),
    ]
    assert dispatch_for("tkt-1", ["tkt-1"], attempts, Want.LAST) == "dsp-c2"
    with pytest.raises(RecordNotFoundError, match="has no live attempt; its dispatches: dsp-a1"):
        dispatch_for("tkt-1", ["tkt-1"], attempts, Want.LIVE)  # what acts still needs a live one
    with pytest.raises(RecordNotFoundError) as none:
        dispatch_for("tkt-1", ["tkt-1"], [], Want.LAST)
    assert none.value.message == "ticket tkt-1 has no live attempt; it has no dispatch"
    assert "`oms status` says what the ticket waits for" in str(none.value.remedy)


def test_a_prefix_of_a_ticket_and_a_dispatch_is_refused_naming_both() -> None:
    attempts = [Attempt("t-aa", "t-1", "accepted", False)]
    with pytest.raises(AmbiguousIdError, match=r"'t-' names 2: t-1, t-aa"):
        dispatch_for("t-", ["t-1"], attempts, Want.LIVE)
    with pytest.raises(RecordNotFoundError, match="no dispatch or ticket x"):
        dispatch_for("x", ["t-1"], attempts, Want.LIVE)


def test_a_typo_names_the_near_ids_with_their_titles() -> None:
    ids = ["tkt-12", "tkt-13", "tkt-1", "tkt-130", "tkt-7"]
    titles = {"tkt-12": "Fix the «flaky» test", "tkt-13": "Docs\x1b[31m red"}
    with pytest.raises(RecordNotFoundError) as refused:
        unique("tkt-14", ids, "ticket", "h", lambda: titles)
    assert refused.value.message == (
        "no ticket tkt-14; did you mean tkt-1, tkt-12 ('Fix the ?flaky? test'), "
        "tkt-13 ('Docs?[31m red')?"
    )  # at most 3, the closest first (tkt-130 is two edits away); a title made safe, never raw
    with pytest.raises(RecordNotFoundError) as refused:
        unique("tkt-9", ids, "ticket", "h", lambda: titles)  # one digit: anything is "near"
    assert refused.value.message == "no ticket tkt-9"
    with pytest.raises(RecordNotFoundError) as refused:
        unique("flaky", ids, "ticket", "h", lambda: titles)  # a word of a title
    assert refused.value.message == "no ticket flaky; did you mean tkt-12 ('Fix the ?flaky? test')?"


def test_a_letter_typed_for_the_digit_it_looks_like_names_that_id() -> None:
    # `tkt-l` for `tkt-1` (docs/guide.md: "did you mean"): a look-alike is no edit, even where
    # one typed character allows none
    ids = ["tkt-1", "tkt-12", "tkt-10", "tkt-7"]
    with pytest.raises(RecordNotFoundError) as refused:
        unique("tkt-l", ids, "ticket", "h", lambda: {"tkt-1": "One"})
    assert refused.value.message == "no ticket tkt-l; did you mean tkt-1 ('One')?"
    with pytest.raises(RecordNotFoundError) as refused:
        unique("tkt-1o", ids, "ticket", "h")
    assert refused.value.message.startswith("no ticket tkt-1o; did you mean tkt-10")
    with pytest.raises(RecordNotFoundError) as refused:
        unique("tkt-i", ["tkt-7"], "ticket", "h")  # looks like no id there is
    assert refused.value.message == "no ticket tkt-i"


def test_a_typo_of_a_dispatch_prefix_names_the_near_dispatch() -> None:
    attempts = [Attempt("dsp-3fa9" + "0" * 28, "tkt-1", "accepted", False)]
    with pytest.raises(RecordNotFoundError) as refused:
        dispatch_for("dsp-3fb9", ["tkt-1"], attempts, Want.LIVE, lambda: {"tkt-1": "One"})
    assert (
        refused.value.message
        == "no dispatch or ticket dsp-3fb9; did you mean dsp-3fa9" + ("0" * 28) + "?"
    )
    with pytest.raises(RecordNotFoundError) as refused:
        dispatch_for("tkt-2", ["tkt-1"], attempts, Want.LIVE)  # one digit off: not a typo of it
    assert refused.value.message == "no dispatch or ticket tkt-2"


@given(IDS, HANDLES)
def test_near_names_at_most_three_ids_of_the_kind_typed(ids: list[str], handle: str) -> None:
    from oms.domain.handles import near

    found = near(handle, ids)
    assert len(found) <= 3
    assert set(found) <= set(ids) - {handle}
    assert all(i.startswith("tkt-") for i in found)
