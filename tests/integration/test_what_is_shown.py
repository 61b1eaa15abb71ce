"""What is shown is what is (issue 24 item 5): what `oms status`, `oms worker observe` and the
conductor show of a worker is what its records and its pane are, and a look changes nothing a later
command could have done.

Found from outside, each failing before its fix:
- an agent the Stop gate's cap let go showed `working/healthy/alive` while its session had
  `agent_stopped_at`;
- a worker parked `bridge_silent` was set back to `healthy` by the next tick (ADR 0016: it waits
  for a person);
- a deliverer killed between a launch and its receipt left the delivery event without a
  receipt, which no tick ever closed;
- `oms demo --tickets` left its last workers' records running;
- after `oms live revoke` a GitHub worker whose dispatch already had its result stayed `healthy`
  with its pane live, even through `oms worker observe`.

Real git, a real tmux server on the state root's socket, the test worker in its sandbox; its
hooks and bridge are real relays to the pane's own broker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from oms.canonical import JsonObject
from oms.cli.conductor_view import render
from oms.demo import fleet as demo_fleet
from oms.services.chain import dispatches, live, tickets, worktrees
from oms.services.chain.liveness import CONSUMER
from oms.services.conductor import tick as conductor
from oms.services.delivery.service import Delivery
from tests.agent_side import Bound, RawClient
from tests.chain import Chain, WorkerOut, accepted, broker_socket, use_worker, wait_for
from tests.fleet import Fleet, make_fleet
from tests.helpers import REPO, OmsCommand, eventually

ISSUE_URL = "https://github.com/acme/widgets/issues/9"
GH_ISSUE = {"number": 9, "title": "t", "body": "b", "url": ISSUE_URL}
LINKS: list[Path] = []


@pytest.fixture(autouse=True)
def _drop_links() -> Iterator[None]:
    yield
    while LINKS:
        shutil.rmtree(LINKS.pop(), ignore_errors=True)


def _pane_env(bound: Bound) -> dict[str, str]:
    """A relay's environment that reaches the running pane's own broker (through a short link: a
    socket path has 108 bytes)."""
    link = Path(tempfile.mkdtemp(prefix="omsr", dir="/tmp")) / "b.sock"
    link.symlink_to(broker_socket(bound.chain.state, bound.dispatch_id))
    LINKS.append(link.parent)
    return {**os.environ, "OMS_BROKER_SOCKET": str(link)}


def _hook(oms: OmsCommand, bound: Bound, event: str, extra: dict[str, object]) -> dict[str, Any]:
    payload = {"hook_event_name": event, "session_id": bound.session_id, **extra}
    done = subprocess.run(
        [*oms.argv, *bound.hook_args("command", event=event)],
        input=json.dumps(payload).encode(),
        env=_pane_env(bound),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert isinstance(answer, dict)
    return answer


def _bridge_call(
    oms: OmsCommand,
    bound: Bound,
    name: str,
    arguments: dict[str, object],
) -> dict[str, Any]:
    client = RawClient(oms, bound.bridge_args(), _pane_env(bound))
    try:
        client.initialize()
        return client.call(name, arguments)
    finally:
        client.close()


def _deliver(chain: Chain, event_id: str) -> JsonObject:
    with chain.workspace() as ws:
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    return outcome


def _bound(chain: Chain, dispatch_id: str, event_id: str) -> Bound:
    with chain.workspace() as ws:
        payload = ws.store.records("dispatch").read(dispatch_id).payload
    session_id, worktree = str(payload["session_id"]), Path(str(payload["worktree_path"]))
    return Bound(chain, dispatch_id, event_id, session_id, worktree)


def _running(chain: Chain, dispatch_id: str, event_id: str) -> Bound:
    """Delivered into a real pane; once both channels have proven themselves (it is working)."""
    assert _deliver(chain, event_id)["status"] == "created"
    wait_for(WorkerOut(chain.state))
    with chain.workspace() as ws:
        assert Delivery.open(ws).observe(dispatch_id)["worker_activity"] == "working"
    return _bound(chain, dispatch_id, event_id)


def _roots(chain: Chain) -> list[str]:
    return ["--state-root", str(chain.state), "--config-root", str(chain.repo)]


def _observe(oms: OmsCommand, chain: Chain, dispatch_id: str) -> dict[str, Any]:
    done = oms.run("worker", "observe", dispatch_id, *_roots(chain), "--json")
    assert done.returncode == 0, done.stderr
    view = json.loads(done.stdout)
    assert isinstance(view, dict)
    return view


def _status(oms: OmsCommand, chain: Chain, *json_out: str) -> str:
    done = oms.run("status", *_roots(chain), *json_out)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _worker(chain: Chain, dispatch_id: str) -> tuple[str, object, object]:
    with chain.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch_id)
    return worker.state, worker.payload["health"], worker.payload.get("health_reason")


def test_an_agent_the_stop_gate_let_go_is_shown_stopped(
    deliverable: Chain,
    oms: OmsCommand,
) -> None:
    """Past the gate's cap the Stop is let through and the agent rests at its prompt with no result
    (a Claude Code worker is parked `no_result`; any other waits): status, observe and the
    conductor's view say its agent stopped, not that it works."""
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    bound = _running(deliverable, dispatch_id, event_id)
    assert _observe(oms, deliverable, dispatch_id)["agent"] == "working"
    stops: list[dict[str, object]] = [{"stop_hook_active": on} for on in (False, True, True, True)]
    answers = [_hook(oms, bound, "Stop", stop) for stop in stops]
    decisions = [a.get("decision") for a in answers]
    assert decisions == ["block", "block", "block", None]  # the cap let it go
    view = _observe(oms, deliverable, dispatch_id)
    assert view["agent_stopped_at"] is not None
    shown_worker = (view["worker_activity"], view["worker_health"], view["pane_live"])
    assert shown_worker == ("working", "healthy", True)
    assert view["agent"] == "stopped"
    [shown] = json.loads(_status(oms, deliverable, "--json"))["workers"]
    assert (shown["agent"], shown["agent_stopped_at"]) == ("stopped", view["agent_stopped_at"])
    workers = _status(oms, deliverable).split("\nworkers (", 1)[1].split("\n\n", 1)[0]
    [row] = [line for line in workers.splitlines() if line.startswith(dispatch_id)]
    assert row.split()[:4] == [dispatch_id, "working", "healthy", "stopped"]
    with deliverable.workspace() as ws:
        screen = render(ws, conductor.tick(ws))
    [line] = [line for line in screen.splitlines() if line.endswith(dispatch_id)]
    assert line.split()[-7:-4] == ["healthy", "working", "stopped"]
    assert line.split()[-2] == "alive"  # its pane is alive; its agent is not working


