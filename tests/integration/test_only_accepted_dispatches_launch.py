"""Issue 11: a cancelled dispatch launched (`oms worker resume` launched whenever no session
existed, and nothing on that path checked the dispatch's state: accept -> cancel -> resume gave a
live pane)."""

from __future__ import annotations

from oms.services.chain import dispatches
from oms.services.delivery.service import Delivery
from tests.agent_side import snapshot
from tests.chain import Chain, accepted, use_worker
from tests.helpers import OmsCommand


def test_resume_of_a_cancelled_dispatch_launches_nothing(
    deliverable: Chain, oms: OmsCommand
) -> None:
    use_worker(deliverable)
    dispatch_id, _ = accepted(deliverable)
    with deliverable.workspace() as ws:
        dispatches.cancel(ws, dispatch_id, "not wanted any more")
    before = snapshot(deliverable.state)
    done = oms.run(
        "worker",
        "resume",
        dispatch_id,
        "--state-root",
        str(deliverable.state),
        "--config-root",
        str(deliverable.repo),
    )
    assert done.returncode == 1, done.stdout
    assert "the dispatch is cancelled (not wanted any more)" in done.stderr.splitlines()[0]
    assert snapshot(deliverable.state) == before
    with deliverable.workspace() as ws:
        assert Delivery.open(ws).panes.list() == []


def test_resume_launches_only_under_the_deliverers_lock(
    deliverable: Chain, oms: OmsCommand
) -> None:
    """`resume` of a never-launched worker used to launch without the outbox lock `deliver` holds:
    two launchers could both type the instruction. It now takes the same lock (and refuses while it
    is held)."""
    from oms.services.chain.liveness import CONSUMER

    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    roots = ("--state-root", str(deliverable.state), "--config-root", str(deliverable.repo))
    with (
        deliverable.workspace() as ws,
        ws.store.outbox(CONSUMER).lock(event_id),
    ):  # a deliverer at work
        done = oms.run("worker", "resume", dispatch_id, *roots)
        assert done.returncode == 1, done.stdout
        assert "lock" in done.stderr.splitlines()[0]
        assert Delivery.open(ws).panes.list() == []
    done = oms.run(
        "worker", "resume", dispatch_id, *roots, "--json"
    )  # the lock released: it launches
    assert done.returncode == 0, done.stderr
    with deliverable.workspace() as ws:
        assert [p.dispatch_id for p in Delivery.open(ws).panes.list()] == [dispatch_id]
