"""Typing into an agent's pane: the instruction that starts its work, and the keys of park and
resume (ADR 0009 "Activation").

Activation waits for the CLI's ready marks (all on screen, its busy mark not) and for the agent to
have oms's tools (the `Witness`: its MCP bridge answered a `tools/list` in this pane — a CLI shows
its ready screen before its MCP servers are up, and a first turn without oms's tools is paid for and
goes wrong), types the instruction, pauses `Limits.enter_pause_s` (Codex reads an Enter within 50 ms
of text as a newline), presses Enter and waits for a sign the agent took it: the `Witness` (its
session records a prompt taken since the text was typed; never Claude Code's SessionStart, which it
fires once started) or the busy mark. Without one it presses Enter once more (the first became a
newline), then gives up (`ActivationError`). A plan without a prompt (a command worker) needs no
activation.

A person's message (`oms worker send`, `say`) is typed the same way, into a busy agent too (the
CLIs queue it for their next turn).

Parking interrupts a turn only while one runs (the busy mark: Escape outside a turn can clear the
composer); resuming tells an interrupted agent to continue.

Nothing here reads a clock or sleeps by itself: a `Clock` is given (`adapters/clock.py`), and the
pane is a `Screen`, so a test drives every loop with fakes. Delivery depends on the `Activator`
protocol and is handed `Tui` — or a fake that fails on demand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from oms.adapters.clock import SYSTEM_CLOCK, Clock
from oms.adapters.panes import Pane
from oms.adapters.providers.base import CONTINUE, LaunchPlan
from oms.errors import OmsError
from oms.limits import LIMITS

if TYPE_CHECKING:
    from collections.abc import Callable


class ActivationError(OmsError):
    """The agent did not become ready, or did not take the instruction."""

    code = "activation"
    hint = (
        "the pane is kept: look at it (`tmux -S <state "
        "root>/tmux.sock attach`), then `oms worker resume`"
    )


class Screen(Protocol):
    """What typing needs of oms's tmux server (`adapters/panes.TmuxPanes`; any `Panes`)."""

    def observe(self, dispatch_id: str) -> Pane | None:
        """The dispatch's pane, alive or dead, if it exists."""
        ...

    def capture(self, dispatch_id: str) -> str:
        """The visible text of the pane."""
        ...

    def send_text(self, dispatch_id: str, text: str) -> None:
        """Type `text` literally."""
        ...

    def send_keys(self, dispatch_id: str, *keys: str) -> None:
        """Press named keys."""
        ...


class Witness(Protocol):
    """Has the agent oms's tools, and did it take what was typed? `listed()` says whether its
    bridge has answered a `tools/list` in this pane (what the broker saw, never what the agent
    says); `typing()` is called just before the text is typed; `taken()` then says whether the
    agent has shown since that it took it (its prompt hook)."""

    def listed(self) -> bool:
        """The agent's bridge listed oms's tools in this pane."""
        ...

    def typing(self) -> None:
        """The text is about to be typed."""
        ...

    def pressing(self) -> None:
        """A key (or the text) is about to reach the pane: raise to press none (a message whose
        end lock was lost meanwhile, `delivery/messages.py`)."""
        ...

    def taken(self) -> bool:
        """The agent showed it took the text."""
        ...


class Activator(Protocol):
    """The keys delivery, park and resume type into an agent's pane."""

    def activate(self, plan: LaunchPlan, dispatch_id: str, witness: Witness) -> None:
        """Make the agent start its work, or raise `ActivationError`."""
        ...

    def interrupt(self, plan: LaunchPlan, dispatch_id: str) -> bool:
        """Interrupt the turn that runs, if one does (park); True if keys were pressed."""
        ...

    def nudge(
        self, plan: LaunchPlan, dispatch_id: str, pressing: Callable[[], None] | None = None
    ) -> None:
        """Tell an interrupted agent to continue (resume); `pressing` is asked before each key
        (raise to press none: the resume's typing lock was lost)."""
        ...

    def say(self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness) -> str:
        """Type a person's message (`oms worker send`) and submit it; how it went (`Tui.say`)."""
        ...


