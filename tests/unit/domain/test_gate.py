"""The Stop gate, the bound on a dispatch's life without a result, and which hook payloads are worth
a session version (`domain/gate.py`), over random hook sequences."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import add_ms, parse_ts
from oms.domain.gate import Hook, after, worth_writing
from oms.limits import LIMITS
from oms.provider_names import ENGINES
from oms.schemas.payloads import SessionPayload
from tests.helpers import session_sample

T0 = "2026-11-30T00:00:00.000Z"
EVENTS = ["SessionStart", "UserPromptSubmit", "Stop"]
# (event, stop_hook_active, has_result, transport, milliseconds since the previous hook)
hooks = st.lists(
    st.tuples(
        st.sampled_from(EVENTS),
        st.booleans(),
        st.booleans(),
        st.sampled_from(["codex_goal", "claude_interactive", "codex_exec"]),
        st.integers(0, 600),
    ),
    max_size=60,
)


def _start(max_turns: int = 1000, max_minutes: int = 10_000) -> SessionPayload:
    return session_sample(
        stop_blocks=0,
        agent_stopped_at=None,
        native_session_ref="s-1",
        last_observed_at=T0,
        turns_without_result=0,
        progress_since=T0,
        max_turns_without_result=max_turns,
        max_minutes_without_result=max_minutes,
    )


def _run(
    sequence: list[tuple[str, bool, bool, str, int]], payload: SessionPayload
) -> list[tuple[Any, ...]]:
    out, now = [], T0
    for event, active, has_result, transport, step in sequence:
        now = add_ms(now, step)
        done = after(
            payload,
            Hook(event, ENGINES[transport], "thread-1", active, transport=transport),
            has_result=has_result,
            acknowledged_at=None,
            now=now,
        )
        out.append((event, active, has_result, transport, now, payload, done))
        payload = done.payload
    return out


@given(hooks)
def test_the_gate_holds_no_more_than_its_cap_in_a_row_and_then_stays_open(
    sequence: list[Any],
) -> None:
    run, open_ = 0, False
    for event, active, has_result, _provider, _now, before, done in _run(sequence, _start()):
        assert before == dict(before)  # the input is never edited in place
        if event != "Stop" or has_result:
            assert done.hold is False
            open_ = open_ and event == "Stop"  # a prompt re-arms the gate
            run = run if event == "SessionStart" else 0
        elif (
            open_
        ):  # let through since: a /goal continuation (no stop_hook_active) does not re-arm it
            assert done.hold is False
        else:
            run = run + 1 if active else 1
            assert done.payload["stop_blocks"] == run
            assert done.hold == (not active or run <= LIMITS.stop_blocks)
        open_ = open_ or (event == "Stop" and not done.hold)


@given(hooks)
def test_agent_stopped_at_tells_whether_the_agent_rests(sequence: list[Any]) -> None:
    first_release: str | None = None
    for event, _active, _has_result, transport, now, _before, done in _run(sequence, _start()):
        if event == "Stop" and not done.hold:
            first_release = first_release or now
            assert (
                done.payload["agent_stopped_at"] == first_release
            )  # the first Stop let through, kept
        elif event == "Stop":
            assert done.payload["agent_stopped_at"] is None  # held back: it works on
        else:
            first_release = None
            assert done.payload["agent_stopped_at"] is None  # started or prompted: working
        if event == "SessionStart" and ENGINES[transport] == "codex":
            assert (
                done.payload["native_session_ref"] == "thread-1"
            )  # Codex's own thread id is learned


@given(hooks, st.integers(1, 30))
def test_turns_count_every_stop_without_a_result_and_nothing_resets_them(
    sequence: list[Any], most: int
) -> None:
    turns = 0
    for event, _active, has_result, transport, _now, before, done in _run(
        sequence, _start(max_turns=most)
    ):
        if event == "Stop" and not has_result:
            turns += 1
        assert (
            done.payload["turns_without_result"] == turns
        )  # prompts and goal continuations reset nothing
        if event != "Stop" or has_result:
            assert done.no_result is None
            continue
        capped = (
            before["agent_stopped_at"] is None
            and done.hold is False
            and done.payload["stop_blocks"] > LIMITS.stop_blocks
        )
        # an agent that takes no turn again once let stop (Claude Code, `codex exec`: ADR 0045
        # amendment `ends`) waits for a person at once; a Codex goal goes on
        final = transport in ("claude_interactive", "codex_exec")
        assert (done.no_result is not None) == (turns >= most or (final and capped))
        if done.no_result is not None:
            assert done.hold is False  # the agent is let stop


def test_the_bound_in_minutes_counts_from_the_acknowledgement() -> None:
    payload = _start(max_minutes=30)
    ack = add_ms(T0, 10 * 60_000)
    stop = Hook("Stop", "codex", "thread-1", transport="codex_goal")
    early = after(payload, stop, has_result=False, acknowledged_at=ack, now=add_ms(T0, 39 * 60_000))
    assert (early.hold, early.no_result) == (True, None)
    assert (early.payload["progress_since"], early.payload["turns_without_result"]) == (ack, 1)
    late = after(
        early.payload, stop, has_result=False, acknowledged_at=ack, now=add_ms(T0, 40 * 60_000)
    )
    assert late.hold is False
    assert late.no_result is not None
    assert "max_minutes_without_result = 30" in late.no_result
    assert late.payload["turns_without_result"] == 2  # the acknowledgement restarted the count once


def test_a_session_recorded_before_the_bound_gets_the_defaults() -> None:
    payload = session_sample(stop_blocks=0, agent_stopped_at=None, native_session_ref="s-1")
    assert "progress_since" not in payload
    assert "max_turns_without_result" not in payload
    stop = Hook("Stop", "codex", "thread-1", transport="codex_goal")
    for _ in range(LIMITS.turns_without_result - 1):
        done = after(payload, stop, has_result=False, acknowledged_at=None, now=T0)
        assert done.no_result is None
        payload = done.payload
    assert (
        after(payload, stop, has_result=False, acknowledged_at=None, now=T0).no_result is not None
    )


@given(
    st.lists(st.tuples(st.sampled_from(EVENTS), st.booleans(), st.integers(0, 2000)), max_size=200)
)
def test_a_hook_loop_writes_a_version_per_beat_and_per_change_others_act_on(
    sequence: list[Any],
) -> None:
    written: SessionPayload = _start()
    base: SessionPayload = _start()
    now, first = T0, True
    writes = changes = 0
    for event, active, step in sequence:
        now = add_ms(now, step)
        done = after(
            base,
            Hook(event, "codex", "thread-1", active, transport="codex_goal"),
            has_result=False,
            acknowledged_at=None,
            now=now,
        )
        changed = (
            done.payload.get("native_session_ref") != written.get("native_session_ref")
            or (
                written.get("agent_prompted_at") is None
                and done.payload.get("agent_prompted_at") is not None
            )
            or (
                written.get("agent_stopped_at") is None
                and done.payload.get("agent_stopped_at") is not None
            )
            or (written["stop_blocks"] == 0 and done.payload["stop_blocks"] > 0)
        )
        due = parse_ts(now) >= parse_ts(add_ms(written["last_observed_at"], LIMITS.hook_beat_ms))
        write = worth_writing(written, done.payload, first=first, no_result=False, now=now)
        assert write == (first or changed or due)
        if write:
            writes, changes, first = writes + 1, changes + changed, False
            written = base = {**done.payload, "last_observed_at": now}
        else:
            base = done.payload
    elapsed = parse_ts(now) - parse_ts(T0)
    assert writes <= 1 + changes + elapsed // LIMITS.hook_beat_ms


def test_a_stop_can_end_the_turns_the_broker_answered_unrecorded() -> None:
    stop = Hook("Stop", "codex", "thread-1", turns=7, transport="codex_goal")
    done = after(_start(max_turns=10), stop, has_result=False, acknowledged_at=None, now=T0)
    assert (done.payload["turns_without_result"], done.no_result) == (7, None)
    done = after(done.payload, stop, has_result=False, acknowledged_at=None, now=T0)
    assert done.payload["turns_without_result"] == 14
    assert done.no_result is not None


def test_the_first_prompt_records_when_the_agent_took_one() -> None:
    """From the first UserPromptSubmit the agent's native session has a conversation to resume;
    later prompts keep that first time, and that change is worth a version of its own."""
    prompt = Hook("UserPromptSubmit", "claude", "ses-1", transport="claude_interactive")
    first = after(_start(), prompt, has_result=False, acknowledged_at=None, now=T0)
    assert first.payload["agent_prompted_at"] == T0
    later = after(first.payload, prompt, has_result=False, acknowledged_at=None, now=add_ms(T0, 10))
    assert later.payload["agent_prompted_at"] == T0
    assert worth_writing(_start(), first.payload, first=False, no_result=False, now=T0)


def test_a_prompt_records_when_the_agent_took_it() -> None:
    """Every prompt the agent takes is recorded (`last_prompted_at`): its UserPromptSubmit, and
    Codex's SessionStart, which Codex fires at its first turn (`/goal` fires no UserPromptSubmit).
    Claude Code's SessionStart, fired once it started, and a Stop are no prompt."""
    later = add_ms(T0, 10)
    for hook, prompted in [
        (Hook("UserPromptSubmit", "claude", "ses-1", transport="claude_interactive"), True),
        (Hook("UserPromptSubmit", "codex", "thread-1", transport="codex_goal"), True),
        (Hook("SessionStart", "codex", "thread-1", transport="codex_goal"), True),
        (Hook("SessionStart", "claude", "ses-1", transport="claude_interactive"), False),
        (Hook("Stop", "claude", "ses-1", transport="claude_interactive"), False),
    ]:
        start = _start() | {"last_prompted_at": T0}
        done = after(start, hook, has_result=False, acknowledged_at=None, now=later)
        assert done.payload["last_prompted_at"] == (later if prompted else T0), hook


