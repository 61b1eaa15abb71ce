"""Two `oms worker resume`s of one parked worker at once (a person's and the conductor's resume
phase, or two people): each read the session parked and decided to nudge, and each typed the
resume prompt into the one pane before either moved the session (the move is the same operation,
so the second took the first's) — the agent was told twice to go on. A resume now types under
the dispatch's typing lock (the one `oms worker send` types under), asked before each key: the
second is refused in one line while the first types, and reads the session running after it."""

from __future__ import annotations

import dataclasses

from oms.adapters.activation import Tui
from oms.adapters.providers.base import LaunchPlan
from oms.canonical import JsonObject, add_ms
from oms.errors import ConflictError
from oms.services.delivery.service import Delivery
from oms.store import Record
from tests.chain import Chain, accepted, use_worker, wait_for


class _Prompted(Delivery):
    """The command worker's plan as a prompted agent's (its resume types the nudge)."""

    def native(self, dispatch: Record) -> LaunchPlan:
        return dataclasses.replace(super().native(dispatch), prompt="work")


def test_two_resumes_at_once_type_one_nudge(deliverable: Chain) -> None:
    chain = deliverable
    out = use_worker(chain, "wait")
    dispatch_id, event_id = accepted(chain)
    with chain.workspace() as ws:
        Delivery.open(ws).deliver(event_id)
    wait_for(out)
    with chain.workspace() as ws:
        Delivery.open(ws).park(dispatch_id, "lunch", add_ms(ws.now(), 60_000))
    chain.clock.advance(2)  # the park is due
    nudged: list[str] = []
    second: list[JsonObject | str] = []

    with chain.workspace() as ws, chain.workspace() as other:
        base = Delivery.open(ws)

        class Meanwhile(Tui):
            """While the first resume types its nudge, a second resume runs."""

            def nudge(self, plan: LaunchPlan, dispatch_id: str, pressing: object = None) -> None:
                nudged.append(dispatch_id)
                if len(nudged) == 1:
                    try:
                        second.append(_Prompted.open(other, activator=self).resume(dispatch_id))
                    except ConflictError as exc:
                        second.append(exc.message)

        first = _Prompted.open(ws, activator=Meanwhile(base.panes)).resume(dispatch_id)
        assert first["session_state"] == "running"
        assert nudged == [dispatch_id]  # one nudge: the second resume typed none
        [refused] = second
        assert isinstance(refused, str)
        assert "being typed" in refused
        base.stop(dispatch_id, "test over")
