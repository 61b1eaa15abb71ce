"""The lifecycle's real shells (`delivery/lifecycle.py`, `native_resume.py`: the loops of
`domain/lifecycle.py`) over the in-memory `Panes` of `tests/sim/panes.py`, beside the launch:
random interleavings of deliveries, `oms worker park`, `resume` and `stop`, panes that die, a tmux
server that goes, the observation of an end, failed activations and time passing (a park falls
due), with real git, store and sandbox checks. After every step: nothing done twice — a pane is
started once per attempt, and again only by a person's `resume` that answered it launched (a
worker that never got a session) or relaunched it (`native`) —, and one end per attempt (its
worker stops at most once; an ended worker keeps no live pane)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from oms.canonical import add_ms
from oms.errors import OmsError
from oms.services.delivery.service import Delivery
from tests.chain import Chain, accepted, use_worker
from tests.sim.panes import Crash, MemoryPanes
from tests.sim.test_shells import _Agent, _check_ends

SEEDS = range(6)
STEPS = 40


def _live(panes: MemoryPanes, dispatch_id: str) -> bool:
    pane = panes.observe(dispatch_id)
    return pane is not None and not pane.dead


@pytest.mark.parametrize("seed", SEEDS)
def test_park_resume_and_stop_interleaved_with_pane_deaths_start_once_and_end_once(
    deliverable: Chain, seed: int
) -> None:
    use_worker(deliverable, "silent")
    rng = random.Random(seed)
    launches = [accepted(deliverable, f"Ticket {i}") for i in range(2)]
    dispatch_ids = [d for d, _ in launches]
    panes = MemoryPanes(rng, faults=0.1, crashes=0.3)
    answers: Counter[str] = Counter()
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        d.panes = panes
        d.activator = _Agent(panes)
        for _ in range(STEPS):
            dispatch_id, event_id = rng.choice(launches)
            roll = rng.random()
            before, live = panes.started[dispatch_id], _live(panes, dispatch_id)
            verb = "other"
            try:
                if roll < 0.2:
                    verb = "deliver"
                    d.deliver(event_id)
                elif roll < 0.4:
                    d.park(dispatch_id, "a person parks it", add_ms(ws.now(), 30_000))
                    answers["parked"] += 1
                elif roll < 0.65:
                    verb = "resume"
                    answers[str(d.resume(dispatch_id).get("resumed"))] += 1
                elif roll < 0.75:
                    panes.die(dispatch_id, status=rng.choice((0, 1)))
                elif roll < 0.78:
                    panes.kill_server()
                elif roll < 0.85:
                    d.reconcile(dispatch_id)
                elif roll < 0.95:
                    deliverable.clock.advance(1)  # a park falls due
                else:
                    d.stop(dispatch_id, "a person stopped it", by="ann")
                    answers["stopped"] += 1
            except (OmsError, Crash):
                pass  # a refusal is an answer, a crash leaves what it left: the checks still hold
            started = panes.started[dispatch_id] - before
            if verb == "deliver":  # only the first launch of an attempt starts a pane
                assert started == 0 or (started == 1 and before == 0), f"{dispatch_id}: twice"
            elif verb == "resume":  # a person's resume: one pane, and only when none lives
                assert started == 0 or (started == 1 and not live), f"{dispatch_id}: twice"
            else:
                assert started == 0, f"{dispatch_id}: a pane started by {roll}"
            _check_ends(ws, panes, dispatch_ids)
    assert answers, "no lifecycle request was answered"
