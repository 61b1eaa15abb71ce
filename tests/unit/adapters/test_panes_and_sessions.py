"""The tmux output parser and the session machine."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.adapters.panes import parse_panes, pieces
from oms.canonical import add_ms
from oms.domain import sessions
from oms.domain.machine import Next
from oms.errors import IllegalTransitionError, InvalidInputError
from oms.schemas.payloads import SessionPayload
from oms.store.payloads import as_json
from tests.helpers import T0, payload


def test_parse_panes() -> None:
    out = (
        "dsp-1\t%3\t4242\t0\t\t\tdsp-1\ndsp-2\t%4\t4243\t1\t3\t\tdsp-2\nother\t%5\t1\t0\t\t\t\n"
        "bad line\n"
    )
    panes = parse_panes(out)
    assert [(p.dispatch_id, p.pane_id, p.pane_pid, p.dead, p.dead_status) for p in panes] == [
        ("dsp-1", "%3", 4242, False, None),
        ("dsp-2", "%4", 4243, True, 3),
    ]


@given(st.text(), st.integers(min_value=4, max_value=64))
def test_pieces_join_to_the_text_each_within_its_bytes(text: str, size: int) -> None:
    """What `send_text` types in pieces is the text, in order, no piece over `size` bytes."""
    cut = pieces(text, size)
    assert "".join(cut) == text
    assert all(0 < len(p.encode("utf-8", "surrogatepass")) <= size for p in cut)


def test_an_untagged_pane_is_its_sessions() -> None:
    """A launcher killed between `new-session` and the tag leaves a pane without one: `Panes.list`
    (which parses with `untagged`) still finds it, as the pane of the dispatch its session is named
    after."""
    out = "dsp-1\t%3\t4242\t0\t\t\tdsp-1\ndsp-2\t%4\t4243\t0\t\t\t\n\t%5\t1\t0\t\t\t\n"
    assert [p.dispatch_id for p in parse_panes(out)] == ["dsp-1"]
    found = parse_panes(out, untagged=True)
    assert [(p.dispatch_id, p.session, p.pane_id, p.dead) for p in found] == [
        ("dsp-1", "dsp-1", "%3", False),
        ("dsp-2", "dsp-2", "%4", False),
    ]


@given(st.text(max_size=300))
def test_parse_panes_never_crashes(text: str) -> None:
    try:
        parse_panes(text)
    except ValueError:
        pass  # tmux's own output; a malformed pid is reported by the caller


def _session() -> Next[SessionPayload]:
    return sessions.register(
        dispatch=payload("dispatch"),
        dispatch_id="dsp-1",
        mode="command",
        pane_id="%1",
        source_event_id="evt-1",
        now=T0,
    )


def test_session_machine() -> None:
    s = _session()
    assert s.payload["heartbeat_deadline_at"] == add_ms(T0, 15 * 60_000)
    with pytest.raises(InvalidInputError, match="future"):
        sessions.park(s.state, as_json(s.payload), until=T0, now=T0)
    parked = sessions.park(s.state, as_json(s.payload), until=add_ms(T0, 5), now=T0)
    with pytest.raises(IllegalTransitionError):
        sessions.heartbeat(parked.state, as_json(parked.payload), now=T0)
    resumed = sessions.resume(parked.state, as_json(parked.payload), now=add_ms(T0, 10))
    assert resumed.state == "running"
    assert resumed.payload["parked_until"] is None
    stopped = sessions.stop(
        resumed.state, as_json(resumed.payload), reason="done\nnow", now=add_ms(T0, 11)
    )
    assert (stopped.state, stopped.payload["stop_reason"]) == ("stopped", "done now")
    with pytest.raises(IllegalTransitionError):
        sessions.resume(stopped.state, as_json(stopped.payload), now=T0)
    with pytest.raises(IllegalTransitionError):
        sessions.stop(stopped.state, as_json(stopped.payload), reason="x", now=T0)


def test_a_relaunch_moves_the_same_session_to_its_new_pane() -> None:
    s = _session()
    parked = sessions.park(s.state, as_json(s.payload), until=add_ms(T0, 5), now=T0)
    held: SessionPayload = {**parked.payload, "stop_blocks": 2, "agent_stopped_at": T0}
    moved = sessions.relaunch(parked.state, as_json(held), pane_id="%9", now=add_ms(T0, 10))
    assert moved.state == "running"
    assert (moved.payload["tmux_pane_id"], moved.payload["parked_until"]) == ("%9", None)
    assert (moved.payload["stop_blocks"], moved.payload["agent_stopped_at"]) == (0, None)
    assert moved.payload["heartbeat_deadline_at"] == add_ms(T0, 10 + 15 * 60_000)
    assert (
        moved.payload["native_session_ref"] == s.payload["native_session_ref"]
    )  # the same conversation
    again = sessions.relaunch(
        moved.state, as_json(moved.payload), pane_id="%10", now=add_ms(T0, 11)
    )
    assert again.payload["tmux_pane_id"] == "%10"
    stopped = sessions.stop(again.state, as_json(again.payload), reason="x", now=add_ms(T0, 12))
    with pytest.raises(IllegalTransitionError):
        sessions.relaunch(
            stopped.state, as_json(stopped.payload), pane_id="%11", now=add_ms(T0, 13)
        )
