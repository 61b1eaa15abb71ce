"""The one rule of whether an attempt may act (`domain/fence.py`, ADR 0028): over before fenced
before live; the first lapse of each kind is the line; a result is told apart from its absence."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.domain import fence
from oms.domain.fence import Standing

LAPSE = st.one_of(st.none(), st.text(min_size=1, max_size=20))


@pytest.mark.parametrize(
    ("state", "over"),
    [
        ("proposed", False),
        ("accepted", False),
        ("acknowledged", False),
        ("result-received", False),
        ("resolved", True),
        ("cancelled", True),
        ("rejected", True),
    ],
)
def test_a_dispatch_that_ended_makes_its_attempt_over(state: str, over: bool) -> None:
    found = fence.judge((fence.dispatch_lapse(state, "why"), None), ())
    assert (found.standing is Standing.OVER) == over
    if over:
        assert found.reason == f"attempt fenced: the dispatch is {state} (why)"


@pytest.mark.parametrize(
    ("health", "over"),
    [("healthy", False), ("parked", False), ("stalled", False), ("stopped", True)],
)
def test_a_worker_that_ended_makes_its_attempt_over(health: str, over: bool) -> None:
    assert (fence.judge((None, fence.worker_lapse(health)), ()).standing is Standing.OVER) == over


@pytest.mark.parametrize(
    ("state", "evidence", "result"),
    [
        ("acknowledged", None, False),
        ("result-received", "ev-1", True),
        ("resolved", "ev-1", True),
        ("resolved", None, False),  # (no such record is written; a result is its evidence)
        ("cancelled", "ev-1", False),  # a cancelled dispatch's result is no result to finish on
    ],
)
def test_a_result_is_a_recorded_result(state: str, evidence: str | None, result: bool) -> None:
    assert fence.has_result(state, {"result_evidence": evidence}) == result


@given(over=st.lists(LAPSE, max_size=4), fenced=st.lists(LAPSE, max_size=4), result=st.booleans())
def test_over_comes_before_fenced_and_the_first_lapse_is_the_line(
    over: list[str | None], fenced: list[str | None], result: bool
) -> None:
    found = fence.judge(tuple(over), tuple(fenced), result=result)
    assert found.has_result == result
    first_over = next((x for x in over if x is not None), None)
    first_fenced = next((x for x in fenced if x is not None), None)
    if first_over is not None:
        assert found.standing is Standing.OVER
        assert found.reason == f"{fence.PREFIX}: {first_over}"
    elif first_fenced is not None:
        assert found.standing is Standing.FENCED
        assert found.reason == f"{fence.PREFIX}: {first_fenced}"
    else:
        assert found.live
        assert found.reason is None