@dataclass
class Tui:
    """The `Activator` of the real agent CLIs' terminal interfaces."""

    screen: Screen
    clock: Clock = field(default=SYSTEM_CLOCK)
    ready_s: float = LIMITS.activation_ready_s
    confirm_s: float = LIMITS.activation_confirm_s
    late_s: float = LIMITS.activation_late_s

    def activate(self, plan: LaunchPlan, dispatch_id: str, witness: Witness) -> None:
        """Wait until ready, type the prompt, press Enter until the agent shows it took it."""
        if plan.prompt is None:  # a command worker starts working by itself
            return
        self._wait_ready(plan, dispatch_id, witness)
        if self._submit(plan, dispatch_id, plan.prompt, witness) is None:
            raise ActivationError(
                "the agent did not take the instruction (no prompt hook, not busy)"
            )

    def say(self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness) -> str:
        """Type a person's message (already cleaned: `domain/messages.clean`) the way the
        instruction is typed, and submit it: "taken" (a prompt hook saw it), "queued" (the agent
        was busy: both CLIs queue a message typed during a turn, and take it as the next user
        turn) or "typed" (neither was seen). A command worker's terminal gets the text and one
        Enter. The agent need not be idle (a Codex goal runs turn after turn), only on screen."""
        pane = self.screen.observe(dispatch_id)
        if pane is None or pane.dead:
            raise ActivationError("the agent's pane ended before the message was typed")
        if plan.prompt is None:
            witness.pressing()
            self.screen.send_text(dispatch_id, text)
            witness.pressing()
            self.screen.send_keys(dispatch_id, "Enter")
            return "typed"
        busy = self._busy(plan, dispatch_id)
        if busy:  # a busy mark already on screen witnesses nothing: typed once, Enter once
            witness.typing()
            witness.pressing()
            self.screen.send_text(dispatch_id, text)
            self.clock.sleep(LIMITS.enter_pause_s)
            witness.pressing()
            self.screen.send_keys(dispatch_id, "Enter")
            return "queued"
        return self._submit(plan, dispatch_id, text, witness) or "typed"

    def _submit(
        self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness
    ) -> str | None:
        """Type `text`, pause, Enter, and wait for the agent to show it took it: "taken" (its
        prompt hook), "queued" (its busy mark) or None (after a second Enter, nothing). The second
        wait is the longer: an Enter on a prompt already taken submits nothing more, and a loaded
        machine's hook can be late."""
        witness.typing()
        witness.pressing()
        self.screen.send_text(dispatch_id, text)
        for window in (self.confirm_s, self.late_s):  # one more Enter if the first was a newline
            self.clock.sleep(LIMITS.enter_pause_s)
            witness.pressing()
            self.screen.send_keys(dispatch_id, "Enter")
            until = self.clock.monotonic() + window
            while self.clock.monotonic() < until:
                if witness.taken():
                    return "taken"
                if self._busy(plan, dispatch_id):
                    return "queued"
                self.clock.sleep(LIMITS.activation_poll_s)
        return None

    def interrupt(self, plan: LaunchPlan, dispatch_id: str) -> bool:
        """Escape (and the CLI's other park keys) only while a turn or a goal runs (ADR 0009
        "Activation"): Codex shows its busy mark only while a turn renders, its goal mark while the
        goal runs. True if keys were pressed."""
        pane = self.screen.observe(dispatch_id)
        if pane is None or pane.dead or not plan.park_keys:
            return False
        screen = self.screen.capture(dispatch_id)
        if not any(
            mark is not None and mark in screen for mark in (plan.busy_mark, plan.goal_mark)
        ):
            return False
        for keys in plan.park_keys:
            self.screen.send_keys(dispatch_id, *keys)
            self.clock.sleep(LIMITS.enter_pause_s)
        return True

    def nudge(
        self, plan: LaunchPlan, dispatch_id: str, pressing: Callable[[], None] | None = None
    ) -> None:
        """Type the plan's resume prompt (`CONTINUE` unless the CLI has its own: Codex's paused goal
        needs `/goal resume`, a plain prompt runs one turn and leaves it paused) and Enter (a
        prompt-driven agent only); `pressing`, if given, before each key."""
        if plan.prompt is None:
            return
        if pressing is not None:
            pressing()
        self.screen.send_text(dispatch_id, plan.resume_prompt or CONTINUE)
        self.clock.sleep(LIMITS.enter_pause_s)
        if pressing is not None:
            pressing()
        self.screen.send_keys(dispatch_id, "Enter")

    def _wait_ready(self, plan: LaunchPlan, dispatch_id: str, witness: Witness) -> None:
        """Until the ready marks are on screen and the agent's bridge has listed oms's tools, within
        `ready_s`."""
        deadline = self.clock.monotonic() + self.ready_s
        while True:
            pane = self.screen.observe(dispatch_id)
            if pane is None or pane.dead:
                raise ActivationError("the agent exited before it became ready")
            screen = self.screen.capture(dispatch_id)
            shown = (
                screen.casefold()
            )  # (Codex shows a model it knows by its display name: gpt-6.2-sol as GPT-6.2-Sol)
            ready = (
                all(m.casefold() in shown for m in plan.ready_marks)
                and (plan.busy_mark or "\x00") not in screen
            )
            if ready and witness.listed():
                return
            if self.clock.monotonic() > deadline:
                if ready:
                    raise ActivationError(
                        f"the agent did not list oms's tools within {self.ready_s:g}s "
                        "(its MCP bridge did not start)"
                    )
                raise ActivationError(f"the agent did not become ready within {self.ready_s:g}s")
            self.clock.sleep(LIMITS.activation_poll_s)

    def _busy(self, plan: LaunchPlan, dispatch_id: str) -> bool:
        return plan.busy_mark is not None and plan.busy_mark in self.screen.capture(dispatch_id)
