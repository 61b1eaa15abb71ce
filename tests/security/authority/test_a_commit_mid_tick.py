"""A commit that lands between a tick's read of HEAD and its launch (ADR 0042: HEAD read once per
operation, and again for each launch's authority check) is what the launch checks, and what it
would run is what it checked (held: SECURITY.md, what runs is what was approved). The workspace
read HEAD first, as a tick does; the role's argv is then changed and committed; the launch in that
same workspace parks naming `role_argv` and starts no pane."""

from __future__ import annotations

from oms.services.delivery.service import Delivery
from tests.chain import Chain, accepted, use_worker

EVIL = "/bin/echo"


def test_a_commit_between_the_ticks_read_and_its_launch_parks_it(deliverable: Chain) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        ws.next_operation()  # a tick begins: HEAD read once
        before = ws.config()
        deliverable.edit_config(lambda s: s.replace('argv = ["', f'argv = ["{EVIL}", "'))
        deliverable.commit("mid-tick: another program for the role")
        assert ws.config() is before  # the tick's own read: unchanged within it
        delivery = Delivery.open(ws)
        outcome = delivery.deliver(event_id)["outcome"]
        assert isinstance(outcome, dict)
        assert outcome["status"] == "parked", outcome
        assert "role_argv" in str(outcome["reason"])
        assert delivery.panes.list() == []
        assert ws.store.records("worker").read(dispatch_id).payload["health"] == "parked"
