"""Issue 11: a cancelled dispatch launched (`oms worker resume` launched whenever no session existed, and
nothing on that path checked the dispatch's state: accept -> cancel -> resume gave a live pane)."""

from __future__ import annotations

from oms.services import dispatches
from oms.services.delivery import Delivery
from tests.agent_side import snapshot
from tests.chain import Chain, accepted, use_worker
from tests.helpers import OmsCommand


def test_resume_of_a_cancelled_dispatch_launches_nothing(deliverable: Chain, oms: OmsCommand) -> None:
    use_worker(deliverable)
    dispatch_id, _ = accepted(deliverable)
    with deliverable.workspace() as ws:
        dispatches.cancel(ws, dispatch_id, "not wanted any more")
    before = snapshot(deliverable.state)
    done = oms.run(
        "worker", "resume", dispatch_id, "--state-root", str(deliverable.state), "--config-root", str(deliverable.repo)
    )
    assert done.returncode == 1, done.stdout
    assert "the dispatch is cancelled (not wanted any more)" in done.stderr.splitlines()[0]
    assert snapshot(deliverable.state) == before
    with deliverable.workspace() as ws:
        assert Delivery.open(ws).panes.list() == []
