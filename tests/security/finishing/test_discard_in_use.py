"""Attack on `oms result discard` (issue 14, ADR 0021: the worktree goes "not while its worker
runs"): the worktree is the ticket's, shared by its attempts, but discard asks only whether the
worker *of the discarded dispatch* runs. Discarding an expired first attempt while the retry's
worker is live in the same worktree removes that worktree (and the branch) from under it. `oms
worktree gc` asks about every worker of the ticket; discard does not.

Found from outside (issue 14, round 1); it failed before its fix."""

from __future__ import annotations

import pytest

from oms.canonical import access
from oms.errors import ConflictError
from oms.services.chain import dispatches, tickets
from oms.services.delivery.service import Delivery
from oms.services.finishing import finish
from tests.agent_side import bind
from tests.chain import Chain


def test_discarding_an_old_attempt_leaves_the_worktree_a_live_retry_works_in(chain: Chain) -> None:
    first = bind(chain)
    with chain.workspace() as ws:
        Delivery.open(ws).stop(first.dispatch_id, "lease about to expire")
        ticket_id = access.text(
            ws.store.records("dispatch").read(first.dispatch_id).payload, "ticket_id"
        )
    chain.clock.advance(61)
    with chain.workspace() as ws:
        tickets.expire_due(ws)
        tickets.lease(ws, ticket_id, "w2")
        second, _ = dispatches.propose(ws, ticket_id)
        dispatches.review(ws, second.record_id)
        dispatches.accept(ws, second.record_id)
        retry = ws.store.records("dispatch").read(second.record_id).payload
        worker = ws.store.records("worker").read_if_exists(second.record_id)
    assert retry["worktree_path"] == str(
        first.worktree
    )  # one worktree per ticket: the retry works here
    assert worker is not None
    assert worker.payload.get("health") != "stopped"
    with chain.workspace() as ws:
        with pytest.raises(ConflictError, match="still runs in its worktree"):
            finish.discard(ws, first.dispatch_id, "attempt 1 expired")
    assert first.worktree.is_dir(), (
        "discard removed the worktree a live worker of the ticket works in"
    )
