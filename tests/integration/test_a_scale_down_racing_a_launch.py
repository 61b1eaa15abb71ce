"""A scale-down that comes while the tick goes on with a slot's chain (ADR 0016, amendment
`drainfirst`, attack `drainrace`). The tick read which slots drain once, before the held tickets'
chains; a `oms pool scale` that made a slot drain after that read — while the tick's advisor
reviewed that slot's proposal (a model call), or while it accepted it — found no worker running
there (nothing for `--force` to park) and the tick went on to launch the agent in the draining
slot: two agents in a pool of one. Now the chain asks the pool again just before it delivers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from oms.domain import conductor as conductor_rules
from oms.services.chain import dispatches, tickets
from oms.services.conductor import pool, work
from tests.chain import Chain, use_worker
from tests.integration.test_an_approval_outlasts_a_rest import (
    _approved,
    _needs_person,
    _paths_fault,
    _tick,
)


@pytest.mark.parametrize("force", [True, False])
def test_a_scale_down_during_the_accept_launches_nothing_in_the_draining_slot(
    chain: Chain, force: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    _needs_person(chain)
    with chain.workspace() as ws:
        tickets.add(ws, "One", "do it")
        second = tickets.add(ws, "Two", "do it").record_id
    _tick(chain)  # both leased and proposed, each waiting for a person's approval
    with chain.workspace() as ws:
        assert ws.store.records("ticket").read(second).payload["worker_id"] == "worker-2"
        [waiting] = [
            d for d in ws.store.latest("dispatch").records if d.payload["ticket_id"] == second
        ]
        dispatches.approve(ws, waiting.record_id, person="Ann", rationale="ok")
    accept = dispatches.accept
    plans = []

    def scaled_first(ws: Any, dispatch_id: str, *args: Any, **kwargs: Any) -> Any:
        if dispatch_id == waiting.record_id:  # a person's `oms pool scale --to 1` just now
            plans.append(pool.scale(ws, to=1, up=0, down=0, force=force)[1])
        return accept(ws, dispatch_id, *args, **kwargs)

    monkeypatch.setattr(dispatches, "accept", scaled_first)
    lines = _tick(chain)
    assert [p.draining for p in plans] == [["worker-2"]], plans
    assert not any(x.startswith(f"{second}: ") and "delivered" in x for x in lines), lines
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(waiting.record_id).state == "cancelled"
        ticket = ws.store.records("ticket").read(second)
        assert (ticket.state, ticket.payload.get("failures", [])) == ("open", []), lines
        assert "worker-2 drains" in str(ticket.payload["reason"])
        assert [s["name"] for s in pool.current(ws)["slots"]] == ["worker-1"], lines


class _Killed(BaseException):
    """The conductor dies here (nothing after it runs)."""


def _killed_in_the_give_back(chain: Chain, monkeypatch: pytest.MonkeyPatch, status: str) -> None:
    """A tick whose conductor dies after it cancelled a dispatch with `status`, before the
    ticket's write."""
    end_cancelled = work._end_cancelled

    def killed(*args: Any, **kwargs: Any) -> None:
        if kwargs.get("status") == status:
            raise _Killed
        end_cancelled(*args, **kwargs)

    monkeypatch.setattr(work, "_end_cancelled", killed)
    with pytest.raises(_Killed):
        _tick(chain)
    monkeypatch.setattr(work, "_end_cancelled", end_cancelled)


@pytest.mark.parametrize("scaled_up", [False, True])
def test_a_conductor_killed_inside_the_give_back_counts_nothing_next_tick(
    chain: Chain, monkeypatch: pytest.MonkeyPatch, scaled_up: bool
) -> None:
    """SIGKILLed after the draining slot's dispatch was cancelled, before its ticket's write; the
    next tick — after a person scaled the pool back up (the slot active again), or not — counts
    no attempt: the cancel was a drain's, not a failure."""
    _needs_person(chain)
    with chain.workspace() as ws:
        tickets.add(ws, "One", "do it")
        second = tickets.add(ws, "Two", "do it").record_id
    _tick(chain)
    with chain.workspace() as ws:
        pool.scale(ws, to=1, up=0, down=0, force=True)
    _killed_in_the_give_back(chain, monkeypatch, conductor_rules.DRAINED)
    if scaled_up:
        with chain.workspace() as ws:
            pool.scale(ws, to=2, up=0, down=0, force=False)
    lines = _tick(chain)
    with chain.workspace() as ws:
        ticket = ws.store.records("ticket").read(second)
        assert ticket.payload.get("failures", []) == [], lines
        assert ticket.payload.get("retry_after") is None, lines