def _relaunched(prompted_at: str, due: str) -> SessionPayload:
    """A session whose agent took a prompt once, and which oms then started again at `due`."""
    return {
        **_start(),
        "agent_prompted_at": prompted_at,
        "last_prompted_at": prompted_at,
        "prompt_due_at": due,
        "last_observed_at": due,
    }


def _worth(written: SessionPayload, payload: SessionPayload, now: str) -> bool:
    return worth_writing(written, payload, first=False, no_result=False, now=now)


def test_the_first_prompt_after_oms_started_the_agent_is_worth_a_version_at_once() -> None:
    """A relaunched agent's first prompt is what delivery's witness waits for: worth a version
    although the agent took a prompt before and the beat is not due; a later prompt waits for the
    beat again."""
    due = add_ms(T0, 60_000)
    written = _relaunched(T0, due)
    started = Hook("SessionStart", "claude", "ses-1", transport="claude_interactive")
    start = after(written, started, has_result=False, acknowledged_at=None, now=due)
    assert not _worth(written, start.payload, add_ms(due, 10))
    prompt = Hook("UserPromptSubmit", "claude", "ses-1", transport="claude_interactive")
    at = add_ms(due, 20)
    taken = after(start.payload, prompt, has_result=False, acknowledged_at=None, now=at)
    assert _worth(written, taken.payload, at)
    written = {**taken.payload, "last_observed_at": at}
    at = add_ms(due, 30)
    again = after(written, prompt, has_result=False, acknowledged_at=None, now=at)
    assert not _worth(written, again.payload, at)


