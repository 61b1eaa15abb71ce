"""Delivery's witness that the agent took the instruction oms typed
(`services/launcher.HookWitness`), against the hooks a broker records (`WorkerDoors.hook`, what
`oms worker supervise` serves) on a real state root, the test's clock standing in for time.

Claude Code fires SessionStart once started; on a loaded machine that hook lands after oms typed,
with the text still in the composer (its Enter read as a newline). Only a prompt taken after the
typing witnesses it: a UserPromptSubmit, or Codex's SessionStart (Codex fires it at its first turn,
and `/goal` fires no UserPromptSubmit)."""

from __future__ import annotations

from oms.canonical import next_after
from oms.domain import sessions
from oms.services.delivery.launch import HookWitness
from oms.services.delivery.service import Delivery
from oms.services.workspace import SYSTEM_ACTOR
from oms.store.payloads import as_json
from tests.agent_side import Bound, bind
from tests.chain import Chain
from tests.integration.test_runaway_agents import ClockedDoors

READY_MS = 1500  # from the session's registration to the typing: the CLI became ready


def _registered(chain: Chain) -> Bound:
    """An accepted dispatch, its session registered as delivery registers it, before the typing."""
    found = bind(chain)
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(found.dispatch_id)
        now = ws.now()
        nxt = sessions.register(
            dispatch=dispatch.payload,
            dispatch_id=found.dispatch_id,
            mode="pane",
            pane_id=None,
            source_event_id=found.event_id,
            now=now,
        )
        ws.store.records("session").create(
            found.session_id,
            state=nxt.state,
            payload=as_json(nxt.payload),
            operation_id="test-register",
            actor=SYSTEM_ACTOR,
            observed_at=now,
        )
    return found


def _witness(bound: Bound) -> HookWitness:
    bound.chain.clock.ms += READY_MS
    witness = HookWitness(Delivery.open(bound.chain.workspace()), bound.dispatch_id)
    witness.typing()
    return witness


def test_a_session_start_after_the_typing_is_no_witness(chain: Chain) -> None:
    """The real-CLI finding: Claude Code's SessionStart came after the typing and passed for the
    prompt taken, so the second Enter was never pressed and the worker idled until parked."""
    bound = _registered(chain)
    doors = ClockedDoors(bound, "claude")
    witness = _witness(bound)
    doors.fire("SessionStart")  # the first Enter became a newline: the text stays in the composer
    assert witness.taken() is False
    doors.fire("UserPromptSubmit")  # the second Enter sent it
    assert witness.taken() is True


def test_a_relaunched_agents_continuation_is_witnessed(chain: Chain) -> None:
    """A relaunched Claude Code took a prompt before (`agent_prompted_at` is set): its
    continuation's UserPromptSubmit, within the beat of its SessionStart, is recorded at once all
    the same."""
    bound = _registered(chain)
    doors = ClockedDoors(bound, "claude")
    doors.fire("SessionStart")
    doors.fire("UserPromptSubmit")
    doors.fire("Stop")
    chain.clock.ms += 60_000  # its pane ended; `oms worker resume` relaunches it (native session)
    with chain.workspace() as ws:
        records = ws.store.records("session")
        session = records.read(bound.session_id)
        assert session.payload["agent_prompted_at"] is not None
        now = next_after(session.observed_at, ws.now())
        nxt = sessions.relaunch(session.state, session.payload, pane_id="%1", now=now)
        records.transition(
            bound.session_id,
            expected_version=session.version,
            state=nxt.state,
            payload=as_json(nxt.payload),
            operation_id="test-relaunch",
            actor=SYSTEM_ACTOR,
            observed_at=now,
        )
    witness = _witness(bound)
    doors.fire("SessionStart")  # `claude --resume` started
    assert witness.taken() is False
    doors.fire("UserPromptSubmit")  # CONTINUE taken, 250 ms later: the beat is not due
    assert witness.taken() is True


def test_codex_goal_is_witnessed_by_its_session_start(chain: Chain) -> None:
    """`/goal <instruction>` fires no UserPromptSubmit: Codex's SessionStart, fired at its first
    turn, is its witness."""
    bound = _registered(chain)
    doors = ClockedDoors(bound, "codex")
    witness = _witness(bound)
    assert witness.taken() is False
    doors.fire("SessionStart")
    assert witness.taken() is True


def test_a_prompt_before_the_typing_is_no_witness(chain: Chain) -> None:
    bound = _registered(chain)
    doors = ClockedDoors(bound, "claude")
    doors.fire("SessionStart")
    doors.fire("UserPromptSubmit")
    witness = _witness(bound)
    assert witness.taken() is False