def test_a_worker_parked_bridge_silent_stays_parked_through_ticks(deliverable: Chain) -> None:
    """ADR 0016: a worker parked with a running session (silent channels) waits for a person; the
    tick's heartbeat rule moved it back to `healthy` (its session's heartbeat deadline had not
    passed)."""
    use_worker(deliverable, "hooks-only")
    dispatch_id, event_id = accepted(deliverable)
    assert _deliver(deliverable, event_id)["status"] == "created"
    wait_for(WorkerOut(deliverable.state))
    deliverable.clock.advance(3)  # past the 120 s liveness deadline, within the heartbeat's 15 min
    with deliverable.workspace() as ws:
        first = conductor.tick(ws)
    parked = ("idle", "parked", "bridge_silent")
    assert _worker(deliverable, dispatch_id) == parked, first.to_json()
    for _ in range(2):
        deliverable.clock.advance(1)
        with deliverable.workspace() as ws:
            later = conductor.tick(ws)
        assert _worker(deliverable, dispatch_id) == parked, later.to_json()
    with deliverable.workspace() as ws:
        assert Delivery.open(ws).observe(dispatch_id)["worker_health"] == "parked"


KILLED_DELIVERER = """
import os, signal, sys
from oms.services.delivery.service import Delivery
from oms.services.workspace import Workspace
from oms.store.outbox import Outbox

def killed(*_args, **_kwargs):  # SIGKILL between the launch and its receipt
    os.kill(os.getpid(), signal.SIGKILL)

Outbox.commit_receipt = killed
with Workspace.open(sys.argv[1], sys.argv[2]) as ws:
    Delivery.open(ws).deliver(sys.argv[3])
"""


