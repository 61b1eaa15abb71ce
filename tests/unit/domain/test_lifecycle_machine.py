"""The lifecycle machine (`domain/lifecycle.py`) driven over one attempt by a model of its shells:
park, resume (a fresh launch, keys, or a relaunch on the native session) and stop, interleaved
with the pane dying or vanishing, its process group outliving it, the attempt's authority lapsing
(before a request or while it runs), another launcher making the pane meanwhile, and steps that
fail. Whatever happens: every request ends in exactly one terminal effect and nothing after it;
a pane is started (launched or relaunched) only while none of the attempt lives, and a fresh
launch only while it has no session — never two launches for one attempt; a fenced attempt is
never resumed (no key typed, no pane started, no session resumed, the worker never made
healthy), nor is one whose result was recorded (also while it was parked, or while it resumed);
a stop records the end only once its pane and every process of it ended, and an attempt's end is
recorded once (its work salvaged once)."""

from __future__ import annotations

from typing import Any, cast

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from oms.canonical import JsonObject, add_ms
from oms.domain import delivery
from oms.domain import lifecycle as machine
from oms.domain.delivery import PaneSeen
from oms.errors import IllegalTransitionError
from oms.schemas.payloads import WorkerPayload
from oms.store.payloads import as_json
from tests.helpers import payload

T0 = "2026-12-01T00:00:00.000Z"
DISPATCH = "dsp-1"
SESSION = "ses-1"
LIVE, DEAD, GONE = "live", "dead", "gone"
S = machine.Step


class World:
    """One attempt as the shells see it: the records, the pane, the fence, the clock."""

    def __init__(self, draw: Any) -> None:
        self.draw = draw  # the rule's draw: what each step saw
        self.now = T0
        self.session: JsonObject | None = None
        self.session_state = ""
        self.version = 0
        self.activity = "idle"
        self.worker = cast(
            "WorkerPayload",
            payload("worker", session_id="s" * 32, role_id="worker", updated_at=T0),
        )
        self.pane: str | None = None  # None: never had one
        self.group_alive = False  # a pane tmux no longer shows still has live processes
        self.fence: str | None = None
        self.result = False  # the agent recorded its result (the dispatch is `result-received`)
        self.kill = False
        self.launches = 0
        self.panes_started = 0
        self.ends = 0
        self.salvaged = 0
        self.violations: list[str] = []
        self.requests: list[list[machine.Effect]] = []  # each request's effects, to its end

    def tick(self) -> str:
        self.now = add_ms(self.now, 1000)
        return self.now

    def live(self) -> bool:
        return self.pane == LIVE

    def dispatch_state(self) -> str:
        return "result-received" if self.result else "acknowledged"

    def flag(self, what: str) -> None:
        self.violations.append(what)


