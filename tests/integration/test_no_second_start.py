"""What the protocol model found (ADR 0014, `GAP_*`): no launch gives a stopped worker a running
agent, and no re-delivery starts a second agent for a worker that was already launched. Real git, a
real tmux server on the state root's socket, a real command worker."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from oms.canonical import JsonObject
from oms.errors import AuthorityChangedError
from oms.services.chain.liveness import CONSUMER
from oms.services.delivery.service import Delivery
from oms.store import panefiles
from tests.chain import Chain, accepted, use_worker, wait_for
from tests.helpers import eventually
from tests.integration.test_delivery import _deliver


def _live_panes(chain: Chain) -> list[str]:
    with chain.workspace() as ws:
        return [p.dispatch_id for p in Delivery.open(ws).panes.list() if not p.dead]


def test_a_launch_that_meets_a_stop_ends_the_pane_it_made(deliverable: Chain) -> None:
    """`oms worker stop` leaves its kill marker first; a launch that checked the worker before it
    must see the marker once its pane exists, and end that pane (GAP_STOP_RACE)."""
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        marker: JsonObject = {
            "format": "oms-kill-v1",
            "dispatch_id": dispatch_id,
            "by": "oms-cli",
            "pid": os.getpid(),
            "reason": "stopped while it launched",
            "requested_at": ws.now(),
        }
        panefiles.leave_kill(
            ws.store.state.root, marker
        )  # stop's first step, before it ends anything
        with pytest.raises(AuthorityChangedError, match="stopped while it launched"):
            Delivery.open(ws).deliver(event_id)
    assert dispatch_id not in _live_panes(deliverable)
    assert not (deliverable.state / "outbox" / CONSUMER / f"{event_id}.receipt.json").exists()


def test_a_redelivery_after_the_pane_vanished_does_not_start_a_second_agent(
    deliverable: Chain,
) -> None:
    """The deliverer died after the launch (no receipt) and the pane is gone: delivering the event
    again parks the worker for `oms worker resume` instead of starting the agent a second time
    (GAP_RELAUNCH)."""
    out = use_worker(deliverable, "silent")  # proves nothing, so the dispatch stays accepted
    dispatch_id, event_id = accepted(deliverable)
    first = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(first, dict)
    assert first["status"] == "created"
    wait_for(out)
    (deliverable.state / "outbox" / CONSUMER / f"{event_id}.receipt.json").unlink()
    sock = str(deliverable.state / "tmux.sock")
    subprocess.run(["tmux", "-S", sock, "kill-session", "-t", f"={dispatch_id}"], check=True)
    (written,) = out._found()
    start = (
        written.stat().st_ino
    )  # the script replaces worker.out (a new inode) each time it starts
    again = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(again, dict)
    assert again["status"] == "parked"
    assert "no live pane" in str(again["reason"])
    assert dispatch_id not in _live_panes(deliverable)
    assert written.stat().st_ino == start  # the worker script did not run again


def test_a_stop_between_the_check_and_the_pane_starts_no_agent(deliverable: Chain) -> None:
    """The whole `stop` lands after a launch checked its reservation and before its pane exists
    (GAP_STOP_WINDOW): the pane's supervisor sees the stop before it starts the sandbox, so the
    agent of the stopped worker never runs, and it records why."""
    import json

    from oms.services.chain.authority import check_dispatch
    from oms.services.delivery import launch

    out = use_worker(deliverable)
    dispatch_id, _event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        dispatch = d.dispatch(dispatch_id)
        # the launch's checks passed
        plan, spec = launch.prepare(d, dispatch, check_dispatch(ws, dispatch))
        d.stop(dispatch_id, "stopped meanwhile")  # the whole stop: no pane yet, the worker ends
        status, _pane = launch.start_pane(d, dispatch, plan, spec)  # the launch goes on to its pane
    assert status == "created"
    exit_record = deliverable.state / "panes" / f"{dispatch_id}.exit.json"
    wait_for(exit_record)
    ended = json.loads(exit_record.read_text())
    assert "did not start: the worker ended while it launched" in ended["detail"]
    assert not out.exists()  # the worker script never ran


def test_a_redelivery_after_a_launch_died_before_its_session_starts_no_second_agent(
    deliverable: Chain,
) -> None:
    """The deliverer died after `ensure` and before it registered the session, then the pane went
    (GAP_RELAUNCH_NO_SESSION). The pane's supervisor starts the agent only once its session exists,
    so the agent never started; the launch had recorded that it began before the pane, so a
    re-delivery parks the worker all the same; `oms worker resume` — a person's decision — then
    starts it in a new pane, for the first time."""
    from oms.services.chain.authority import check_dispatch
    from oms.services.delivery import launch

    out = use_worker(deliverable, "silent")
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        dispatch = d.dispatch(dispatch_id)
        plan, spec = launch.prepare(d, dispatch, check_dispatch(ws, dispatch))
        status, _pane = launch.start_pane(d, dispatch, plan, spec)  # ...and the deliverer dies here
        assert d.session(str(dispatch.payload["session_id"])) is None
    assert status == "created"
    spec_file = deliverable.state / "panes" / f"{dispatch_id}.launch.json"
    eventually(  # the supervisor took its spec: it now waits for the session
        lambda: not spec_file.exists(), timeout=30, what="the supervisor takes its spec"
    )
    sock = str(deliverable.state / "tmux.sock")
    subprocess.run(["tmux", "-S", sock, "kill-session", "-t", f"={dispatch_id}"], check=True)
    again = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(again, dict)
    assert again["status"] == "parked"
    assert "no live pane" in str(again["reason"])
    assert dispatch_id not in _live_panes(deliverable)
    assert not out.exists()  # no agent started without its session
    with deliverable.workspace() as ws:
        resumed = Delivery.open(ws).resume(dispatch_id)
    assert resumed["resumed"] == "launched"
    wait_for(out)  # started once, in a new pane


def _spec_written(deliverable: Chain) -> str:
    """An accepted dispatch whose launch spec is written, as a launch writes it before its pane;
    its id."""
    from oms.services.chain.authority import check_dispatch
    from oms.services.delivery import launch
    from oms.services.delivery import spec as launch_spec

    dispatch_id, _event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        dispatch = d.dispatch(dispatch_id)
        _plan, spec = launch.prepare(d, dispatch, check_dispatch(ws, dispatch))
        launch_spec.write(ws.store.state.root, spec)
    return dispatch_id


def test_a_supervisor_whose_terminal_hung_up_starts_no_sandbox(deliverable: Chain) -> None:
    """A supervisor that took its spec and then saw its terminal hang up (the pane or the tmux
    server gone) starts nothing: an agent started then could run beside the one a re-launch starts
    (ADR 0014)."""
    import signal

    from oms.fsio import Root
    from oms.fsio.outside import reserve_descriptor
    from oms.services.delivery import spec as launch_spec
    from oms.services.supervisor.supervise import _Run

    out = use_worker(deliverable)
    dispatch_id = _spec_written(deliverable)
    logged: list[str] = []
    with Root.open(str(deliverable.state)) as root:
        taken = launch_spec.consume(root, dispatch_id)
        run = _Run(root, os.path.realpath(deliverable.state), taken, logged.append, [signal.SIGHUP])
        ended = run.run(reserve_descriptor())
    assert ended == (1, None, "the worker did not start: its terminal hung up")
    assert run.init is None
    assert not out.exists()  # the worker script never ran


def test_a_stale_deliverers_pane_starts_nothing_on_the_session_another_pane_registered(
    deliverable: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GAP_LOCAL_BEGUN (tests/model/hosts.pml; ADR 0043 "branch `ownpane`"): a deliverer whose
    lock lapsed after its guard goes on to make a pane while another deliverer launched the worker
    whole and registered its session (its agent started, then its pane ended). The stale pane's
    supervisor finds a session of its dispatch naming the other pane, and starts nothing."""
    from oms.services.chain.authority import check_dispatch
    from oms.services.delivery import launch

    out = use_worker(deliverable, "silent")  # proves nothing: the dispatch stays accepted
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:  # the stale deliverer: its checks passed, then it stalls
        d = Delivery.open(ws)
        dispatch = d.dispatch(dispatch_id)
        plan, spec = launch.prepare(d, dispatch, check_dispatch(ws, dispatch))
    first = _deliver(deliverable, event_id)["outcome"]  # the other deliverer launches whole
    assert isinstance(first, dict)
    assert first["status"] == "created"
    wait_for(out)
    (written,) = out._found()
    start = written.stat().st_ino  # the script replaces worker.out (a new inode) each time it runs
    sock = str(deliverable.state / "tmux.sock")
    subprocess.run(["tmux", "-S", sock, "kill-session", "-t", f"={dispatch_id}"], check=True)
    exit_record = deliverable.state / "panes" / f"{dispatch_id}.exit.json"
    wait_for(exit_record)  # the first pane's supervisor recorded its end
    # the stale one goes on past its guard (taken before the other registered the session)
    monkeypatch.setattr(launch, "_earlier_launch", lambda *_a, **_k: False)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        status, _pane = launch.start_pane(d, d.dispatch(dispatch_id), plan, spec)
    assert status == "created"
    eventually(
        lambda: exit_record.exists() or written.stat().st_ino != start,
        timeout=30,
        what="the stale pane's supervisor ends, or its agent starts",
    )
    assert written.stat().st_ino == start  # the worker script did not run a second time
    ended = json.loads(exit_record.read_text())
    assert ended["detail"] == "the worker did not start: its session names another pane"