def test_a_delivery_event_left_without_its_receipt_is_closed_by_the_next_tick(
    deliverable: Chain,
) -> None:
    """A deliverer SIGKILLed once the agent runs and before its receipt: the agent acknowledges its
    dispatch, so the tick's deliver phase (accepted dispatches only) never looked at the event
    again."""
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    roots = [str(deliverable.state), str(deliverable.repo)]
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_DELIVERER, *roots, event_id],
        cwd=REPO,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr
    wait_for(WorkerOut(deliverable.state))  # the agent runs: it proved both channels, acknowledged
    with deliverable.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch_id).state == "acknowledged"
        assert ws.store.outbox(CONSUMER).read_receipt(event_id) is None
        report = conductor.tick(ws)
        receipt = ws.store.outbox(CONSUMER).read_receipt(event_id)
    assert receipt is not None, report.to_json()
    closed = (receipt.result["status"], receipt.result["dispatch_state"])
    assert closed == ("recovered", "acknowledged")
    [deliver] = [p for p in report.phases if p.name == "deliver"]
    assert deliver.done == [f"{dispatch_id}: its delivery event closed (recovered)"]
    with deliverable.workspace() as ws:
        again = conductor.tick(ws)
    [deliver] = [p for p in again.phases if p.name == "deliver"]
    assert (deliver.done, deliver.skipped) == ([], [])
    assert _worker(deliverable, dispatch_id)[1] == "healthy"  # one agent, working: nothing launched


def test_a_cancelled_dispatchs_open_delivery_event_is_closed(
    deliverable: Chain,
    oms: OmsCommand,
) -> None:
    """An event whose dispatch was cancelled before anyone delivered it is closed (`refused`:
    nothing ran), instead of failing every delivery of it for good."""
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        dispatches.cancel(ws, dispatch_id, "a person changed their mind")
    deliver = ["worker", "deliver", "--event-id", event_id, *_roots(deliverable), "--json"]
    done = oms.run(*deliver)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)["outcome"]
    assert (outcome["status"], outcome["dispatch_state"]) == ("refused", "cancelled")
    assert "cancelled" in outcome["reason"]
    again = json.loads(oms.run(*deliver).stdout)
    assert again["status"] == "replayed"


KILLED_CONDUCTOR = """
import os, signal, sys
from oms.services.conductor import tick as conductor
from oms.services.workspace import Workspace
from oms.store.outbox import Outbox

def killed(*_args, **_kwargs):  # SIGKILL between the launch and its receipt
    os.kill(os.getpid(), signal.SIGKILL)

Outbox.commit_receipt = killed
with Workspace.open(sys.argv[1], sys.argv[2]) as ws:
    conductor.tick(ws)
"""


@pytest.fixture
def lone(tmp_path: Path) -> Iterator[Fleet]:
    yield from make_fleet(tmp_path / "fleet", max_workers=1)


def test_a_conductor_killed_before_its_receipt_leaves_no_event_open_after_a_cancel(
    lone: Fleet, oms: OmsCommand
) -> None:
    """The conductor SIGKILLed between a launch and its receipt; a person cancels the running
    attempt before the next tick: that tick closes the event (`recovered`: it was launched), ends
    the worker and retries the ticket."""
    ticket_id = lone.add("Please hang")
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_CONDUCTOR, lone.state, lone.repo],
        cwd=REPO,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr
    with lone.workspace() as ws:
        [dispatch] = ws.store.latest("dispatch").records
    event_id = str(dispatch.payload["delivery_event_id"])
    eventually(  # it runs, unreceipted
        lambda: _dispatch_state(lone, dispatch.record_id) == "acknowledged",
        timeout=60,
        what="the agent acknowledges its dispatch",
    )
    roots = ["--state-root", lone.state, "--config-root", lone.repo]
    done = oms.run("dispatch", "cancel", dispatch.record_id, "--reason", "not this one", *roots)
    assert done.returncode == 0, done.stderr
    report = lone.tick()
    with lone.workspace() as ws:
        receipt = ws.store.outbox(CONSUMER).read_receipt(event_id)
        worker = ws.store.records("worker").read(dispatch.record_id)
    assert receipt is not None, report.to_json()
    closed = (receipt.result["status"], receipt.result["dispatch_state"])
    assert closed == ("recovered", "cancelled")
    assert worker.payload["health"] == "stopped"
    state, payload = lone.tickets()[ticket_id]
    assert (state, payload["attempt"]) == ("open", 2)


def _dispatch_state(fleet: Fleet, dispatch_id: str) -> str:
    with fleet.workspace() as ws:
        return ws.store.records("dispatch").read(dispatch_id).state