class Shell:
    """The shells' IO over `World`: each step answered, each effect applied."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.effects: list[machine.Effect] = []

    def run(self, state: machine.State, effects: list[machine.Effect]) -> machine.Effect:
        """Run a request to its terminal effect (returned)."""
        self.world.requests.append(self.effects)
        while True:
            self.effects += effects
            event: machine.Event | None = None
            for effect in effects:
                if isinstance(effect, machine.TERMINAL):
                    return effect
                event = self.perform(state, effect) or event
            assert event is not None, f"{state.step}: nothing to run"
            state, effects = machine.decide(state, event)

    def perform(self, state: machine.State, effect: machine.Effect) -> machine.Event | None:
        w = self.world
        if isinstance(effect, machine.Run):
            return self.step(state, effect.step)
        if isinstance(effect, machine.MoveSession):
            if w.fence is not None and state.op is machine.Op.RESUME:
                w.flag("a fenced attempt's session was resumed")
            if w.result and state.op is machine.Op.RESUME:
                w.flag("the session of an attempt with a result was resumed")
            w.session_state, w.session = effect.nxt.state, as_json(effect.nxt.payload)
            w.version += 1
            return machine.SessionMoved(w.version)
        if isinstance(effect, machine.MoveWorker):
            healthy = w.worker["health"] == "healthy"
            self.move_worker(effect)
            resumed = not healthy and w.worker["health"] == "healthy"
            if resumed and w.result and state.op is machine.Op.RESUME:
                w.flag("the worker of an attempt with a result was resumed")
        elif isinstance(effect, machine.TypeKeys):
            if w.fence is not None:
                w.flag("keys typed for a fenced attempt")
            if w.result:
                w.flag("keys typed for an attempt with a result")
            if not w.live():
                w.flag("keys typed into a pane that is not live")
        elif isinstance(effect, machine.EndPane):
            w.pane, w.group_alive = GONE, False
        elif isinstance(effect, machine.FencePark):
            if w.worker["health"] == "healthy":
                w.worker = {**w.worker, "health": "parked"}
        elif isinstance(effect, machine.Cleanup):
            w.kill = False
        return None

    def move_worker(self, effect: machine.MoveWorker) -> None:
        w = self.world
        nxt = machine.worker_next(effect, w.activity, w.worker, now=w.tick())
        if nxt is None:
            return
        if effect.move is machine.WorkerMove.END and (
            w.live() or (w.pane == GONE and w.group_alive)
        ):
            w.flag("an end recorded while a process of the pane lives")
        if nxt.payload["health"] == "healthy" and w.fence is not None:
            w.flag("a fenced attempt's worker made healthy")
        if nxt.payload["health"] == "stopped" and w.worker["health"] != "stopped":
            w.ends += 1
        w.activity, w.worker = nxt.state, nxt.payload

    def step(self, state: machine.State, step: machine.Step) -> machine.Event:
        w, draw = self.world, self.world.draw
        if step is S.FENCE:
            return machine.FenceSeen(w.fence, w.dispatch_state())
        if step is S.REFENCE:
            if draw(st.integers(0, 4)) == 0:
                w.fence = "attempt fenced: the lease expired"  # lapsed while it ran
            if state.op is machine.Op.RESUME and draw(st.integers(0, 4)) == 0:
                w.result = True  # recorded while it resumed
            return machine.FenceSeen(w.fence, w.dispatch_state())
        if step is S.SESSION:
            if w.session is None:
                return machine.SessionSeen(SESSION, None)
            return machine.SessionSeen(
                SESSION, w.session_state, w.version, w.now, w.session, "claude", w.tick()
            )
        if step is S.WORKER:
            return machine.WorkerSeen(str(w.worker["health"]), w.activity, w.tick())
        if step is S.PANE:
            if state.op is machine.Op.RELAUNCH and not w.live() and draw(st.booleans()):
                w.pane, w.panes_started = LIVE, w.panes_started + 1  # another resume, meanwhile
            return machine.PaneSeen(w.live(), self.end(), w.tick())
        if step is S.INTERRUPT:
            return machine.Interrupted(w.live())
        if step is S.HALT:
            if w.worker["health"] != "parked" or w.session_state != "parked":
                w.flag("a run halted before its park was recorded")
            if w.pane in (LIVE, DEAD) and draw(st.integers(0, 4)) == 0:
                return machine.Halted(False)  # a frozen process outlived SIGKILL
            if w.pane in (LIVE, DEAD):
                w.pane, w.group_alive = GONE, False  # no kill marker: no stop asked for it
            return machine.Halted(True)
        if step is S.PLAN or step is S.PREPARE:
            return machine.Done(step)
        if step is S.LAUNCH:
            return self.launch()
        if step is S.RELAUNCH:
            relaunched = Shell(w).run(*machine.start_relaunch(DISPATCH))
            if isinstance(relaunched, machine.Fail):
                self.effects.append(relaunched)  # its error is the resume's
                raise _FailedError
            assert isinstance(relaunched, machine.Answer)
            return machine.Relaunched(relaunched.relaunched)
        if step is S.CONTACT:
            return machine.Contact(draw(st.booleans()), draw(st.booleans()))
        if step is S.START_PANE:
            return self.start_pane("relaunch")
        if step is S.REGISTER:
            if draw(st.integers(0, 4)) == 0:
                return machine.Failed(step, "registering the pane failed")
            w.session_state, w.version = "running", w.version + 1
            return machine.SessionMoved(w.version)
        if step is S.ACTIVATE:
            if draw(st.integers(0, 3)) == 0:
                if draw(st.booleans()):
                    w.pane = DEAD
                return machine.Failed(step, "no prompt taken", pane_live=w.live())
            return machine.Done(step)
        if step is S.STOP_PANE:
            w.kill = True
            if w.pane in (LIVE, DEAD) and draw(st.integers(0, 4)) == 0:
                return machine.PaneStopped(False)  # a frozen process outlived SIGKILL
            if w.pane in (LIVE, DEAD):
                w.pane = GONE
            return machine.PaneStopped(True, pgid=4242 if w.pane == GONE else None)
        if step is S.GROUP:
            return machine.GroupSeen(not w.group_alive)
        if step is S.SALVAGE:
            w.salvaged += 1
            return machine.Salvaged({"salvage_ref": "refs/oms/salvage/1"})
        raise AssertionError(step)

    def end(self) -> delivery.End | None:
        w = self.world
        pane = None
        if w.pane in (LIVE, DEAD):
            pane = PaneSeen("%1", w.pane == DEAD, 1 if w.pane == DEAD else None, None, 4242)
        return delivery.end_of(
            health=str(w.worker["health"]),
            pane=pane,
            registry={"pane_id": "%1", "pane_pid": 4242} if w.pane == GONE else None,
            ended=None,
            kill={"reason": "a person stopped it", "by": "ann"} if w.kill else None,
            group_alive=lambda _: w.group_alive,
        )

    def start_pane(self, why: str) -> machine.Event:
        w = self.world
        if w.fence is not None:
            w.flag(f"a pane started ({why}) for a fenced attempt")
        if w.live():
            w.flag(f"a pane started ({why}) beside a live one")
            return machine.PaneStarted("reused")
        if why == "relaunch" and w.draw(st.integers(0, 5)) == 0:
            w.pane, w.panes_started = LIVE, w.panes_started + 1  # another launcher, just now
            return machine.PaneStarted("reused")
        w.pane, w.group_alive, w.panes_started = LIVE, False, w.panes_started + 1
        return machine.PaneStarted("created")

    def launch(self) -> machine.Event:
        w = self.world
        if w.session is not None or w.live():
            w.flag("a fresh launch asked for an attempt that launched")
        if w.activity != "idle" or w.worker["health"] not in ("healthy", "parked"):
            self.effects.append(machine.Fail())  # the launch refuses: its error is the resume's
            raise _FailedError
        how = w.draw(st.integers(0, 4))
        if how == 0:  # refused before its pane (the launch machine parks the worker)
            w.worker = {**w.worker, "health": "parked"}
            return machine.LaunchSeen(False, parked=True, reason="no bubblewrap", remedy=None)
        self.start_pane("launch")
        w.launches += 1
        w.session_state, w.version = "running", 0
        w.session = {
            "native_session_ref": SESSION,
            "agent_prompted_at": w.now if w.draw(st.integers(0, 3)) else None,
            "parked_until": None,
            "last_observed_at": w.tick(),
        }
        if how == 1:  # the activation failed, its pane lives: parked `activation_pending`
            w.worker = {**w.worker, "health": "parked"}
            return machine.LaunchSeen(False, parked=True, reason="no prompt", remedy=None)
        w.worker = {**w.worker, "health": "healthy"}
        return machine.LaunchSeen(False)


class _FailedError(Exception):
    """A relaunch failed (`Fail`): the error the caller sees."""


class LifecycleMachine(RuleBasedStateMachine):
    """Requests and what happens to the pane and the attempt, in any order."""

    def __init__(self) -> None:
        super().__init__()
        self.world: World | None = None

    def _world(self, data: st.DataObject) -> World:
        if self.world is None:
            self.world = World(data.draw)
        self.world.draw = data.draw
        return self.world

    def _request(self, data: st.DataObject, started: tuple[machine.State, list[Any]]) -> None:
        try:
            Shell(self._world(data)).run(*started)
        except _FailedError:
            pass  # a relaunch's failure: its `Fail` ends the resume too

    @rule(data=st.data(), later=st.integers(-5, 60))
    def park(self, data: st.DataObject, later: int) -> None:
        until = add_ms(self._world(data).now, later * 1000)
        self._request(data, machine.start_park(DISPATCH, "a person parks it", until))

    @rule(data=st.data(), later=st.integers(-5, 60))
    def park_halting(self, data: st.DataObject, later: int) -> None:
        """oms's own park of a run that cannot pause: parked, then its run ended."""
        w = self._world(data)
        until = add_ms(w.now, later * 1000)
        shell = Shell(w)
        try:
            answer = shell.run(*machine.start_park(DISPATCH, "quota: rests", until, halts=True))
        except _FailedError:
            return
        if answer == machine.Answer((("parked", "halted"),)) and w.live():
            w.flag("a halted run's pane still lives")

    @rule(data=st.data())
    def resume(self, data: st.DataObject) -> None:
        self._request(data, machine.start_resume(DISPATCH))

    @rule(data=st.data(), again=st.booleans(), roll=st.integers(0, 3))
    def stop(self, data: st.DataObject, again: bool, roll: int) -> None:
        if roll != 3:  # a stop ends the attempt: the other requests get their turns first
            return
        for _ in range(2 if again else 1):
            self._request(data, machine.start_stop(DISPATCH, "a person stopped it", by="ann"))

    @precondition(lambda self: self.world is not None and self.world.worker["health"] == "stopped")
    @rule()
    def next_attempt(self) -> None:
        """The ticket dispatched again: a new attempt, a new world (each checked as it went)."""
        self.world = None

    @rule(data=st.data(), how=st.sampled_from([DEAD, GONE]), group=st.booleans())
    def pane_ends(self, data: st.DataObject, how: str, group: bool) -> None:
        w = self._world(data)
        if w.pane in (LIVE, DEAD):
            w.pane = how
            w.group_alive = how == GONE and group

    @rule(data=st.data())
    def group_ends(self, data: st.DataObject) -> None:
        self._world(data).group_alive = False

    @rule(data=st.data(), lapsed=st.booleans())
    def fence_changes(self, data: st.DataObject, lapsed: bool) -> None:
        self._world(data).fence = "attempt fenced: the lease expired" if lapsed else None

    @rule(data=st.data())
    def result_recorded(self, data: st.DataObject) -> None:
        """The agent records its result, whatever the worker's state (parked too)."""
        self._world(data).result = True

    @rule(data=st.data(), seconds=st.integers(1, 120))
    def time_passes(self, data: st.DataObject, seconds: int) -> None:
        w = self._world(data)
        w.now = add_ms(w.now, seconds * 1000)

    @invariant()
    def one_terminal_effect_per_request_and_nothing_after_it(self) -> None:
        for effects in [] if self.world is None else self.world.requests:
            ends = [i for i, e in enumerate(effects) if isinstance(e, machine.TERMINAL)]
            assert ends == [len(effects) - 1], effects

    @invariant()
    def never_two_launches_for_one_attempt(self) -> None:
        if self.world is not None:
            assert self.world.launches <= 1
            assert not [v for v in self.world.violations if "launch" in v or "pane started" in v]

    @invariant()
    def a_fenced_attempt_is_never_resumed(self) -> None:
        if self.world is not None:
            assert not [v for v in self.world.violations if "fenced" in v]

    @invariant()
    def an_attempt_with_a_result_is_never_resumed(self) -> None:
        if self.world is not None:
            assert not [v for v in self.world.violations if "with a result" in v]

    @invariant()
    def an_end_is_recorded_once_and_only_once_the_pane_ended(self) -> None:
        if self.world is not None:
            w = self.world
            assert w.ends <= 1
            assert w.salvaged <= 1, "an ended attempt's work was salvaged again"
            assert not [v for v in w.violations if "end recorded" in v]
            assert not [v for v in w.violations if "keys typed into" in v]

    @invariant()
    def a_halted_run_was_parked_first_and_left_no_pane(self) -> None:
        if self.world is not None:
            assert not [v for v in self.world.violations if "halted" in v]


LifecycleMachine.TestCase.settings = settings(
    max_examples=300, stateful_step_count=25, deadline=None
)
TestLifecycleMachine = LifecycleMachine.TestCase


def test_a_stop_that_answered_leaves_the_worker_ended() -> None:
    world = World(lambda _: 1)
    world.pane = GONE
    shell = Shell(world)
    answer = shell.run(*machine.start_stop(DISPATCH, "a person stopped it", by="ann"))
    assert answer == machine.Answer()
    assert world.worker["health"] == "stopped"
    assert world.ends == 1


@pytest.mark.parametrize("op", list(machine.Op))
def test_an_event_of_another_step_is_refused(op: machine.Op) -> None:
    state = machine.State(op, DISPATCH, machine.Step.FENCE)
    with pytest.raises(IllegalTransitionError):
        machine.decide(state, machine.Done(machine.Step.SALVAGE))
    with pytest.raises(IllegalTransitionError):
        machine.decide(state._replace(over=True), machine.FenceSeen(None))
