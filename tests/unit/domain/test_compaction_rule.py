"""`finishing.compaction_blocker`: a ticket's records are compacted only when it ended long enough
ago and every part of it ended, no pane is registered and its worktree is gone (property: None
exactly then). A worker of a host gone for good, and its sessions, ended with that host."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from oms.domain import finishing
from oms.domain.finishing import DAY_MS, TicketParts, compaction_blocker

TICKET_STATES = st.sampled_from(["open", "leased", "done", "blocked"])
DISPATCH_STATES = st.sampled_from(
    ["proposed", "accepted", "acknowledged", "result-received", "resolved", "rejected", "cancelled"]
)
HEALTH = st.sampled_from(["healthy", "parked", "stalled", "stopped"])
SESSION = st.sampled_from(["running", "parked", "stalled", "stopped"])


@given(
    TICKET_STATES,
    st.integers(0, 100 * DAY_MS),
    st.integers(0, 60),
    st.lists(DISPATCH_STATES, max_size=3),
    st.lists(HEALTH, max_size=3),
    st.lists(SESSION, max_size=3),
    st.booleans(),
    st.booleans(),
    st.sets(st.sampled_from(["d0", "d1", "d2"])),
)
def test_compacted_exactly_when_everything_ended(
    state: str,
    age_ms: int,
    after: int,
    dispatches: list[str],
    workers: list[str],
    sessions: list[str],
    pane: bool,
    worktree: bool,
    gone: set[str],
) -> None:
    now = 200 * DAY_MS
    parts = TicketParts(
        state=state,
        ended_ms=now - age_ms,
        dispatches=tuple((f"d{i}", s) for i, s in enumerate(dispatches)),
        workers=tuple((f"d{i}", h) for i, h in enumerate(workers)),
        sessions=tuple((f"s{i}", s, f"d{i}") for i, s in enumerate(sessions)),
        registered_panes=("d0",) if pane else (),
        worktree="/w/t" if worktree else None,
        gone=tuple(sorted(gone)),
    )
    expected = (
        after > 0
        and state in ("done", "blocked")
        and age_ms >= after * DAY_MS
        and all(s in finishing.ENDED_DISPATCH or f"d{i}" in gone for i, s in enumerate(dispatches))
        and all(h == "stopped" or f"d{i}" in gone for i, h in enumerate(workers))
        and all(s == "stopped" or f"d{i}" in gone for i, s in enumerate(sessions))
        and not pane
        and not worktree
    )
    why = compaction_blocker(parts, now, after)
    assert (why is None) == expected, why
    if why is not None:
        assert why
        assert "\n" not in why


def test_a_gone_hosts_dispatch_left_accepted_ended_with_it() -> None:
    """A dispatch its gone host left `accepted` (or `acknowledged`), its worker healthy, its
    session running: all ended with the host (ADR 0043, amendment `cross7`); not so on a host that
    is not gone."""
    parts = TicketParts(
        state="blocked",
        ended_ms=0,
        dispatches=(("d0", "accepted"), ("d1", "cancelled")),
        workers=(("d0", "healthy"), ("d1", "stopped")),
        sessions=(("s0", "running", "d0"),),
        gone=("d0",),
    )
    assert compaction_blocker(parts, 2 * DAY_MS, 1) is None
    here = dataclasses.replace(parts, gone=())
    assert compaction_blocker(here, 2 * DAY_MS, 1) == "dispatch d0 is accepted"
