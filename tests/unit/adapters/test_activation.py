"""`adapters/activation.Tui` driven by a fake clock and a fake pane: no tmux, no real sleep."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from oms.adapters.activation import ActivationError, Tui
from oms.adapters.panes import Pane
from oms.adapters.providers.base import CONTINUE, LaunchPlan
from oms.limits import LIMITS

PLAN = LaunchPlan(
    native_action="claude",
    argv=("claude",),
    cwd="/w",
    env={},
    prompt="do the ticket",
    ready_marks=("READY",),
    busy_mark="esc to interrupt",
    park_keys=(("Escape",), ("C-u",)),
)
COMMAND = LaunchPlan(native_action="command", argv=("run",), cwd="/w", env={})


@dataclass
class Clock:
    """Time moves only when something sleeps."""

    now: float = 0.0
    slept: list[float] = field(default_factory=list)

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@dataclass
class Screen:
    """A pane whose text is a function of the keys typed so far and the time."""

    clock: Clock
    show: Callable[[list[tuple[str, ...]], float], str]
    alive: bool = True
    typed: list[tuple[str, ...]] = field(default_factory=list)

    def observe(self, dispatch_id: str) -> Pane | None:
        return Pane(dispatch_id, dispatch_id, "%1", 4242, not self.alive, None, None)

    def capture(self, dispatch_id: str) -> str:
        return self.show(self.typed, self.clock.now)

    def send_text(self, dispatch_id: str, text: str) -> None:
        self.typed.append(("-l", text))

    def send_keys(self, dispatch_id: str, *keys: str) -> None:
        self.typed.append(keys)


class Witness:
    def __init__(
        self,
        taken_after: int | None = None,
        listed_at: float | None = 0.0,
        clock: Clock | None = None,
    ) -> None:
        self.taken_after = taken_after  # polls before the hook is heard (None: never)
        self.listed_at = listed_at  # when the broker notes the bridge's tools/list (None: never)
        self.clock = clock
        self.polls = 0
        self.typing_calls = 0
        self.typed_at: float | None = None

    def listed(self) -> bool:
        now = 0.0 if self.clock is None else self.clock.now
        return self.listed_at is not None and now >= self.listed_at

    def typing(self) -> None:
        self.typing_calls += 1
        self.typed_at = None if self.clock is None else self.clock.now

    def pressing(self) -> None:
        return None

    def taken(self) -> bool:
        self.polls += 1
        return self.taken_after is not None and self.polls > self.taken_after


def _tui(
    show: Callable[[list[tuple[str, ...]], float], str], *, alive: bool = True
) -> tuple[Tui, Screen, Clock]:
    clock = Clock()
    screen = Screen(clock, show, alive)
    return Tui(screen, clock), screen, clock


def test_types_once_ready_then_confirms_by_the_hook() -> None:
    tui, screen, clock = _tui(lambda _typed, now: "READY" if now >= 1.0 else "starting")
    witness = Witness(taken_after=2)
    tui.activate(PLAN, "dsp-1", witness)
    assert screen.typed == [("-l", "do the ticket"), ("Enter",)]
    assert witness.typing_calls == 1
    assert (
        clock.slept[clock.slept.index(LIMITS.enter_pause_s) - 1] != LIMITS.enter_pause_s
    )  # waited for ready, then paused
    assert clock.now < 10  # no real time passed: only the fake clock moved


def test_nothing_is_typed_before_the_agent_has_listed_the_tools() -> None:
    """A CLI shows its ready screen before its MCP servers are up: typed then, the first turn goes
    to the model without oms's tools (`No such tool available: read_dispatch`)."""
    tui, screen, clock = _tui(lambda _typed, _now: "READY")  # ready from the start
    witness = Witness(taken_after=0, listed_at=2.0, clock=clock)
    tui.activate(PLAN, "dsp-1", witness)
    assert screen.typed == [("-l", "do the ticket"), ("Enter",)]
    assert witness.typed_at is not None
    assert 2.0 <= witness.typed_at < 2.1  # typed once the bridge had listed its tools, not before


def test_tools_never_listed_fail_at_the_ready_deadline_with_the_reason() -> None:
    tui, screen, clock = _tui(lambda _typed, _now: "READY")
    witness = Witness(taken_after=0, listed_at=None, clock=clock)
    with pytest.raises(ActivationError) as raised:
        tui.activate(PLAN, "dsp-1", witness)
    assert raised.value.message == (
        "the agent did not list oms's tools within 30s (its MCP bridge did not start)"
    )
    assert "\n" not in raised.value.message
    assert screen.typed == []  # nothing typed: the instruction waits for the tools
    assert witness.typing_calls == 0
    assert 30 < clock.now < 31


def test_the_busy_mark_confirms_too() -> None:
    tui, screen, _ = _tui(
        lambda typed, _now: "READY esc to interrupt" if ("Enter",) in typed else "READY"
    )
    tui.activate(PLAN, "dsp-1", Witness())
    assert screen.typed == [("-l", "do the ticket"), ("Enter",)]


def test_a_second_enter_when_the_first_became_a_newline() -> None:
    def show(typed: list[tuple[str, ...]], _now: float) -> str:
        return "READY esc to interrupt" if typed.count(("Enter",)) == 2 else "READY"

    tui, screen, _ = _tui(show)
    tui.activate(PLAN, "dsp-1", Witness())
    assert screen.typed == [("-l", "do the ticket"), ("Enter",), ("Enter",)]