def test_a_conductor_killed_inside_a_faults_give_back_counts_nothing_next_tick(
    chain: Chain, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The same cut for a configuration fault's give-back (ADR 0031): an approved dispatch, a
    launch check failing (here the oms executable under a path a command line cannot hold), the
    conductor SIGKILLed after the cancel, before the ticket's write. The next tick, the fault
    still there, counts no attempt: the ticket waits open for a person's fix (before: "retried …
    (failed: needs a person: paths: …)", a failure counted toward quarantine)."""
    ticket_id, _ = _approved(chain, "Approved, then a fault")
    _paths_fault(tmp_path, monkeypatch)
    _killed_in_the_give_back(chain, monkeypatch, conductor_rules.CONFIG)
    lines = _tick(chain)
    with chain.workspace() as ws:
        ticket = ws.store.records("ticket").read(ticket_id)
        assert ticket.payload.get("failures", []) == [], lines
        assert ticket.state == "open", lines
        assert str(ticket.payload["reason"]).startswith("needs a person: paths"), lines


@pytest.mark.parametrize("parks", ["scale", "launch"])
def test_a_forced_scale_down_during_the_launch_parks_the_worker_it_started(
    deliverable: Chain, monkeypatch: pytest.MonkeyPatch, parks: str
) -> None:
    """`oms pool scale --to 1 --force` while the slot's launch is past the chain's last look at
    the pool (its pane started): the scale found that worker still launching, not yet healthy,
    and parked nothing; the launch then made it healthy — an agent running on in a slot a forced
    scale drained (failing before: `healthy`). Now the launch looks at the pool after it made
    the worker healthy, and the scale marks the slot `forced`: whichever looks second parks it
    (`launch`: the scale came before the launch's unpark, and the launch parks its worker;
    `scale`: after it, and the scale parks the worker). A command worker cannot pause: oms's
    park ends its run."""
    from oms.services.delivery import once, registration

    use_worker(deliverable)
    with deliverable.workspace() as ws:
        tickets.add(ws, "One", "do it")
        second = tickets.add(ws, "Two", "do it").record_id
    parked: list[str] = []

    def scale() -> None:  # as `oms pool scale --to 1 --force` does, in its own process
        with deliverable.workspace() as ws:
            _, plan, occupancy = pool.scale(ws, to=1, up=0, down=0, force=True)
            parked.extend(pool.park_draining(ws, occupancy, plan.park))

    def of_second(dispatch: Any) -> bool:
        return bool(dispatch.payload["ticket_id"] == second)

    if parks == "launch":
        register = registration.register_session

        def scaled_meanwhile(d: Any, dispatch: Any, *args: Any) -> Any:
            if of_second(dispatch):
                scale()
            return register(d, dispatch, *args)

        monkeypatch.setattr(registration, "register_session", scaled_meanwhile)
    else:
        looked = once._parked_if_drained

        def scaled_first(d: Any, dispatch: Any, outcome: Any) -> Any:
            if of_second(dispatch):
                scale()
            return looked(d, dispatch, outcome)

        monkeypatch.setattr(once, "_parked_if_drained", scaled_first)
    lines = _tick(deliverable)
    with deliverable.workspace() as ws:
        [dispatch] = [d for d in ws.store.latest("dispatch").records if of_second(d)]
        worker = ws.store.records("worker").read(dispatch.record_id)
    assert [x.split(" until ")[0] for x in parked] == [
        f"worker-2: {dispatch.record_id} is launching: it parks once launched"
        if parks == "launch"
        else f"worker-2: parked {dispatch.record_id}"
    ], lines
    assert f"{second}: {dispatch.record_id} delivered (parked)" in lines  # (then it sees it too)
    assert worker.payload["health"] != "healthy", (lines, worker.payload)
    assert "pool scaled down: worker-2 drains" in str(worker.payload), (lines, worker.payload)