def _strip(payload: SessionPayload) -> SessionPayload:
    stripped = payload.copy()
    stripped.pop("prompt_due_at", None)
    return stripped


def _since(value: object, due: str) -> bool:
    return isinstance(value, str) and parse_ts(value) >= parse_ts(due)


OMS = "oms"  # in a sequence: oms writes a version that (re)starts the agent (register, relaunch)
steps = st.lists(
    st.tuples(st.sampled_from([*EVENTS, OMS]), st.booleans(), st.integers(0, 2000)),
    max_size=200,
)


TRANSPORT = {"codex": "codex_goal", "claude": "claude_interactive"}


@given(steps, st.sampled_from(["codex", "claude"]))
def test_a_prompt_after_oms_started_the_agent_is_written_at_once_and_forces_one_version(
    sequence: list[Any], provider: str
) -> None:
    """Any sequence of an agent's hooks (issue 11's attack: alternating prompts and Stops) gets at
    most one version beyond the rules it had before per time oms (re)started the agent — and that
    one is the first prompt after it, written at once (delivery's witness reads it)."""
    written: SessionPayload = {**_start(), "prompt_due_at": T0}
    base, now, first, forced = written.copy(), T0, True, 0
    for event, active, step in sequence:
        now = add_ms(now, step + 1)
        if event == OMS:  # its own version supersedes what the broker kept
            written = base = written | {"prompt_due_at": now, "last_observed_at": now}
            first, forced = True, 0
            continue
        hook = Hook(event, provider, "thread-1", active, transport=TRANSPORT[provider])
        done = after(base, hook, has_result=False, acknowledged_at=None, now=now)
        write = worth_writing(written, done.payload, first=first, no_result=False, now=now)
        stripped = _strip(written), _strip(done.payload)
        before = worth_writing(*stripped, first=first, no_result=False, now=now)
        assert write or not before  # the rule only adds versions
        forced += write and not before
        assert forced <= 1
        awaited = not _since(written.get("last_prompted_at"), written["prompt_due_at"])
        if write:
            written = base = {**done.payload, "last_observed_at": now}
            first = False
        else:
            base = done.payload
        prompt = event == "UserPromptSubmit" or (event, provider) == ("SessionStart", "codex")
        if awaited and prompt:
            assert written.get("last_prompted_at") == now  # what the witness waits for, written


def test_an_agent_that_takes_no_turn_again_waits_for_a_person_once_let_stop() -> None:
    """The Stop past the gate's cap: `codex exec` then exits and Claude Code waits for a prompt
    (parked `no_result` at once, ADR 0045 amendment `ends`); a Codex goal takes its next turn."""
    for transport, final in (
        ("codex_exec", True),
        ("claude_interactive", True),
        ("codex_goal", False),
    ):
        payload, now = _start(), T0
        for n in range(LIMITS.stop_blocks + 1):
            now = add_ms(now, 1000)
            stop = Hook("Stop", ENGINES[transport], "thread-1", n > 0, transport=transport)
            done = after(payload, stop, has_result=False, acknowledged_at=None, now=now)
            payload = done.payload
        assert done.released, transport
        assert (done.no_result is not None) == final, transport
