"""`oms status`'s reason column (issue 26 item 4): one short phrase for why a ticket waits, is
blocked, or its worker is parked or needs a person (`domain/status_reason.py`), cut to the room the
terminal leaves it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import parse_ts
from oms.domain.conductor import NEEDS_PERSON
from oms.domain.status_reason import fit, ticket_reason

NOW = parse_ts("2026-12-02T10:00:00.000Z")


def test_each_state_says_why() -> None:
    fix = f"{NEEDS_PERSON}bubblewrap is missing (fix: install it)"
    assert ticket_reason("open", {"reason": fix, "attempt": 1}, None, NOW) == fix
    assert ticket_reason("open", {"reason": None, "attempt": 1}, None, NOW) == (
        "waits for a free slot"
    )
    assert ticket_reason("open", {"reason": "lease expired", "attempt": 1}, None, NOW) == (
        "waits for a free slot (lease expired)"
    )
    backoff = {"reason": "failed: exit 1", "attempt": 2, "retry_after": "2026-12-02T10:05:00.000Z"}
    assert ticket_reason("open", backoff, None, NOW) == (
        "waits to retry at 2026-12-02T10:05:00.000Z (failed: exit 1)"
    )
    assert "(attempt 2: failed: exit 1)" in ticket_reason(
        "open", {**backoff, "retry_after": "2026-12-02T09:00:00.000Z"}, None, NOW
    )
    parked = {"health": "parked", "health_reason": "bridge_silent"}
    assert ticket_reason("leased", {}, parked, NOW) == "worker parked: bridge_silent"
    assert ticket_reason("leased", {}, {"health": "stalled"}, NOW) == "worker stalled: no heartbeat"
    assert ticket_reason("leased", {}, {"health": "healthy"}, NOW) == "worker running"
    assert "on its way" in ticket_reason("leased", {}, None, NOW)
    quarantined = {"reason": "quarantined after 5 failures within an hour"}
    assert ticket_reason("blocked", quarantined, None, NOW) == (
        "blocked: quarantined after 5 failures within an hour"
    )
    assert ticket_reason("blocked", {}, None, NOW) == "blocked: a person decides"
    assert ticket_reason("done", {"reason": "merged"}, None, NOW) == "merged"


@given(st.text(max_size=300), st.integers(-5, 200))
def test_a_reason_fits_its_width(text: str, width: int) -> None:
    shown = fit(text, width)
    assert len(shown) <= max(0, width)
    if len(text) <= width:
        assert shown == text
