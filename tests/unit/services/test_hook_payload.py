"""The session payload a hook writes (`hooks.next_payload`), as a state machine over random hook
sequences: the Stop gate's counter and cap, and when the agent is recorded as stopped."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import add_ms
from oms.services.hooks import STOP_BLOCK_CAP, HookArgs, next_payload

T0 = "2026-11-30T00:00:00.000Z"
ARGS = HookArgs("codex", "codex-0.171", "dsp-1", "s-1", ())
hooks = st.lists(
    st.tuples(st.sampled_from(["SessionStart", "UserPromptSubmit", "Stop"]), st.booleans(), st.booleans()),
    max_size=40,
)


def _start() -> dict[str, Any]:
    return {"stop_blocks": 0, "agent_stopped_at": None, "native_session_ref": "s-1"}


@given(hooks)
def test_the_gate_holds_at_most_cap_plus_one_stops_in_a_row(sequence: list[tuple[str, bool, bool]]) -> None:
    payload, run = _start(), 0
    for i, (event, active, has_result) in enumerate(sequence):
        doc = {"hook_event_name": event, "session_id": "thread-1", "stop_hook_active": active}
        now = add_ms(T0, i)
        payload, hold = next_payload(payload, ARGS, doc, has_result=has_result, now=now)
        if event != "Stop" or has_result:
            assert hold is False
            if event != "SessionStart":  # a prompt or a result ends a run of blocks; a session start does not
                run = 0
            assert payload["stop_blocks"] == run
            continue
        run = run + 1 if active else 1  # what the agent CLI's stop_hook_active says about the run
        assert payload["stop_blocks"] == run
        assert hold == (not active or run <= STOP_BLOCK_CAP)


@given(hooks)
def test_agent_stopped_at_tells_whether_the_agent_rests(sequence: list[tuple[str, bool, bool]]) -> None:
    payload = _start()
    first_release: str | None = None
    for i, (event, active, has_result) in enumerate(sequence):
        doc = {"hook_event_name": event, "session_id": "thread-1", "stop_hook_active": active}
        now = add_ms(T0, i)
        before = dict(payload)
        payload, hold = next_payload(payload, ARGS, doc, has_result=has_result, now=now)
        assert before == dict(before)  # the input is never edited in place
        if event == "Stop" and not hold:
            first_release = first_release or now
            assert payload["agent_stopped_at"] == first_release  # the first Stop let through, kept
        else:
            first_release = None
            assert payload["agent_stopped_at"] is None  # working: started, prompted, or held back
        if event == "SessionStart":
            assert payload["native_session_ref"] == "thread-1"  # Codex's own thread id is learned


def test_the_input_payload_is_not_changed() -> None:
    start = _start()
    out, hold = next_payload(start, ARGS, {"hook_event_name": "Stop", "session_id": "t"}, has_result=True, now=T0)
    assert start == _start()
    assert (out["agent_stopped_at"], hold) == (T0, False)


@given(hooks)
def test_agent_prompted_at_is_the_first_prompt_kept(sequence: list[tuple[str, bool, bool]]) -> None:
    """From the first UserPromptSubmit on, the agent's native session has a conversation to resume."""
    payload, first = _start(), None
    for i, (event, active, has_result) in enumerate(sequence):
        doc = {"hook_event_name": event, "session_id": "thread-1", "stop_hook_active": active}
        now = add_ms(T0, i)
        payload, _ = next_payload(payload, ARGS, doc, has_result=has_result, now=now)
        if event == "UserPromptSubmit":
            first = first or now
        assert payload.get("agent_prompted_at") == first
