"""`domain/workers.agent`: what a worker's agent is doing, as its records say (issue 24: an agent
the Stop gate's cap let go was shown `working/healthy/alive`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import JsonObject, add_ms
from oms.domain.workers import Agent, agent
from oms.limits import LIMITS
from tests.helpers import T0


@given(
    health=st.sampled_from(["healthy", "stalled", "parked", "stopped"]),
    activity=st.sampled_from(["idle", "working", "done", "blocked"]),
    session_state=st.sampled_from([None, "running", "stalled", "parked", "stopped"]),
    stopped=st.booleans(),
    heard_ms=st.integers(-1000, 60_000),
)
def test_what_the_agent_does(
    health: str, activity: str, session_state: str | None, stopped: bool, heard_ms: int
) -> None:
    session: JsonObject | None = None
    if session_state is not None:
        session = {
            "agent_stopped_at": T0 if stopped else None,
            "last_observed_at": add_ms(T0, heard_ms),
        }
    shown = agent(health, activity, session_state, session)
    if health == "stopped" or session_state == "stopped":
        assert shown is Agent.ENDED
    elif session_state is None:
        assert shown is Agent.NOT_STARTED
    elif "parked" in (health, session_state):
        assert shown is Agent.PARKED
    elif stopped and heard_ms <= LIMITS.hook_beat_ms:
        assert shown is Agent.STOPPED  # its Stop was let through and nothing was heard of it since
    else:  # (a goal's next turn: heard from more than a beat after it stopped)
        assert shown is (Agent.STARTING if activity == "idle" else Agent.WORKING)


def test_a_resting_agent_of_a_working_healthy_worker_is_stopped() -> None:
    session: JsonObject = {"agent_stopped_at": T0, "last_observed_at": T0}
    assert agent("healthy", "working", "running", session) is Agent.STOPPED
    working = {**session, "agent_stopped_at": None}
    assert agent("healthy", "working", "running", working) is Agent.WORKING
