"""`oms status`'s reason column (issue 26 item 4): one short phrase for why a ticket waits, is
blocked, or its worker is parked or needs a person (`domain/status_reason.py`), cut to the room the
terminal leaves it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import parse_ts
from oms.domain.conductor import NEEDS_PERSON
from oms.domain.status_reason import awaits_approval, fit, past_wait, ticket_reason
from tests.helpers import ticket_sample as ticket
from tests.helpers import worker_sample as worker

NOW = parse_ts("2026-12-02T10:00:00.000Z")


def test_each_state_says_why() -> None:
    fix = f"{NEEDS_PERSON}bubblewrap is missing (fix: install it)"
    assert ticket_reason("open", ticket(reason=fix), None, NOW) == fix
    assert ticket_reason("open", ticket(), None, NOW) == "waits for a free slot"
    assert ticket_reason("open", ticket(reason=""), None, NOW) == "waits for a free slot"
    assert ticket_reason("open", ticket(reason="lease expired"), None, NOW) == (
        "waits for a free slot (lease expired)"
    )
    backoff = ticket(reason="failed: exit 1", attempt=2, retry_after="2026-12-02T10:05:00.000Z")
    assert ticket_reason("open", backoff, None, NOW) == (
        "waits to retry at 2026-12-02T10:05:00.000Z (failed: exit 1)"
    )
    assert "(attempt 2: failed: exit 1)" in ticket_reason(
        "open", {**backoff, "retry_after": "2026-12-02T09:00:00.000Z"}, None, NOW
    )
    assert "(attempt 2: failed: exit 1)" in ticket_reason(
        "open", {**backoff, "retry_after": None}, None, NOW
    )
    parked = worker(health="parked", health_reason="bridge_silent")
    assert ticket_reason("leased", ticket(), parked, NOW) == "worker parked: bridge_silent"
    stalled = worker(health="stalled")
    assert ticket_reason("leased", ticket(), stalled, NOW) == "worker stalled: no heartbeat"
    assert ticket_reason("leased", ticket(), worker(), NOW) == "worker running"
    ended = worker(health="stopped", end_reason="exit")
    assert ticket_reason("leased", ticket(), ended, NOW) == (
        "worker ended (exit): its result is being decided"
    )
    assert "on its way" in ticket_reason("leased", ticket(), None, NOW)
    quarantined = ticket(reason="quarantined after 5 failures within an hour")
    assert ticket_reason("blocked", quarantined, None, NOW) == (
        "blocked: quarantined after 5 failures within an hour"
    )
    assert ticket_reason("blocked", ticket(), None, NOW) == "blocked: a person decides"
    assert ticket_reason("done", ticket(reason="merged"), None, NOW) == "merged"


@given(st.text(max_size=300), st.integers(-5, 200))
def test_a_reason_fits_its_width(text: str, width: int) -> None:
    shown = fit(text, width)
    assert len(shown) <= max(0, width)
    if len(text) <= width:
        assert shown == text


def test_a_dispatch_waiting_for_a_person_names_the_commands() -> None:
    """ADR 0008, amendment `waits`: the one phrase of a wait for a person's approval, the reason of
    its leased ticket (no worker yet), and its bound."""
    said = awaits_approval("dsp-1", "a.worker")
    assert said == (
        "dsp-1 waits for a person's approval (role a.worker needs one): oms dispatch approve "
        "dsp-1 (or oms dispatch reject dsp-1 --reason WHY)"
    )
    assert ticket_reason("leased", ticket(), None, NOW, said) == said
    assert ticket_reason("leased", ticket(), worker(), NOW, said) == "worker running"
    assert not past_wait("2026-12-02T09:00:00.001Z", 60, "2026-12-02T10:00:00.000Z")
    assert past_wait("2026-12-02T09:00:00.000Z", 60, "2026-12-02T10:00:00.000Z")