def _github_running(chain: Chain, oms: OmsCommand) -> Bound:
    use_worker(chain)
    with chain.workspace() as ws:
        live.authorize(ws, "acme/widgets", person="Alice", confirmed_by="flag")
        rec, _ = tickets.import_github(ws, json.dumps(GH_ISSUE).encode())
        tickets.lease(ws, rec.record_id, "w1")
        worktrees.create(ws, rec.record_id)
        dispatch, _ = dispatches.propose(ws, rec.record_id)
        dispatches.review(ws, dispatch.record_id)
        _, event_id = dispatches.accept(ws, dispatch.record_id)
    bound = _running(chain, dispatch.record_id, event_id)
    result: dict[str, object] = {"status": "failed", "summary": "no"}
    recorded = _bridge_call(oms, bound, "record_dispatch_result", result)
    assert recorded.get("isError") is not True, recorded
    state, health, _ = _worker(chain, bound.dispatch_id)
    assert (state, health) == ("blocked", "healthy")  # its result recorded, its agent still runs
    return bound


def test_a_revoked_repositorys_worker_is_fenced_after_its_result_too(
    deliverable: Chain,
    oms: OmsCommand,
) -> None:
    """ADR 0013's rule names the attempt whatever its worker's activity: a worker whose dispatch is
    `result-received` still runs its agent (it may still act: its hooks, its tools)."""
    bound = _github_running(deliverable, oms)
    done = oms.run(
        "live", "revoke", "--repository", "acme/widgets", "--reason", "stop now",
        "--state-root", str(deliverable.state), "--config-root", str(deliverable.repo), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["parked_workers"] == [bound.dispatch_id]
    view = _observe(oms, deliverable, bound.dispatch_id)
    shown = (view["dispatch_state"], view["worker_activity"], view["worker_health"])
    assert shown == ("result-received", "blocked", "parked")
    why = "attempt fenced: the live authorisation of acme/widgets was revoked"
    assert str(view["health_reason"]).startswith(why)


def test_observe_fences_a_worker_whose_result_is_recorded(
    deliverable: Chain,
    oms: OmsCommand,
) -> None:
    """The same lapse met by `oms worker observe` alone (the authorisation revoked by a writer that
    parks nothing): the look parks the worker, whatever its activity."""
    bound = _github_running(deliverable, oms)
    with deliverable.workspace() as ws:
        live.revoke(ws, "acme/widgets", "revoked elsewhere")
    view = _observe(oms, deliverable, bound.dispatch_id)
    assert (view["worker_activity"], view["worker_health"]) == ("blocked", "parked")
    assert "the live authorisation of acme/widgets was revoked" in str(view["health_reason"])


def test_a_fleet_demo_ends_every_worker_it_started(tmp_path: Path, oms: OmsCommand) -> None:
    """`oms demo --tickets` stopped ticking once every ticket had its result and ended its tmux
    server: the last workers' records said they ran for good. With workers that wait at their prompt
    after their result (as an interactive agent does), every one is left running unless the demo
    ends it."""
    where = str(tmp_path / "fleet")
    run = demo_fleet.run(where, count=2, workers=2, timeout_s=120.0, after="wait")
    assert run.ok, run.reason
    roots = ["--state-root", run.state_root, "--config-root", run.repo]
    status = json.loads(oms.run("status", "--json", *roots).stdout)
    assert len(status["workers"]) == 2
    ends = {(w["health"], w["end_reason"]) for w in status["workers"]}
    assert ends == {("stopped", "result-recorded")}
    assert {w["state"] for w in status["workers"]} == {"done"}


def test_a_fleet_demo_that_times_out_ends_its_workers_too(tmp_path: Path, oms: OmsCommand) -> None:
    """Every way out of the demo ends its workers: here its time runs out while two agents that
    never record a result wait at their prompt and a third ticket waits for a slot (an agent whose
    result is acted on ends by itself: ADR 0028)."""
    where = str(tmp_path / "fleet")
    run = demo_fleet.run(where, count=3, workers=2, timeout_s=15.0, after="wait", mode="hooks-only")
    assert not run.ok
    assert run.reason == "3 tickets unfinished after 15s"
    roots = ["--state-root", run.state_root, "--config-root", run.repo]
    status = json.loads(oms.run("status", "--json", *roots).stdout)
    assert len(status["workers"]) == 2
    assert {w["health"] for w in status["workers"]} == {"stopped"}
