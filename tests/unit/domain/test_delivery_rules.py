"""`domain/delivery.py`: what an observed pane, an exit record and a kill marker mean; what a failed
launch step leaves; what park and resume may do — table-driven, no tmux, no files."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import pytest

from oms.canonical import JsonObject, add_ms
from oms.domain import delivery as rules
from oms.domain import workers
from oms.domain.delivery import AfterEnsure, PaneSeen, ResumeKeys, ResumeWay
from oms.domain.gate import NO_RESULT
from oms.errors import InvalidInputError
from oms.store.payloads import as_json
from tests.helpers import T0, payload

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload

LIVE = PaneSeen("%1", False, None, None)
DEAD_3 = PaneSeen("%1", True, 3, None)
DEAD_SIG = PaneSeen("%1", True, None, 9)
DEAD_UNKNOWN = PaneSeen("%1", True, None, None)
REGISTRY: JsonObject = {"pane_id": "%7", "pane_pid": 4242}
EXIT_0: JsonObject = {"status": 0, "signal": None}
EXIT_SIG: JsonObject = {"status": None, "signal": 15}
KILL: JsonObject = {"reason": "test is over", "by": "oms-cli"}


def _alive(pgid: int) -> bool:
    return True


def _gone(pgid: int) -> bool:
    return False


@pytest.mark.parametrize(
    ("health", "pane", "registry", "ended", "kill", "alive", "expected"),
    [
        ("healthy", LIVE, None, None, None, _gone, None),  # a live pane has not ended
        ("stopped", DEAD_3, None, None, None, _gone, None),  # recorded already
        (
            "healthy",
            None,
            None,
            None,
            None,
            _gone,
            None,
        ),  # never launched (or stopped and forgotten)
        ("healthy", None, REGISTRY, None, None, _alive, None),  # a tmux hiccup: its processes live
        (
            "healthy",
            DEAD_3,
            None,
            None,
            KILL,
            _gone,
            ("stopped", "test is over (by oms-cli)", "%1"),
        ),
        (
            "healthy",
            DEAD_3,
            None,
            EXIT_SIG,
            None,
            _gone,
            ("signal", "the agent was killed by signal 15", "%1"),
        ),
        # the supervisor records every end it lives to see: a pane that ended without one lost its
        # parent
        (
            "healthy",
            DEAD_SIG,
            None,
            None,
            None,
            _gone,
            (
                "parent-gone",
                "the agent's supervisor was killed by signal 9 before it recorded the end",
                "%1",
            ),
        ),
        (
            "healthy",
            DEAD_3,
            None,
            EXIT_0,
            None,
            _gone,
            ("exit", "the agent exited with status 0", "%1"),
        ),
        (
            "healthy",
            DEAD_3,
            None,
            None,
            None,
            _gone,
            (
                "parent-gone",
                "the agent's supervisor exited with status 3 without recording the end",
                "%1",
            ),
        ),
        (
            "parked",
            DEAD_UNKNOWN,
            None,
            None,
            None,
            _gone,
            ("parent-gone", "the agent's supervisor ended without recording the end", "%1"),
        ),
        (
            "healthy",
            None,
            REGISTRY,
            EXIT_0,
            None,
            _alive,  # not asked: the supervisor recorded the end
            ("exit", "the agent exited with status 0; its tmux pane is gone", "%7"),
        ),
        (
            "healthy",
            None,
            REGISTRY,
            None,
            None,
            _gone,
            (
                "parent-gone",
                "the pane and every process in it are gone (the end was not recorded)",
                "%7",
            ),
        ),
    ],
)
def test_end_of(
    health: str,
    pane: PaneSeen | None,
    registry: JsonObject | None,
    ended: JsonObject | None,
    kill: JsonObject | None,
    alive: Callable[[int], bool],
    expected: tuple[str, str, str] | None,
) -> None:
    end = rules.end_of(
        health=health, pane=pane, registry=registry, ended=ended, kill=kill, group_alive=alive
    )
    assert (None if end is None else tuple(end)) == expected


def test_group_liveness_is_asked_only_when_it_decides() -> None:
    asked: list[int] = []

    def spy(pgid: int) -> bool:
        asked.append(pgid)
        return False

    rules.end_of(
        health="healthy", pane=DEAD_3, registry=None, ended=None, kill=None, group_alive=spy
    )
    rules.end_of(
        health="healthy", pane=None, registry=REGISTRY, ended=EXIT_0, kill=None, group_alive=spy
    )
    assert asked == []
    rules.end_of(
        health="healthy", pane=None, registry=REGISTRY, ended=None, kill=None, group_alive=spy
    )
    assert asked == [4242]


@pytest.mark.parametrize(
    ("status", "prompted", "expected"),
    [
        ("created", True, AfterEnsure.ACTIVATE),
        ("created", False, AfterEnsure.ACTIVATE),
        (
            "reused",
            True,
            AfterEnsure.PARK_PENDING,
        ),  # never typed twice: another launcher made the pane
        ("reused", False, AfterEnsure.NOTHING),
    ],
)
def test_only_the_creator_types_the_instruction(
    status: str, prompted: bool, expected: AfterEnsure
) -> None:
    assert rules.after_ensure(status, prompted=prompted) is expected


@pytest.mark.parametrize("created", [True, False])
@pytest.mark.parametrize("step", sorted(rules.STEPS))
def test_a_failure_after_the_pane_ends_only_our_pane_and_names_the_step(
    step: str, created: bool
) -> None:
    after = rules.after_pane_failure(step, "panes/x.json is not\nvalid", created=created)
    assert after.end_pane is created
    assert after.reason == f"{rules.STEPS[step]} failed: panes/x.json is not valid"


@pytest.mark.parametrize(
    ("pane", "expected"),
    [(LIVE, None), (DEAD_3, "exit"), (DEAD_UNKNOWN, "exit"), (None, "stopped")],
)
def test_after_failed_activation(pane: PaneSeen | None, expected: str | None) -> None:
    assert rules.after_failed_activation(pane) == expected


def test_a_pane_gone_with_its_tmux_server_is_a_failed_attempt_not_a_stop() -> None:
    assert rules.after_failed_activation(None, server_gone=True) == "exit"  # retried (ADR 0029)
    assert rules.after_failed_activation(LIVE, server_gone=True) is None


UNTIL = add_ms(T0, 60_000)


@pytest.mark.parametrize(
    ("session", "health", "parked_until", "error"),
    [
        ("running", "healthy", None, None),
        ("stalled", "stalled", None, None),
        ("parked", "parked", UNTIL, None),  # the same park again
        ("parked", "parked", add_ms(UNTIL, 1), "different time"),
        ("stopped", "healthy", None, "from session stopped"),
        ("running", "stopped", None, "from health stopped"),
    ],
)
def test_check_park(session: str, health: str, parked_until: str | None, error: str | None) -> None:
    if error is None:
        rules.check_park(session, health, parked_until, UNTIL)
    else:
        with pytest.raises(InvalidInputError, match=error):
            rules.check_park(session, health, parked_until, UNTIL)


ENDED = rules.End("exit", "the agent was killed by signal 1", "%1")
STOPPING = rules.End("stopped", "e2e over (by oms-cli)", "%1")


@pytest.mark.parametrize(
    ("session", "health", "live", "end", "until", "now", "expected"),
    [
        ("parked", "parked", True, None, UNTIL, UNTIL, ResumeWay.KEYS),
        ("running", "parked", True, None, None, T0, ResumeWay.KEYS),
        (
            "running",
            "healthy",
            False,
            ENDED,
            None,
            T0,
            ResumeWay.NATIVE,
        ),  # its pane ended: relaunched
        ("parked", "parked", False, ENDED, UNTIL, UNTIL, ResumeWay.NATIVE),
        ("parked", "parked", True, None, UNTIL, T0, "not due"),
        ("parked", "parked", False, ENDED, UNTIL, T0, "not due"),
        ("parked", "parked", True, None, None, T0, "not due"),
        (
            "parked",
            "parked",
            False,
            None,
            UNTIL,
            UNTIL,
            "live bound pane",
        ),  # not shown, yet not ended
        (
            "running",
            "healthy",
            False,
            STOPPING,
            None,
            T0,
            "being stopped",
        ),  # `oms worker stop` asked
        ("stopped", "parked", True, None, None, T0, "session stopped and health parked"),
        ("running", "stopped", False, ENDED, None, T0, "health stopped"),
    ],
)
def test_check_resume(
    session: str,
    health: str,
    live: bool,
    end: rules.End | None,
    until: str | None,
    now: str,
    expected: object,
) -> None:
    if isinstance(expected, ResumeWay):
        assert (
            rules.check_resume(
                session, health, pane_live=live, pane_end=end, parked_until=until, now=now
            )
            is expected
        )
    else:
        with pytest.raises(InvalidInputError, match=str(expected)):
            rules.check_resume(
                session, health, pane_live=live, pane_end=end, parked_until=until, now=now
            )


SID = "0b8f4c7e-7a52-4b7e-9a43-3c1f0d6c2a11"
CODEX_ID = "019a0000-1111-7222-8333-444455556666"


@pytest.mark.parametrize(
    ("mode", "activity", "session", "expected"),
    [
        (
            "codex_goal",
            "working",
            {"native_session_ref": CODEX_ID},
            CODEX_ID,
        ),  # its SessionStart reported it
        ("codex_exec", "working", {"native_session_ref": CODEX_ID}, CODEX_ID),  # Codex too
        ("codex_exec", "idle", {"native_session_ref": SID}, "no native session"),
        (
            "codex_goal",
            "idle",
            {"native_session_ref": SID},
            "no native session",
        ),  # Codex never started a turn
        (
            "claude_interactive",
            "working",
            {"native_session_ref": SID, "agent_prompted_at": T0},
            SID,
        ),
        (
            "claude_interactive",
            "idle",
            {"native_session_ref": SID, "agent_prompted_at": None},
            "no native session",
        ),
        (
            "claude_interactive",
            "idle",
            {"native_session_ref": SID},
            "no native session",
        ),  # a session recorded before oms kept it
        (
            "command",
            "working",
            {"native_session_ref": SID, "agent_prompted_at": T0},
            "command worker cannot resume",
        ),
        ("codex_goal", "done", {"native_session_ref": CODEX_ID}, "from activity done"),
        (
            "claude_interactive",
            "blocked",
            {"native_session_ref": SID, "agent_prompted_at": T0},
            "activity blocked",
        ),
    ],
)
def test_native_ref(mode: str, activity: str, session: JsonObject, expected: str) -> None:
    if expected in (SID, CODEX_ID):
        assert rules.native_ref(mode, activity, SID, session) == expected
    else:
        with pytest.raises(InvalidInputError, match=expected) as caught:
            rules.native_ref(mode, activity, SID, session)
        assert "\n" not in str(caught.value)


PROMPTED: JsonObject = {"native_session_ref": SID, "agent_prompted_at": T0}
CODEX: JsonObject = {"native_session_ref": CODEX_ID}
UNPROMPTED: JsonObject = {"native_session_ref": SID}
EXITED = rules.End("exit", "the agent exited with status 0", "%1")
GONE = rules.End("parent-gone", "gone", "%1")
STOPPED = rules.End("stopped", "by a person", "%1")
CLAUDE = "claude_interactive"


@pytest.mark.parametrize(
    ("end", "dispatch", "mode", "activity", "session_state", "session", "kept"),
    [
        (EXITED, "acknowledged", CLAUDE, "working", "running", PROMPTED, True),
        (EXITED, "accepted", "codex_goal", "working", "parked", CODEX, True),
        (GONE, "acknowledged", CLAUDE, "working", "running", PROMPTED, True),
        (STOPPED, "acknowledged", CLAUDE, "working", "running", PROMPTED, False),
        (EXITED, "result-received", CLAUDE, "done", "running", PROMPTED, False),
        (EXITED, "cancelled", CLAUDE, "working", "running", PROMPTED, False),
        (EXITED, "acknowledged", CLAUDE, "working", "stopped", PROMPTED, False),
        (EXITED, "acknowledged", "command", "working", "running", PROMPTED, False),  # no native
        (EXITED, "acknowledged", CLAUDE, "idle", "running", UNPROMPTED, False),
    ],
)
def test_observe_keeps_a_pane_end_resumable_only_where_resume_would_relaunch(
    end: rules.End,
    dispatch: str,
    mode: str,
    activity: str,
    session_state: str,
    session: JsonObject,
    kept: bool,
) -> None:
    """Issue 24: a look (`oms worker observe`) must not take away the native resume it would do:
    the end is kept as a park exactly when no stop asked for it and the agent has a session to
    continue."""
    why = rules.kept_resumable(
        end,
        dispatch_state=dispatch,
        provider_mode=mode,
        activity=activity,
        session_id=SID,
        session_state=session_state,
        session=session,
    )
    assert (why is not None) is kept
    if why is not None:
        assert why.startswith(f"{rules.PANE_ENDED} ({end.detail}): ")
        assert "\n" not in why
        assert len(why) <= 512


@pytest.mark.parametrize(
    ("session", "version", "health", "pending", "prompted", "expected"),
    [
        ("running", 0, "parked", True, True, ResumeKeys.ACTIVATE),  # never took its instruction
        (
            "running",
            0,
            "parked",
            True,
            False,
            ResumeKeys.ACTIVATE,
        ),  # (a command worker: a no-op activation)
        ("running", 1, "parked", True, True, ResumeKeys.NUDGE),
        ("parked", 2, "parked", False, True, ResumeKeys.NUDGE),
        ("parked", 2, "parked", False, False, ResumeKeys.NOTHING),
        ("running", 3, "healthy", False, True, ResumeKeys.NOTHING),
    ],
)
def test_resume_keys(
    session: str, version: int, health: str, pending: bool, prompted: bool, expected: ResumeKeys
) -> None:
    assert (
        rules.resume_keys(session, version, health, activation_pending=pending, prompted=prompted)
        is expected
    )


def _worker(state: str, fields: JsonObject) -> tuple[str, WorkerPayload]:
    nxt = workers.new("dsp-1", payload("dispatch"), updated_at=T0)
    # a real worker's payload with the case's fields over it (values the schema allows)
    return state, cast("WorkerPayload", {**as_json(nxt.payload), **fields})


@pytest.mark.parametrize(
    ("state", "fields", "expected"),
    [
        ("idle", {}, ("blocked", "stopped", "exit", "gone")),
        ("working", {"health": "parked"}, ("blocked", "stopped", "exit", "gone")),
        ("done", {}, ("done", "stopped", "exit", "gone")),  # an ended activity keeps its state
        (
            "done",
            {"end_reason": "result-recorded", "end_detail": "ok"},
            ("done", "stopped", "result-recorded", "ok"),
        ),
        (
            "blocked",
            {"health": "stopped", "end_reason": "exit", "end_detail": "x"},
            None,
        ),  # nothing to change
    ],
)
def test_worker_end(
    state: str, fields: JsonObject, expected: tuple[str, str, str, str] | None
) -> None:
    state, body = _worker(state, fields)
    nxt = workers.end(state, body, now=add_ms(T0, 1), end_reason="exit", detail="gone\n")
    got = (
        None
        if nxt is None
        else (
            nxt.state,
            nxt.payload["health"],
            nxt.payload["end_reason"],
            nxt.payload["end_detail"],
        )
    )
    assert got == expected


def test_an_exit_record_of_another_pane_is_not_this_panes_end() -> None:
    """GAP_STALE_EXIT (ADR 0014): an exit record names the supervisor that wrote it (`pane_pid`); a
    record left by an earlier pane says nothing of the pane tmux shows now, or of the one the
    registry names."""
    stale: JsonObject = {"status": 1, "signal": None, "pane_pid": 1111}
    own: JsonObject = {"status": 0, "signal": None, "pane_pid": 4242}
    dead = PaneSeen("%1", True, 3, None, 4242)
    assert rules.end_of(
        health="healthy", pane=dead, registry=None, ended=stale, kill=None, group_alive=_gone
    ) == (
        "parent-gone",
        "the agent's supervisor exited with status 3 without recording the end",
        "%1",
    )
    assert rules.end_of(
        health="healthy", pane=dead, registry=None, ended=own, kill=None, group_alive=_gone
    ) == (
        "exit",
        "the agent exited with status 0",
        "%1",
    )
    # the pane is gone and its group still lives: an earlier pane's record ends nothing
    assert (
        rules.end_of(
            health="healthy",
            pane=None,
            registry=REGISTRY,
            ended=stale,
            kill=None,
            group_alive=_alive,
        )
        is None
    )
    assert rules.end_of(
        health="healthy", pane=None, registry=REGISTRY, ended=own, kill=None, group_alive=_alive
    ) == (
        "exit",
        "the agent exited with status 0; its tmux pane is gone",
        "%7",
    )


@pytest.mark.parametrize(
    ("parkable", "health", "reason", "halted"),
    [
        (False, "parked", "quota: provider p rests until then", True),  # oms's own park ended it
        (False, "parked", "pool scaled down: slot 2 drains", True),
        (False, "parked", NO_RESULT, False),  # it ended by itself: a person looks
        (False, "healthy", None, False),  # its pane ended by itself
        (False, "stopped", "quota: provider p rests until then", False),
        (True, "parked", "quota: provider p rests until then", False),  # interrupted, not ended
    ],
)
def test_only_oms_s_own_park_of_a_run_that_cannot_pause_keeps_its_pane_s_end_parked(
    parkable: bool, health: str, reason: str | None, halted: bool
) -> None:
    assert rules.halted_park(parkable, health, reason) is halted
