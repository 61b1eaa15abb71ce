"""The conductor's rules (`domain/conductor.py`) and the ticket steps it takes (`domain/tickets.py`:
retry, give-up, complete), over random histories."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import JsonObject, add_ms, parse_ts
from oms.domain import conductor as rules
from oms.domain import tickets
from oms.domain.gate import NO_RESULT
from oms.errors import IllegalTransitionError, LeaseError
from oms.schemas.payloads import TicketFailuresItem, TicketPayload

T0 = "2026-11-30T00:00:00.000Z"
SESSION = "11111111-2222-4333-8444-555555555555"


@given(st.integers(1, 100))
def test_backoff_doubles_from_ten_seconds_and_stops_at_five_minutes(n: int) -> None:
    assert rules.backoff_s(n) == min(10 * 2 ** (n - 1), 300)
    assert rules.backoff_s(n) <= rules.backoff_s(n + 1)


def test_backoff_values() -> None:
    assert [rules.backoff_s(n) for n in range(0, 8)] == [0, 10, 20, 40, 80, 160, 300, 300]


def _failure(attempt: int, at: str) -> dict[str, Any]:
    return {
        "attempt": attempt,
        "dispatch_id": f"dsp-{attempt}",
        "failed_at": at,
        "reason": f"failed: try {attempt}",
    }


@given(st.lists(st.integers(0, 7200), max_size=12))
def test_quarantine_counts_only_failures_within_the_hour(ages_s: list[int]) -> None:
    now = add_ms(T0, 10_000_000)
    failures = [_failure(i + 1, add_ms(now, -age * 1000)) for i, age in enumerate(ages_s)]
    recent = sum(1 for age in ages_s if age < 3600)
    assert rules.quarantined(failures, now) == (recent >= 5)
    decision = rules.resolve("failed", "tests fail", failures=failures, now=now)
    if recent >= 5:
        assert decision.resolution is rules.Resolution.QUARANTINE
        assert decision.reason.startswith(f"quarantined after {recent} failures")
        listed = [str(i + 1) for i, age in enumerate(ages_s) if age < 3600]
        assert f"(attempts {', '.join(listed)};" in decision.reason
    else:
        assert decision.resolution is rules.Resolution.RETRY
        assert decision.retry_after == add_ms(now, rules.backoff_s(recent) * 1000)


NOT_FAILED = ["completed", "blocked", "stopped", rules.PERSON]


@given(st.sampled_from(NOT_FAILED), st.lists(st.integers(0, 100), max_size=8))
def test_a_result_that_is_not_a_failure_is_never_retried(status: str, ages_s: list[int]) -> None:
    failures = [_failure(i + 1, add_ms(T0, -age * 1000)) for i, age in enumerate(ages_s)]
    decision = rules.resolve(status, "why", failures=failures, now=T0)
    expected = rules.Resolution.DONE if status == "completed" else rules.Resolution.BLOCKED
    assert decision.resolution is expected
    assert decision.retry_after is None


@given(
    st.sampled_from(["healthy", "parked", "stalled"]),
    st.sampled_from(["running", "parked", None]),
    st.one_of(st.none(), st.just(T0)),
    st.sampled_from([NO_RESULT, "hooks_silent", "pool scaled down: worker-2 drains", None]),
)
def test_a_parked_worker_waits_for_a_person_unless_a_clock_resumes_it(
    health: str, session_state: str | None, parked_until: str | None, reason: str | None
) -> None:
    waits = rules.waits_for_person(
        session_state=session_state, parked_until=parked_until, health=health, reason=reason
    )
    clock = rules.due_resume(
        session_state=session_state,
        parked_until=parked_until,
        health=health,
        reason=reason,
        now=add_ms(T0, 1),
    )
    assert waits == (health == "parked" and not clock)


@given(st.integers(-120, 120))
def test_a_lease_is_renewed_once_less_than_half_is_left_and_never_once_it_ran_out(
    left_min: int,
) -> None:
    expires = add_ms(T0, left_min * 60_000)
    assert rules.renew_due(expires, 60, T0) == (0 < left_min <= 30)
    assert not rules.renew_due(None, 60, T0)


queued = st.builds(
    rules.Queued,
    st.from_regex(r"tkt-[0-9]{1,3}", fullmatch=True),
    st.sampled_from(["open", "leased", "done", "blocked"]),
    st.one_of(st.none(), st.integers(1, 5)),
    st.integers(0, 10**6).map(lambda ms: add_ms(T0, ms)),
    st.one_of(st.none(), st.integers(-(10**6), 10**6).map(lambda ms: add_ms(T0, ms))),
)


@given(st.lists(queued, max_size=30, unique_by=lambda t: t.ticket_id))
def test_the_queue_takes_ready_open_tickets_by_priority_then_age(items: list[rules.Queued]) -> None:
    now = add_ms(T0, 500_000)
    order = rules.queue(items, now)
    ready = [
        t
        for t in items
        if t.state == "open" and (t.retry_after is None or parse_ts(t.retry_after) <= parse_ts(now))
    ]
    assert sorted(order) == sorted(t.ticket_id for t in ready)
    keys = {t.ticket_id: (t.priority or 3, parse_ts(t.created_at), t.ticket_id) for t in ready}
    assert [keys[i] for i in order] == sorted(keys[i] for i in order)


@given(st.integers(0, 300), st.integers(0, 300))
def test_free_slots_never_negative(target: int, busy: int) -> None:
    assert rules.free_slots(target, busy) == max(0, target - busy)


@given(
    st.sampled_from(["parked", "running", None]),
    st.one_of(st.none(), st.integers(-100_000, 100_000)),
    st.sampled_from(["parked", "healthy", "stopped", "stalled"]),
    st.sampled_from([None, NO_RESULT, "parked by oms worker park", "hooks_silent"]),
)
def test_only_a_worker_parked_until_a_time_that_came_is_resumed(
    session_state: str | None, until_ms: int | None, health: str, reason: str | None
) -> None:
    until = None if until_ms is None else add_ms(T0, until_ms)
    due = rules.due_resume(
        session_state=session_state, parked_until=until, health=health, reason=reason, now=T0
    )
    assert due == (
        health == "parked"
        and session_state == "parked"
        and until_ms is not None
        and until_ms <= 0
        and reason != NO_RESULT
    )


@given(
    st.sampled_from(["healthy", "stalled", "parked", "stopped"]),
    st.sampled_from(["running", "parked", "stalled", "stopped"]),
    st.booleans(),
)
def test_a_beat_moves_only_between_healthy_and_stalled(
    health: str,
    session_state: str,
    late: bool,
) -> None:
    """A parked worker waits for its resume: a beat (or the lack of one) never moves it (issue 24: a
    worker parked `bridge_silent` was made healthy by the next tick)."""
    moved = rules.beat_health(health, session_state, late=late)
    if session_state != "running" or health not in ("healthy", "stalled"):
        assert moved is None
    elif (health == "healthy") == late:
        assert moved == ("stalled" if late else "healthy")
    else:
        assert moved is None


@given(st.integers(0, 10_000), st.integers(1, 10_080))
def test_deadline(minutes_ran: int, limit: int) -> None:
    assert rules.past_deadline(T0, limit, add_ms(T0, minutes_ran * 60_000)) == (
        minutes_ran >= limit
    )


def _leased(attempt: int = 1, failures: list[dict[str, Any]] | None = None) -> TicketPayload:
    base = tickets.new(
        title="t",
        source="local",
        repository=None,
        content_sha256="0" * 64,
        created_at=T0,
        repository_root="/r",
        added_by="a" * 64,
    ).payload
    payload: TicketPayload = {**base, "attempt": attempt}
    if failures is not None:
        payload["failures"] = [
            TicketFailuresItem(
                attempt=f["attempt"],
                dispatch_id=f["dispatch_id"],
                failed_at=f["failed_at"],
                reason=f["reason"],
            )
            for f in failures
        ]
    return tickets.lease(
        "open",
        payload,
        worker_id="oms-pool",
        token="a" * 64,
        session_id=SESSION,
        expires_at=add_ms(T0, 60_000),
        now=T0,
    ).payload


@given(st.integers(1, 50), st.integers(0, 15))
def test_retry_opens_the_next_attempt_and_keeps_the_last_ten_failures(
    attempt: int, kept: int
) -> None:
    past = [_failure(i + 1, T0) for i in range(kept)]
    failure = _failure(attempt, T0)
    nxt = tickets.retry(
        "leased",
        {**_leased(attempt, past), "prior_failure_evidence": "e" * 64},
        session_id=SESSION,
        attempt=attempt,
        failure=failure,
        retry_after=T0,
    )
    assert nxt.state == "open"
    assert nxt.payload["attempt"] == attempt + 1
    assert nxt.payload["lease_token"] is None
    assert nxt.payload["session_id"] is None
    assert nxt.payload["failures"] == [*past, failure][-10:]
    assert nxt.payload["retry_after"] == T0
    assert nxt.payload["prior_failure_evidence"] is None  # an earlier expiry's evidence is spent


def test_a_moved_on_ticket_is_not_retried_completed_or_given_up() -> None:
    payload = _leased(2)
    failure = _failure(1, T0)
    with pytest.raises(LeaseError):
        tickets.retry(
            "leased", payload, session_id=SESSION, attempt=1, failure=failure, retry_after=T0
        )
    with pytest.raises(LeaseError):
        tickets.complete("leased", payload, session_id="other", attempt=2, reason="done")
    with pytest.raises(IllegalTransitionError):
        tickets.give_up("open", payload, session_id=SESSION, attempt=2, reason="r")
    assert (
        tickets.complete("leased", payload, session_id=SESSION, attempt=2, reason="done").state
        == "done"
    )
    assert (
        tickets.give_up("leased", payload, session_id=SESSION, attempt=2, reason="r").state
        == "blocked"
    )


def test_a_configuration_fault_waits_for_a_person_and_counts_nothing() -> None:
    """ADR 0031: no backoff, no quarantine, however many failures came before."""
    now = "2026-01-01T00:10:00.000Z"
    at = "2026-01-01T00:05:00.000Z"
    failures: list[JsonObject] = [
        {"attempt": n, "dispatch_id": None, "failed_at": at, "reason": "r"} for n in range(1, 5)
    ]
    said = rules.resolve(rules.CONFIG, "login x: not logged in", failures=failures, now=now)
    assert said == rules.Decision(rules.Resolution.WAIT, "needs a person: login x: not logged in")
    again = rules.resolve(rules.CONFIG, rules.needs_person("paths: y"), failures=[], now=now)
    assert again.reason == "needs a person: paths: y"


@given(st.lists(st.integers(0, 100), max_size=8))
def test_no_provider_free_is_never_a_failure_and_never_quarantines(ages_s: list[int]) -> None:
    """A 429 storm that rests every provider between the queue's question and the proposal (the
    soak quarantined 50 of 67 tickets so) leaves the ticket open, waiting for a provider, its
    reason as said and no "needs a person" — however many failures it had."""
    failures = [_failure(i + 1, add_ms(T0, -age * 1000)) for i, age in enumerate(ages_s)]
    why = "no provider can serve role r (the first cooldown ends later): p: rests"
    decision = rules.resolve(rules.REST, why, failures=failures, now=T0)
    assert decision.resolution is rules.Resolution.WAIT
    assert decision.reason == why
    assert decision.retry_after is None


@given(st.text(max_size=40))
def test_a_give_backs_cancel_is_told_from_any_other(text: str) -> None:
    """What a cancel's reason says of its attempt's end (`given_back`): a drain's and a launch
    check's give-back count nothing, whatever the slot or fault; any other reason is a failure."""
    assert rules.given_back(rules.drained(text)) == rules.DRAINED
    assert rules.given_back(rules.needs_person(text)) == rules.CONFIG
    other = "cancelled by a person: " + text
    assert rules.given_back(other) == "failed"