def test_never_ready_fails_after_the_ready_timeout() -> None:
    tui, screen, clock = _tui(lambda _typed, _now: "starting")
    with pytest.raises(ActivationError, match="did not become ready within 30s"):
        tui.activate(PLAN, "dsp-1", Witness())
    assert screen.typed == []
    assert 30 < clock.now < 31


def test_busy_screen_is_not_ready() -> None:
    tui, screen, _ = _tui(lambda _typed, _now: "READY esc to interrupt")
    with pytest.raises(ActivationError, match="ready"):
        tui.activate(PLAN, "dsp-1", Witness())
    assert screen.typed == []


def test_not_taken_fails_after_two_enters() -> None:
    tui, screen, clock = _tui(lambda _typed, _now: "READY")
    with pytest.raises(ActivationError, match="did not take the instruction"):
        tui.activate(PLAN, "dsp-1", Witness())
    assert screen.typed == [("-l", "do the ticket"), ("Enter",), ("Enter",)]
    assert clock.now == pytest.approx(2 * LIMITS.enter_pause_s + 5.0 + 15.0, abs=0.2)


def test_a_hook_heard_late_after_the_second_enter_is_taken() -> None:
    """On a loaded machine the prompt hook came after the first window (5 s) and its Enter: the
    second Enter waits longer (15 s) for it, rather than parking the worker for a person."""
    tui, screen, clock = _tui(lambda _typed, _now: "READY")
    witness = Witness(taken_after=int((5.0 + 12.0) / LIMITS.activation_poll_s))
    tui.activate(PLAN, "dsp-1", witness)
    assert screen.typed == [("-l", "do the ticket"), ("Enter",), ("Enter",)]
    assert 17.0 < clock.now < 2 * LIMITS.enter_pause_s + 5.0 + 15.0


def test_a_dead_pane_fails_at_once() -> None:
    tui, screen, _ = _tui(lambda _typed, _now: "READY", alive=False)
    with pytest.raises(ActivationError, match="exited before it became ready"):
        tui.activate(PLAN, "dsp-1", Witness())
    assert screen.typed == []


def test_a_command_worker_needs_nothing() -> None:
    tui, screen, clock = _tui(lambda _typed, _now: "")
    tui.activate(COMMAND, "dsp-1", Witness())
    tui.nudge(COMMAND, "dsp-1")
    assert (screen.typed, clock.slept) == ([], [])


@pytest.mark.parametrize(("busy", "expected"), [(True, [("Escape",), ("C-u",)]), (False, [])])
def test_interrupt_only_while_a_turn_runs(busy: bool, expected: list[tuple[str, ...]]) -> None:
    tui, screen, _ = _tui(lambda _typed, _now: "esc to interrupt" if busy else "READY")
    assert tui.interrupt(PLAN, "dsp-1") is busy  # what `oms worker park --json` reports
    assert screen.typed == expected


def test_nudge_types_continue_then_enter() -> None:
    tui, screen, clock = _tui(lambda _typed, _now: "READY")
    tui.nudge(PLAN, "dsp-1")
    assert screen.typed == [("-l", CONTINUE), ("Enter",)]
    assert clock.slept == [LIMITS.enter_pause_s]


GOAL = LaunchPlan(
    native_action="goal",
    argv=("codex",),
    cwd="/w",
    env={},
    prompt="/goal do the ticket",
    resume_prompt="/goal resume",
    busy_mark="esc to interrupt",
    goal_mark="Pursuing goal",
    park_keys=(("Escape",),),
)


@pytest.mark.parametrize(
    ("footer", "expected"),
    [
        ("Pursuing goal (12s)", [("Escape",)]),
        ("Goal paused (/goal resume)", []),
        ("? for shortcuts", []),
    ],
)
def test_interrupt_a_running_goal_between_its_turns(
    footer: str, expected: list[tuple[str, ...]]
) -> None:
    """Codex shows `esc to interrupt` only while a turn renders; its goal runs on between turns
    (issue 11)."""
    tui, screen, _ = _tui(lambda _typed, _now: f"Ask Codex to do anything\n  {footer}")
    tui.interrupt(GOAL, "dsp-1")
    assert screen.typed == expected


def test_nudge_resumes_a_paused_goal() -> None:
    """A plain prompt runs one turn and leaves the goal paused; `/goal resume` resumes it (issue
    11)."""
    tui, screen, _ = _tui(lambda _typed, _now: "Goal paused (/goal resume)")
    tui.nudge(GOAL, "dsp-1")
    assert screen.typed == [("-l", "/goal resume"), ("Enter",)]


def test_a_model_codex_shows_by_its_display_name_is_ready() -> None:
    """Codex 0.171 shows a model it knows by its display name (`gpt-6.2-sol` as `GPT-6.2-Sol
    default`): the ready marks match without case (the first real agent of the user guide never
    became ready before)."""
    plan = LaunchPlan(
        native_action="goal",
        argv=("codex",),
        cwd="/w",
        env={},
        prompt="/goal do the ticket",
        ready_marks=("for agents", " gpt-6.2-sol "),
        busy_mark="esc to interrupt",
    )
    screen_text = (
        "\u203a Ask Codex to do anything\n  GPT-6.2-Sol default \u00b7 /w\n"
        "  \u2190 for agents \u00b7 ? for shortcuts"
    )
    tui, screen, _ = _tui(
        lambda typed, _now: screen_text + (" esc to interrupt" if ("Enter",) in typed else "")
    )
    tui.activate(plan, "dsp-1", Witness())
    assert screen.typed == [("-l", "/goal do the ticket"), ("Enter",)]
