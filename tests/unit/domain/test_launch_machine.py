"""The launch machine (`domain/launch.py`) under every order of outcomes the shell can see: each
step done or refused, the pane created or reused, a stop meanwhile, an activation that fails with
its pane alive or dead, a fence that lapsed. Whatever happens, a launch ends in exactly one
terminal effect; nothing is asked of it afterwards; a pane this launch created and did not finish
registering is ended; a pane another launcher made is never ended nor typed into; a lapsed
attempt is never made healthy; only an accepted dispatch gets as far as its first step."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from oms.domain import launch as machine
from oms.domain.delivery import PaneSeen
from oms.errors import MESSAGE_LIMIT, IllegalTransitionError

S = machine.Step


class LaunchMachine(RuleBasedStateMachine):
    """The shell, each step's outcome drawn at random."""

    def __init__(self) -> None:
        super().__init__()
        self.state: machine.State | None = None
        self.effects: list[machine.Effect] = []
        self.pending: machine.Step | None = None
        self.created: bool | None = None
        self.registered_session = False
        self.lapsed = False

    def _take(self, effects: list[machine.Effect]) -> None:
        self.effects += effects
        runs = [e for e in effects if isinstance(e, machine.Run)]
        self.pending = runs[-1].step if runs else None

    def _tell(self, event: machine.Event) -> None:
        assert self.state is not None
        self.state, effects = machine.decide(self.state, event)
        self._take(effects)

    @initialize(roll=st.integers(0, 3))
    def start(self, roll: int) -> None:
        accepted = roll != 0
        self.state, effects = machine.start("dsp-1", "accepted" if accepted else "resolved")
        self._take(effects)
        if not accepted:
            assert effects == [machine.Refuse(effects[0].message, "")]  # type: ignore[union-attr]

    @precondition(lambda self: self.pending is not None)
    @rule(roll=st.integers(0, 3), data=st.data())
    def outcome(self, roll: int, data: st.DataObject) -> None:
        ok = roll != 0  # most steps succeed: the long paths are walked too
        step = self.pending
        assert step is not None
        if step is S.RESERVATION:
            health = "healthy" if ok else data.draw(st.sampled_from(["parked", "stopped"]))
            state = "idle" if ok else data.draw(st.sampled_from(["idle", "working", "done"]))
            self._tell(machine.Reservation(state, health))
        elif step is S.PANE and ok:
            status = data.draw(st.sampled_from(["created", "reused"]))
            self.created = status == "created"
            self._tell(machine.PaneStarted(status))
        elif step is S.STOP_CHECK:
            self._tell(machine.StopSeen(None if ok else "stopped by a person"))
        elif step is S.ACTIVATE and not ok:
            pane = data.draw(
                st.sampled_from(
                    [None, PaneSeen("%1", False, None, None), PaneSeen("%1", True, 1, None)]
                )
            )
            self._tell(machine.ActivationFailed("no prompt taken", pane))
        elif step is S.FENCE:
            self.lapsed = not ok
            self._tell(machine.FenceSeen(None if ok else "attempt fenced: the lease expired"))
        elif ok or step not in machine.DECIDES_FAILURE:
            if step is S.REGISTER_SESSION:
                self.registered_session = True
            registry = step is S.REGISTER_PANE and data.draw(st.booleans())
            prompted = step is S.PREPARE and data.draw(st.booleans())
            self._tell(machine.Done(step, prompted=prompted, registry=registry))
        else:
            self._tell(machine.Failed(step, "refused"))

    @precondition(lambda self: self.pending is None)
    @rule(step=st.sampled_from(list(S)))
    def told_after_its_end(self, step: machine.Step) -> None:
        assert self.state is not None
        with pytest.raises(IllegalTransitionError):  # an ended launch decides nothing more
            machine.decide(self.state, machine.Done(step))

    @invariant()
    def at_most_one_end_and_nothing_after_it(self) -> None:
        ends = [i for i, e in enumerate(self.effects) if isinstance(e, machine.TERMINAL)]
        assert len(ends) <= 1
        if ends:
            assert ends[0] == len(self.effects) - 1  # the last effect: nothing after it
            assert self.state is not None
            assert self.state.over
            assert self.pending is None

    @invariant()
    def running_or_ended(self) -> None:
        if self.state is not None:  # a launch never stops half-way: it runs a step or it ended
            assert (self.pending is None) == self.state.over

    @invariant()
    def nothing_half_launched(self) -> None:
        ends = [e for e in self.effects if isinstance(e, machine.TERMINAL)]
        panes = [e for e in self.effects if isinstance(e, (machine.EndPane, machine.StopPane))]
        if self.created is False:
            assert not panes  # another launcher's pane is theirs
            assert machine.Run(S.ACTIVATE) not in self.effects  # its creator types the prompt
        if self.created and ends and not self.registered_session:
            assert panes  # a pane this launch made and could not register is ended

    @invariant()
    def a_lapsed_attempt_is_never_made_healthy(self) -> None:
        if self.lapsed:
            assert machine.Run(S.UNPARK) not in self.effects
            assert isinstance(self.effects[-1], machine.FenceParked)

    @invariant()
    def a_park_at_or_after_the_pane_names_the_way_back(self) -> None:
        for effect in self.effects:  # a park keeps no hint: its reason says what a person does
            if isinstance(effect, machine.Park) and effect.op in ("wkr-lch-park", "wkr-reg-park"):
                assert "`oms worker resume dsp-1`" in effect.reason


LaunchMachine.TestCase.settings = settings(max_examples=500, stateful_step_count=20, deadline=None)
TestLaunchMachine = LaunchMachine.TestCase


@given(st.sampled_from(list(S)), st.sampled_from(list(S)))
def test_an_outcome_of_another_step_is_refused(at: machine.Step, told: machine.Step) -> None:
    state = machine.State("dsp-1", at)
    if at is not told:
        with pytest.raises(IllegalTransitionError):
            machine.decide(state, machine.Done(told))


@pytest.mark.parametrize("length", [0, 40, 600])
def test_a_pane_that_vanished_parks_naming_the_resume_however_long_its_message(length: int) -> None:
    """A pane killed right after it was made parks the worker: the reason, cut to the longest
    message, still ends with the command that starts it again (found by the kill-anywhere test)."""
    state = machine.State("dsp-1", S.PANE)
    message = "tmux pane for dsp-1 vanished right after it was created" + "x" * length
    _, effects = machine.decide(state, machine.Failed(S.PANE, message))
    (park,) = effects
    assert isinstance(park, machine.Park)
    assert park.reason.endswith("`oms worker resume dsp-1` starts it again in a new pane")
    assert len(park.reason) <= MESSAGE_LIMIT
