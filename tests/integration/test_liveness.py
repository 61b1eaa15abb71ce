"""The liveness proof: `working` only once hooks and bridge have both spoken with the delivery
nonce; a channel silent past the deadline parks the worker (`hooks_silent`, `bridge_silent`), pane
kept."""

from __future__ import annotations

import pytest

from oms.limits import LIMITS
from oms.services.delivery.service import Delivery
from tests.chain import Chain, accepted, use_worker, wait_for

PAST_DEADLINE = LIMITS.channels_silent_ms / 60_000 + 0.5  # minutes


def _deliver(chain: Chain, mode: str) -> str:
    out = use_worker(chain, mode)
    dispatch_id, event_id = accepted(chain)
    with chain.workspace() as ws:
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "created"
    wait_for(out)
    return dispatch_id


def _observe(chain: Chain, dispatch_id: str) -> dict[str, object]:
    with chain.workspace() as ws:
        return dict(Delivery.open(ws).observe(dispatch_id))


def test_a_proven_worker_is_working_and_stays_so(deliverable: Chain) -> None:
    dispatch_id = _deliver(deliverable, "wait")
    view = _observe(deliverable, dispatch_id)
    assert view["live_channels"] == {"hooks": True, "bridge": True}
    assert (view["worker_activity"], view["worker_health"], view["dispatch_state"]) == (
        "working",
        "healthy",
        "acknowledged",
    )
    deliverable.clock.advance(3 * PAST_DEADLINE)
    view = _observe(deliverable, dispatch_id)
    assert (view["worker_activity"], view["worker_health"]) == ("working", "healthy")


@pytest.mark.parametrize(
    ("mode", "live", "reason"),
    [
        ("silent", {"hooks": False, "bridge": False}, "hooks_silent"),
        ("hooks-only", {"hooks": True, "bridge": False}, "bridge_silent"),
        ("bridge-only", {"hooks": False, "bridge": True}, "hooks_silent"),
    ],
)
def test_a_silent_channel_parks_the_worker_and_keeps_its_pane(
    deliverable: Chain, mode: str, live: dict[str, bool], reason: str
) -> None:
    dispatch_id = _deliver(deliverable, mode)
    view = _observe(deliverable, dispatch_id)
    assert (view["worker_activity"], view["worker_health"], view["live_channels"]) == (
        "idle",
        "healthy",
        live,
    )
    deliverable.clock.advance(PAST_DEADLINE - 1)  # before the deadline: nothing happens
    assert _observe(deliverable, dispatch_id)["worker_health"] == "healthy"
    deliverable.clock.advance(1)
    view = _observe(deliverable, dispatch_id)
    assert (view["worker_activity"], view["worker_health"], view["health_reason"]) == (
        "idle",
        "parked",
        reason,
    )
    assert view["pane_live"] is True  # kept for inspection
    assert view["session_state"] == "running"


def test_resume_after_a_silent_park_starts_a_new_deadline(deliverable: Chain) -> None:
    dispatch_id = _deliver(deliverable, "silent")
    deliverable.clock.advance(PAST_DEADLINE)
    assert _observe(deliverable, dispatch_id)["health_reason"] == "hooks_silent"
    deliverable.clock.advance(0.1)
    with deliverable.workspace() as ws:
        view = Delivery.open(ws).resume(dispatch_id)
    assert (view["worker_health"], view["worker_activity"]) == ("healthy", "idle")
    deliverable.clock.advance(PAST_DEADLINE - 1)
    assert _observe(deliverable, dispatch_id)["worker_health"] == "healthy"
    deliverable.clock.advance(1.5)
    assert _observe(deliverable, dispatch_id)["health_reason"] == "hooks_silent"