@pytest.mark.parametrize("order", ["one-after-the-other", "both-read-first"])
def test_a_launch_spec_starts_one_supervisor_of_two_panes(deliverable: Chain, order: str) -> None:
    """A `new-session` run again after its tmux server died unanswered (`panes.lost_server`: a
    server SIGKILLed after it ran the command says "server exited unexpectedly" too) may start the
    pane's command twice. That command is `oms worker supervise`, which takes the launch spec
    before anything else, read then removed: of two supervisors of one dispatch, one takes it and
    the other fails before any agent (then the one whose pane the launch did not register starts
    nothing either: `test_a_stale_deliverers_pane_starts_nothing_…`). Read in either order."""
    from oms.errors import NotFoundError
    from oms.fsio.root import Root
    from oms.services.delivery import spec as launch_spec

    use_worker(deliverable)
    dispatch_id = _spec_written(deliverable)
    taken, failed = list[str](), list[str]()

    def take(root: Root) -> None:
        try:
            taken.append(launch_spec.consume(root, dispatch_id).dispatch_id)
        except NotFoundError:
            failed.append(dispatch_id)

    with Root.open(str(deliverable.state)) as root:
        if order == "both-read-first":  # the second reads between the first's read and removal
            remove = root.unlink
            pending = [lambda: take(root)]

            def unlink_after_another_read(rel: str) -> bool:
                while pending:
                    pending.pop()()
                return remove(rel)

            root.unlink = unlink_after_another_read  # type: ignore[method-assign,assignment]
            take(root)  # (the second runs inside it)
        else:
            take(root)
            take(root)
    assert (len(taken), len(failed)) == (1, 1), (taken, failed)
